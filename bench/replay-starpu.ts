/**
 * `node --import tsx bench/replay-starpu.ts`: the StarPU runs recorded in
 * test/fixtures/starpu-rec replayed by `locus replay`: the CPU runs with their recorded task
 * durations on 2 CPU workers, under dmdar (the scheduler that recorded them) and eager; StarPU's
 * SimGrid runs on sirocco on the platform `locus platform import starpu` makes of the same
 * sampling, under the scheduler that recorded each, beside StarPU's own replayer on the same
 * records (starpu_replay in SimGrid, test/fixtures/starpu-rec/starpu-replay.json, measured by
 * scripts/record-starpu-replay.sh). The replay's makespan against the recorded one.
 * Deterministic (the records are fixed).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { table } from '../src/cli/format.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { compilePlatform } from '../src/platform/schema.ts';
import { importStarpuPlatform } from '../src/platform/starpu/import.ts';
import { replay } from '../src/replay/replay.ts';

const platform = resolvePlatform('local', { cpus: 2 });
const rows = [
  ['record', 'tasks', 'recorded (ms)', 'dmdar replay (ms)', 'ratio', 'eager replay (ms)', 'ratio'],
];
for (const name of ['cholesky-cpu2-dmdar', 'lu-cpu2-dmdar', 'sgemm-cpu2-dmdar']) {
  const file = fileURLToPath(new URL(`../test/fixtures/starpu-rec/${name}.rec.gz`, import.meta.url));
  const d = replay({ file, platform, scheduler: 'dmdar', durations: 'recorded' });
  const e = replay({ file, platform, scheduler: 'eager', durations: 'recorded' });
  const rec = d.recorded.makespanS;
  rows.push([
    name,
    String(d.report.tasks),
    (rec * 1e3).toFixed(1),
    (d.report.makespanS * 1e3).toFixed(1),
    (d.report.makespanS / rec).toFixed(3),
    (e.report.makespanS * 1e3).toFixed(1),
    (e.report.makespanS / rec).toFixed(3),
  ]);
}
console.log('StarPU task records replayed with their recorded durations on 2 CPU workers');
console.log(table(rows));

const sampling = fileURLToPath(new URL('../test/fixtures/starpu-sampling', import.meta.url));
const { platform: sirocco } = await importStarpuPlatform({
  dir: sampling,
  host: 'sirocco',
  cpus: 0,
  gpus: 2,
  gpuMemory: 500 * 2 ** 20,
});
const starpuReplay = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../test/fixtures/starpu-rec/starpu-replay.json', import.meta.url)),
    'utf8',
  ),
) as { runs: { record: string; makespanMs: number }[] };
const sg = [
  [
    'record (SimGrid, sirocco 2 GPUs, 500 MiB)',
    'tasks',
    'recorded (ms)',
    'locus replay (ms)',
    'ratio',
    'starpu_replay (ms)',
    'ratio',
  ],
];
for (const sched of ['dmdar', 'eager']) {
  const name = `cholesky-simgrid-sirocco-${sched}`;
  const file = fileURLToPath(new URL(`../test/fixtures/starpu-rec/${name}.rec.gz`, import.meta.url));
  const r = replay({ file, platform: compilePlatform(sirocco, 'sirocco'), scheduler: sched });
  const theirs = starpuReplay.runs.find((x) => x.record === name)!.makespanMs;
  sg.push([
    name,
    String(r.report.tasks),
    (r.recorded.makespanS * 1e3).toFixed(1),
    (r.report.makespanS * 1e3).toFixed(1),
    (r.report.makespanS / r.recorded.makespanS).toFixed(3),
    theirs.toFixed(1),
    (theirs / 1e3 / r.recorded.makespanS).toFixed(3),
  ]);
}
console.log(
  "\nStarPU SimGrid runs replayed on the imported sirocco under the same scheduler (platform durations), and by StarPU's starpu_replay",
);
console.log(table(sg));
