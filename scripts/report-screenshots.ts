/**
 * The screenshots of docs/guide.md's "See a run" section, made from the commands that section
 * shows: the page of cholesky N=30 under darts+luf (zoomed on a stretch of the run, a task
 * hovered), eager beside dmdar, and the playground after running matmul2d N=20 under eager
 * and darts+luf. Needs Chromium (as the browser tests do).
 *
 *   node --import tsx scripts/report-screenshots.ts      (after npm run build)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { chromiumPath, launchChromium, offlinePage } from '../test/helpers/browser.ts';
import type { View } from '../web/report/view.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!chromiumPath()) {
  process.stderr.write(
    'report-screenshots: no Chromium here (apt-get install chromium, or set LOCUS_CHROMIUM)\n',
  );
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'locus-screenshots-'));
const locus = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`locus ${args.join(' ')}: ${r.stderr}`);
};
const run = ['-w', 'cholesky', '-n', '30', '--gpu-mem', '250MiB'];
locus('run', ...run, '--sched', 'darts+luf', '--html', join(dir, 'r.html'));
locus('run', ...run, '--sched', 'eager', '--trace', join(dir, 'eager.json'), '--json');
locus('run', ...run, '--sched', 'dmdar', '--trace', join(dir, 'dmdar.json'), '--json');
locus('report', join(dir, 'eager.json'), join(dir, 'dmdar.json'), '-o', join(dir, 'cmp.html'));
locus('playground', '--out', join(dir, 'site'));

/** Opens a page and waits for it to draw. */
async function open(page: Page, file: string): Promise<void> {
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => (window as { locusReport?: View }).locusReport !== undefined);
}

/** The page down to the end of the ready panel (the summary table is left out). */
async function shoot(page: Page, out: string): Promise<void> {
  const box = (await page.locator('section[data-panel="ready"]').boundingBox())!;
  await page.screenshot({
    path: out,
    clip: { x: 0, y: 0, width: 1200, height: Math.ceil(box.y + box.height + 8) },
  });
  process.stdout.write(`wrote ${out}\n`);
}

const browser = await launchChromium();
try {
  const page = await offlinePage(browser, [], { width: 1200, height: 1000 });
  await open(page, join(dir, 'r.html'));
  // A fifth of the run, from a tenth in; then hover the longest task in view on the first worker.
  const point = await page.evaluate(() => {
    const v = (window as unknown as { locusReport: View }).locusReport;
    const [a, b] = v.window;
    v.zoom(a + (b - a) * 0.1, a + (b - a) * 0.3);
    v.drawNow();
    const c = v.runs[0]!.columns;
    const [t0, t1] = v.window;
    let best = -1;
    for (let i = 0; i < v.runs[0]!.facts.workerTaskStart[1]!; i++) {
      if (c.taskStart[i]! < t0 + (t1 - t0) * 0.3 || c.taskEnd[i]! > t0 + (t1 - t0) * 0.6) continue;
      if (best < 0 || c.taskEnd[i]! - c.taskStart[i]! > c.taskEnd[best]! - c.taskStart[best]!) best = i;
    }
    return v.taskPoint(0, Math.max(0, best));
  });
  if (point) await page.mouse.move(point.x, point.y);
  await page.locator('#tip').waitFor({ state: 'visible' });
  await shoot(page, join(root, 'docs/img/report-cholesky.png'));
  const pair = await offlinePage(browser, [], { width: 1200, height: 1000 });
  await open(pair, join(dir, 'cmp.html'));
  await shoot(pair, join(root, 'docs/img/report-compare.png'));
  const play = await offlinePage(browser, [], { width: 1200, height: 1000 });
  await play.goto(pathToFileURL(join(dir, 'site', 'index.html')).href);
  await play.waitForFunction(
    () => (window as { locusPlayground?: { state: string } }).locusPlayground?.state === 'ready',
  );
  await play.click('#run');
  await play.waitForFunction(
    () => (window as { locusPlayground?: { state: string } }).locusPlayground?.state === 'done',
  );
  await shoot(play, join(root, 'docs/img/playground.png'));
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
