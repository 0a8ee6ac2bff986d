import { TaskGraph } from './src/core/graph.ts';
import { AccessMode } from './src/core/types.ts';
import { resolvePlatform } from './src/platform/presets.ts';
import { simulate } from './src/sim/simulate.ts';

const N = 4; // row blocks of A
const B = 2048; // tile edge in elements
const tileBytes = B * B * 4; // single precision: 16 MiB

const g = new TaskGraph();
// A codelet: a name (also the key of per-codelet rates in platform files), the worker
// kinds that implement it, and its flop count as a function of the tile dimensions.
const gemm = g.addCodelet({
  name: 'gemm',
  kinds: ['cpu', 'gpu'],
  flops: (m, n = m, k = m) => 2 * m * n * k,
});
const accumulate = g.addCodelet({ name: 'accumulate', kinds: ['cpu'], flops: (n) => n * n });

// Data handles: a size in bytes and an optional name. All start in host memory.
const a = Array.from({ length: N }, (_, i) => g.addHandle(tileBytes, { name: `A[${i}]` }));
const x = g.addHandle(tileBytes, { name: 'X' });
const c = Array.from({ length: N }, (_, i) => g.addHandle(tileBytes, { name: `C[${i}]` }));
const s = g.addHandle(tileBytes, { name: 'S' });

// C[i] = A[i] X: reads A[i] and X, writes C[i]; flops = gemm.flops(...dims).
for (let i = 0; i < N; i++) {
  g.submit(
    gemm,
    [
      [a[i]!, AccessMode.R],
      [x, AccessMode.R],
      [c[i]!, AccessMode.W],
    ],
    { name: `GEMM(${i})`, dims: [B, B, B] },
  );
}
// S += C[i]: the RW accesses to S chain these tasks; reading C[i] waits for GEMM(i).
let last = -1;
for (let i = 0; i < N; i++) {
  last = g.submit(
    accumulate,
    [
      [c[i]!, AccessMode.R],
      [s, AccessMode.RW],
    ],
    { name: `ACC(${i})`, dims: [B] },
  );
}

console.log(`${g.taskCount} tasks, ${g.handleCount} handles`);
const preds = g.predecessors(last).map((t) => g.taskLabel(t));
console.log(`predecessors of ACC(${N - 1}): ${preds.join(', ')}`);

// Seed 000's node: 2 GPUs, here capped at 64 MiB, plus 2 CPU workers for 'accumulate'.
const platform = resolvePlatform('v100x2', { cpus: 2, gpuMem: 64 * 2 ** 20 });
const { report } = simulate({
  graph: g,
  platform,
  scheduler: 'eager',
  eviction: 'lru',
  seed: 1,
  workload: 'guide example',
});

const ms = (t: number) => `${(t * 1e3).toFixed(3)} ms`;
const mib = (b: number) => `${b / 2 ** 20} MiB`;
console.log(`makespan ${ms(report.makespanS)}, data home at ${ms(report.endS)}`);
console.log(`${report.gflops.toFixed(1)} GFlop/s over ${report.tasks} tasks`);
console.log(`to devices ${mib(report.bytesToDevices)} in ${report.loads} loads`);
console.log(`from devices ${mib(report.bytesFromDevices)}, ${report.writebacks} write-backs`);
console.log(`${report.evictions} evictions`);
for (const w of report.workers) console.log(`  ${w.name}: ${w.tasks} tasks, busy ${ms(w.busyS)}`);
