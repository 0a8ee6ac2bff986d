/**
 * The playground in headless Chromium: `locus playground --out` writes a page that runs the
 * simulator in a web worker, with the network off; its table and reports equal
 * `locus run --json` for three inputs (matmul2d N=20 under eager and darts+luf, cholesky
 * N=8 under dmdar); the stop button stops a long run and the page runs again after it; no
 * console errors. `locus playground` serves the same page on 127.0.0.1. Skipped, saying why,
 * without Chromium.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { commandLine } from '../src/playground/command-line.ts';
import type { PlaygroundRun } from '../src/playground/simulate-run.ts';
import { browserSkip, launchChromium, offlinePage } from './helpers/browser.ts';
import { cliReport, PLAYGROUND_CASES, presetFile, withoutWallClock } from './helpers/playground-cases.ts';

declare global {
  interface Window {
    locusPlayground: {
      state: string;
      error?: string;
      results: { policy: string; report: Record<string, unknown>; command: string }[];
    };
  }
}

const dir = mkdtempSync(join(tmpdir(), 'locus-playground-'));
const page = join(dir, 'site', 'index.html');

/** Fills the form for `runs` (same platform and workload, one policy each). */
async function fill(p: Page, runs: PlaygroundRun[]): Promise<void> {
  const r = runs[0]!;
  if (!('preset' in r.platform)) throw new Error('a preset');
  await p.selectOption('#preset', r.platform.preset);
  await p.fill('#gpumem', r.platform.gpuMem === undefined ? '' : String(r.platform.gpuMem / 2 ** 20));
  await p.selectOption('#workload', r.workload);
  await p.fill('#tiles', String(r.params.tiles));
  await p.fill('#policies', runs.map((x) => x.policy).join(', '));
  await p.fill('#seed', String(r.seed));
}

/** Clicks Run and waits for the runs to end; returns the state. */
async function runForm(p: Page): Promise<string> {
  await p.click('#run');
  await p.waitForFunction(() => window.locusPlayground.state !== 'running', null, { timeout: 120_000 });
  return p.evaluate(() => window.locusPlayground.state);
}

describe('the playground in Chromium', { skip: browserSkip(), timeout: 300_000 }, () => {
  let browser: Browser;
  before(async () => {
    const r = spawnSync(process.execPath, ['bin/locus.mjs', 'playground', '--out', join(dir, 'site')], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /playground written to .*index\.html/);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  test('its table and reports equal locus run --json on three inputs, offline', async () => {
    const errors: string[] = [];
    const p = await offlinePage(browser, errors);
    await p.goto(pathToFileURL(page).href);
    await p.waitForFunction(() => window.locusPlayground.state === 'ready');
    for (const runs of [PLAYGROUND_CASES.slice(0, 2), PLAYGROUND_CASES.slice(2)]) {
      await fill(p, runs);
      assert.equal(await runForm(p), 'done', await p.evaluate(() => window.locusPlayground.error ?? ''));
      const results = await p.evaluate(() => window.locusPlayground.results);
      assert.deepEqual(
        results.map((r) => r.policy),
        runs.map((r) => r.policy),
      );
      for (const [i, r] of runs.entries()) {
        const cli = cliReport(r);
        assert.deepEqual(withoutWallClock(results[i]!.report), cli, r.policy);
        assert.equal(results[i]!.command, commandLine(r), 'the command line it shows');
        assert.ok((await p.locator('ul.commands').innerText()).includes(`${commandLine(r)} --json`));
        // The table shows the same numbers.
        for (const key of ['makespanS', 'gflops', 'bytesToDevices', 'transfers', 'evictions', 'writebacks']) {
          const cell = p.locator(`tr[data-policy="${r.policy}"] td[data-key="${key}"]`);
          assert.equal(await cell.getAttribute('data-value'), String(cli[key]), `${r.policy} ${key}`);
        }
      }
      // The panels of every run, side by side.
      assert.equal(await p.locator('section[data-panel="gantt"] canvas').count(), runs.length);
    }
    assert.deepEqual(errors, []);
  });

  test('a pasted platform file replaces the preset', async () => {
    const errors: string[] = [];
    const p = await offlinePage(browser, errors);
    await p.goto(pathToFileURL(page).href);
    await p.waitForFunction(() => window.locusPlayground.state === 'ready');
    const run: PlaygroundRun = {
      platform: { file: presetFile('hannibal'), gpuMem: 200 * 2 ** 20 },
      workload: 'cholesky',
      params: { tiles: 6 },
      policy: 'dmdas',
      seed: 1,
    };
    await p.fill('#platformfile', (run.platform as { file: string }).file);
    await p.fill('#gpumem', '200');
    await p.selectOption('#workload', 'cholesky');
    await p.fill('#tiles', '6');
    await p.fill('#policies', 'dmdas');
    assert.equal(await runForm(p), 'done', await p.evaluate(() => window.locusPlayground.error ?? ''));
    const [result] = await p.evaluate(() => window.locusPlayground.results);
    assert.deepEqual(withoutWallClock(result!.report), cliReport(run));
    assert.deepEqual(errors, []);
  });

  test('stop ends a long run; the page then runs again', async () => {
    const errors: string[] = [];
    const p = await offlinePage(browser, errors);
    await p.goto(pathToFileURL(page).href);
    await p.waitForFunction(() => window.locusPlayground.state === 'ready');
    await p.selectOption('#workload', 'cholesky');
    await p.fill('#tiles', '60');
    await p.fill('#policies', 'dmdar');
    await p.click('#run');
    await p.waitForFunction(
      () => /of [\d,]+ tasks/.test(document.getElementById('status')!.textContent ?? ''),
      null,
      {
        timeout: 60_000,
      },
    );
    await p.click('#stop');
    await p.waitForFunction(() => window.locusPlayground.state === 'stopped');
    await p.fill('#tiles', '4');
    assert.equal(await runForm(p), 'done');
    assert.deepEqual(errors, []);
  });

  test('locus playground serves the page on 127.0.0.1', async () => {
    const child = spawn(process.execPath, ['bin/locus.mjs', 'playground'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      });
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)?.[0];
      assert.ok(url, line);
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), readFileSync(page, 'utf8'));
      assert.equal((await fetch(`${url}nothing`)).status, 404);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 0);
  });
});
