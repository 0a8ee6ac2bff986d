/**
 * `npm run bench:accuracy`: how well a simulation on an exported platform predicts real runs
 * (issue: sim-vs-real under 10%). For each machine set-up it calibrates the bus and the
 * kernels into a fresh model folder (as `locus calibrate`), exports the platform (as `locus
 * platform export`), then runs tiled Cholesky and LU (tiles of 256, float64, dmdar) for real
 * and simulated on the exported platform, and prints both makespans and the relative error.
 *
 * Real runs are measured twice: "cold" is the first batch of fresh worker threads (what a
 * `locus run --mode real` command sees: the threads' JIT compiles the kernels during it), and
 * "warm" a second batch on the same threads.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportPlatform } from '../src/cli/calibrate-command.ts';
import type { Platform } from '../src/core/platform.ts';
import { calibrate } from '../src/exec/calibrate.ts';
import { runWorkload } from '../src/exec/run-workload.ts';
import { Runtime } from '../src/exec/runtime.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { parsePlatformFile } from '../src/platform/schema.ts';
import { simulate } from '../src/sim/simulate.ts';
import { generateWorkload } from '../src/workloads/index.ts';

const TILE = 256;
const SIZES = (process.env.ACCURACY_SIZES ?? '8,12,16').split(',').map(Number);

/** One CPU worker and one emulated device of 4 MiB behind a 1 GB/s, 20 us link, throttled. */
const deviceMachine = parsePlatformFile(
  JSON.stringify({
    name: 'cpu1-dev1',
    memoryNodes: [
      { name: 'ram', kind: 'host', capacity: '4GiB' },
      { name: 'dev0', kind: 'gpu', capacity: '4MiB' },
    ],
    workers: [
      { name: 'cpu', kind: 'cpu', memory: 'ram', rate: '5GFlop/s' },
      { name: 'dev0', kind: 'gpu', memory: 'dev0', rate: '5GFlop/s' },
    ],
    links: [
      { from: 'ram', to: 'dev0', bandwidth: '1GB/s', latency: '20us' },
      { from: 'dev0', to: 'ram', bandwidth: '1GB/s', latency: '20us' },
    ],
  }),
  'cpu1-dev1.json',
);

const SETUPS: { name: string; platform: Platform; throttle: boolean }[] = [
  { name: '2 CPU workers', platform: resolvePlatform('local', { cpus: 2 }), throttle: false },
  { name: '1 CPU + 1 emulated device (4 MiB, 1 GB/s, throttled)', platform: deviceMachine, throttle: true },
];

const rows: string[] = [];
for (const setup of SETUPS) {
  const dir = mkdtempSync(join(tmpdir(), 'locus-accuracy-'));
  await calibrate({
    platform: setup.platform,
    tileSizes: [TILE],
    minSamples: 20,
    throttle: setup.throttle,
    dir,
  });
  const file = join(dir, 'exported.json');
  writeFileSync(file, exportPlatform(setup.platform, dir, TILE));
  const exported = parsePlatformFile(exportPlatform(setup.platform, dir, TILE), file);
  for (const app of ['cholesky', 'lu']) {
    for (const n of SIZES) {
      // Real runs only read the models, so the calibration stays what was exported.
      const rt = await Runtime.create({
        platform: setup.platform,
        scheduler: 'dmdar',
        throttle: setup.throttle,
        perfModelDir: dir,
        perfModels: 'read',
      });
      const cold = (await runWorkload(app, { tiles: n, tileSize: TILE, runtime: rt })).report.makespanS;
      // A new engine (and clock) for the second batch on the same threads: a Runtime's report
      // covers everything its current engine ran, which would count the first batch again.
      rt.setPolicies('dmdar');
      const warm = (await runWorkload(app, { tiles: n, tileSize: TILE, runtime: rt })).report.makespanS;
      await rt.close();
      const wl = generateWorkload(app, { tiles: n, tileSize: TILE, precision: 'double' });
      const sim = simulate({ graph: wl.graph, platform: exported, scheduler: 'dmdar' }).report.makespanS;
      const err = (x: number) => `${(((sim - x) / x) * 100).toFixed(1)}%`;
      rows.push(
        `| ${setup.name} | ${app} | ${n} | ${cold.toFixed(3)} | ${warm.toFixed(3)} | ${sim.toFixed(3)} | ${err(cold)} | ${err(warm)} |`,
      );
      console.error(rows.at(-1));
    }
  }
}
console.log(`\nsimulated (exported platform) vs real makespans, tiles of ${TILE}, float64, dmdar:\n`);
console.log(
  '| machine | workload | tiles | real cold (s) | real warm (s) | simulated (s) | error vs cold | error vs warm |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
