/**
 * `node --import tsx bench/replay-starpu.ts`: the StarPU runs recorded in
 * test/fixtures/starpu-rec replayed by `locus replay` with their recorded task durations on 2
 * CPU workers, under dmdar (the scheduler that recorded them) and eager: the replay's makespan
 * against the recorded one. Deterministic (the records are fixed).
 */
import { fileURLToPath } from 'node:url';
import { table } from '../src/cli/format.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
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
