/**
 * `npm run bench:report`: the HTML report at 100,000 tasks. Writes the page of
 * `locus run -w cholesky -n 84 --sched darts+luf --gpu-mem 500MiB` (102,340 tasks, a quarter
 * of a million copies, evictions all along) and prints its size, then opens it in headless
 * Chromium (network off) a few times and prints the time until it has drawn (navigation,
 * decoding and the first frame) and the time of one frame zoomed out and zoomed in.
 *
 *   node --import tsx bench/report.ts [--tiles N] [--opens K]   (default 84 and 3)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromiumPath, launchChromium, offlinePage } from '../test/helpers/browser.ts';
import type { View } from '../web/report/view.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const tiles = arg('--tiles', 84);
const opens = arg('--opens', 3);
if (!chromiumPath()) {
  process.stderr.write('bench/report: no Chromium here (apt-get install chromium, or set LOCUS_CHROMIUM)\n');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'locus-bench-report-'));
const file = join(dir, 'run.html');
const args = ['run', '-w', 'cholesky', '-n', String(tiles), '--sched', 'darts+luf', '--gpu-mem', '500MiB'];
const t0 = performance.now();
const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args, '--html', file, '--json'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
if (r.status !== 0) {
  process.stderr.write(r.stderr);
  process.exit(1);
}
const tasks = (JSON.parse(r.stdout) as { tasks: number }).tasks;
process.stdout.write(
  `locus ${args.join(' ')} --html: ${tasks.toLocaleString('en-US')} tasks, page ${(statSync(file).size / 1e6).toFixed(1)} MB, run and page written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
);
const browser = await launchChromium();
try {
  for (let k = 0; k < opens; k++) {
    const errors: string[] = [];
    const page = await offlinePage(browser, errors);
    const start = performance.now();
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => (window as { locusReport?: View }).locusReport !== undefined, null, {
      timeout: 60_000,
    });
    const opened = performance.now() - start;
    const frames = await page.evaluate(() => {
      // (No named functions here: tsx would wrap them in a helper the page lacks.)
      const v = (window as unknown as { locusReport: View }).locusReport;
      let t = performance.now();
      v.drawNow();
      const whole = performance.now() - t;
      const [a, b] = v.window;
      v.zoom(a + (b - a) * 0.4, a + (b - a) * 0.41);
      t = performance.now();
      v.drawNow();
      const zoomed = performance.now() - t;
      return { whole, zoomed };
    });
    process.stdout.write(
      `open ${k + 1}: drawn ${(opened / 1000).toFixed(2)} s after navigation; a frame: ${frames.whole.toFixed(0)} ms whole run, ${frames.zoomed.toFixed(0)} ms at 1% of it${errors.length ? `; errors: ${errors.join('; ')}` : ''}\n`,
    );
    await page.context().close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
