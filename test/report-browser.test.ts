/**
 * The HTML report in a real browser (headless Chromium, network off): `locus run --html`'s
 * page draws its four panels, hovering a task shows its name and data, zooming narrows every
 * panel's window, two runs side by side share one window; no console errors. Skipped, saying
 * why, where no Chromium is installed (.ci/run installs Debian's).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { View } from '../web/report/view.ts';
import { browserSkip, launchChromium, offlinePage } from './helpers/browser.ts';

declare global {
  interface Window {
    locusReport?: View;
    locusReportError?: string;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'locus-report-browser-'));
const ENV = { ...process.env, LOCUS_PERFMODEL_DIR: mkdtempSync(join(tmpdir(), 'locus-models-')) };

function locus(...args: string[]): void {
  const r = spawnSync(process.execPath, ['bin/locus.mjs', ...args], { encoding: 'utf8', env: ENV });
  assert.equal(r.status, 0, r.stderr);
}

/** Opens a report page and waits until it has drawn (or failed). */
async function open(page: Page, file: string): Promise<void> {
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.locusReport !== undefined || window.locusReportError !== undefined);
  assert.equal(await page.evaluate(() => window.locusReportError), undefined);
}

/** Non-blank pixels of the canvas of `panel` for run `run`. */
function inkOf(page: Page, panel: string, run = 0): Promise<number> {
  return page.evaluate(
    ([p, r]) => {
      const c = document.querySelector<HTMLCanvasElement>(
        `section[data-panel="${p}"] canvas[data-run="${r}"]`,
      )!;
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) ink++;
      return ink;
    },
    [panel, run] as const,
  );
}

describe('the HTML report in Chromium', { skip: browserSkip(), timeout: 180_000 }, () => {
  let browser: Browser;
  const single = join(dir, 'run.html');
  const pair = join(dir, 'pair.html');
  const sweep = join(dir, 'sweep');

  before(async () => {
    locus(
      'run',
      '-w',
      'cholesky',
      '-n',
      '10',
      '--sched',
      'darts+luf',
      '--gpu-mem',
      '100MB',
      '--html',
      single,
    );
    const a = join(dir, 'eager.json');
    const b = join(dir, 'dmdar.json');
    locus('run', '-w', 'cholesky', '-n', '10', '--sched', 'eager', '--gpu-mem', '100MB', '--trace', a);
    locus('run', '-w', 'cholesky', '-n', '10', '--sched', 'dmdar', '--gpu-mem', '100MB', '--trace', b);
    locus('report', a, b, '-o', pair);
    locus('sweep', '-w', 'matmul2d', '--sizes', '4,6', '--sched', 'eager,dmdar', '--out', sweep);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  test('the page draws its four panels and its summary, offline, without errors', async () => {
    const errors: string[] = [];
    const page = await offlinePage(browser, errors);
    await open(page, single);
    const drawn = await page.evaluate(() => ({ ...window.locusReport!.drawn }));
    for (const panel of ['gantt', 'transfers', 'memory', 'ready']) {
      assert.ok((drawn[panel] ?? 0) > 0, `${panel} drew marks: ${JSON.stringify(drawn)}`);
      assert.ok((await inkOf(page, panel)) > 1000, `${panel}'s canvas has ink`);
    }
    const summary = await page.locator('section[data-panel="summary"] table').innerText();
    assert.match(summary, /makespan/);
    assert.match(summary, /darts\+luf/);
    assert.deepEqual(errors, []);
  });

  test('hovering a task shows its name, data and times', async () => {
    const errors: string[] = [];
    const page = await offlinePage(browser, errors);
    await open(page, single);
    const { point, name, data } = await page.evaluate(() => {
      const v = window.locusReport!;
      // The longest task of the first worker: wide enough to point at.
      const c = v.runs[0]!.columns;
      let best = 0;
      for (let i = 0; i < v.runs[0]!.facts.workerTaskStart[1]!; i++)
        if (c.taskEnd[i]! - c.taskStart[i]! > c.taskEnd[best]! - c.taskStart[best]!) best = i;
      return { point: v.taskPoint(0, best), name: c.taskName[best]!, data: c.taskData[best]! };
    });
    assert.ok(point);
    await page.mouse.move(point.x, point.y);
    const tip = page.locator('#tip');
    await tip.waitFor({ state: 'visible' });
    const text = await tip.innerText();
    assert.ok(text.includes(name), `${text} names ${name}`);
    assert.ok(text.includes(`data ${data}`), text);
    assert.match(text, /start .* end /);
    assert.deepEqual(errors, []);
  });

  test('the wheel zooms every panel; a double click shows the whole run again', async () => {
    const errors: string[] = [];
    const page = await offlinePage(browser, errors);
    await open(page, single);
    const whole = await page.evaluate(() => window.locusReport!.window);
    const box = (await page.locator('section[data-panel="memory"] canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 20);
    await page.mouse.wheel(0, -600);
    await page.waitForFunction(
      (w) => window.locusReport!.window[1] - window.locusReport!.window[0] < (w[1] - w[0]) / 2,
      whole,
    );
    await page.mouse.dblclick(box.x + box.width / 2, box.y + 20);
    await page.waitForFunction(
      (w) => window.locusReport!.window[1] - window.locusReport!.window[0] === w[1] - w[0],
      whole,
    );
    assert.deepEqual(errors, []);
  });

  test('two runs side by side: a column each, one time window, one memory scale', async () => {
    const errors: string[] = [];
    const page = await offlinePage(browser, errors);
    await open(page, pair);
    const labels = await page.locator('.run-label').allInnerTexts();
    assert.deepEqual(labels, ['eager+lru', 'dmdar+lru']);
    for (const panel of ['gantt', 'transfers', 'memory', 'ready']) {
      assert.equal(await page.locator(`section[data-panel="${panel}"] canvas`).count(), 2);
      assert.ok((await inkOf(page, panel, 1)) > 1000, `${panel} of the second run has ink`);
    }
    const header = await page.locator('section[data-panel="summary"] thead').innerText();
    assert.match(header, /eager\+lru\s+dmdar\+lru/);
    assert.deepEqual(errors, []);
  });

  test("a sweep's index.html shows its plots and tables", async () => {
    const errors: string[] = [];
    const page = await offlinePage(browser, errors);
    await page.goto(pathToFileURL(join(sweep, 'index.html')).href);
    assert.match(await page.locator('h2').first().innerText(), /throughput/);
    const images = page.locator('img');
    // The plots need the optional plotting packages; when drawn, they load from beside it.
    for (let i = 0; i < (await images.count()); i++) {
      assert.ok(
        await images.nth(i).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
      );
    }
    assert.deepEqual(errors, []);
  });
});
