/**
 * `node --import tsx bench/partition-lp.ts [iterations]`: the decision time of the partitioning
 * LPs (seed 003 section IV; RatioDecision.solveSeconds: building and solving the system) for an
 * N-body-like sequence, m = 5 kernels, each reading the previous one's output plus the loop-carried
 * pair 4 -> 0, on 4 devices (a CPU and 3 GPUs, times per work-group in the sbac18 preset's
 * proportions, varied per iteration so the load moves as in the N-body). A synthetic runner
 * reports the seed's transfer volumes, so adaptive-comm's regression has coefficients and its LP
 * carries every transfer row. Prints the median and the 90th percentile per strategy.
 */
import {
  type AdaptiveOptions,
  adaptiveCommStrategy,
  adaptiveStrategy,
  transferVolume,
} from '../src/partition/lp/index.ts';
import type {
  IterationObservation,
  PartitionStrategy,
  SequenceShape,
  TransferObservation,
} from '../src/partition/strategy.ts';

const iterations = Number(process.argv[2] ?? 400);
const m = 5;
const n = 4;
const dependencies = [
  ...Array.from({ length: m - 1 }, (_, k) => ({ producer: k, consumer: k + 1 })),
  { producer: m - 1, consumer: 0 },
];
const shape: SequenceShape = {
  kernels: m,
  devices: n,
  kernelNames: ['count', 'scan', 'scatter', 'force', 'move'],
  deviceNames: ['cpu', 'gpu0', 'gpu1', 'gpu2'],
  dependencies,
  hostToDeviceSecondsPerByte: new Array(n).fill(1 / 6e9),
  deviceToHostSecondsPerByte: new Array(n).fill(1 / 6e9),
};
const ng = [4096, 64, 4096, 4096, 4096];
const bytesPerUnit = [8 * 2 ** 20, 2 ** 16, 32 * 2 ** 20, 32 * 2 ** 20, 32 * 2 ** 20];

/** f[k][d] at iteration i: the CPU about 3x slower, the force kernel heavy and drifting. */
function timesPerGroup(i: number): number[][] {
  return Array.from({ length: m }, (_, k) =>
    Array.from({ length: n }, (_, d) => {
      const base = k === 3 ? 4e-5 : 2e-6;
      const drift = k === 3 ? 1 + 0.3 * Math.sin((i + d) / 5) : 1;
      return base * (d === 0 ? 3 : 1) * drift;
    }),
  );
}

function observe(i: number, ratios: number[][]): IterationObservation {
  const f = timesPerGroup(i);
  const transfers: TransferObservation[] = [];
  for (const { producer, consumer } of dependencies) {
    for (let d = 0; d < n; d++) {
      for (const direction of ['h2d', 'd2h'] as const) {
        const S = transferVolume(direction, d, ratios[producer]!, ratios[consumer]!);
        transfers.push({
          producer,
          consumer,
          device: d,
          direction,
          bytes: 4096 + bytesPerUnit[consumer]! * S,
        });
      }
    }
  }
  return {
    iteration: i,
    ratios,
    workGroups: ng,
    seconds: ratios.map((row, k) => row.map((x, d) => f[k]![d]! * ng[k]! * x)),
    transfers,
  };
}

/** Runs the strategy `make` builds against the synthetic runner; the solve times after warm-up. */
function bench(make: (o: AdaptiveOptions) => PartitionStrategy): {
  name: string;
  median: number;
  p90: number;
  rows: number;
} {
  let rows = 0;
  const s = make({ onSolve: (info) => (rows = info.rows) });
  let ratios = s.initial(shape);
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const d = s.next(shape, observe(i, ratios));
    ratios = d.ratios;
    if (i >= 10) times.push(d.solveSeconds); // the first decisions warm the JIT up
  }
  times.sort((a, b) => a - b);
  return {
    name: s.name,
    median: times[Math.floor(times.length / 2)]!,
    p90: times[Math.floor(times.length * 0.9)]!,
    rows,
  };
}

console.log(`partition LP decision time, m = ${m} kernels, n = ${n} devices, ${iterations} iterations`);
for (const make of [adaptiveStrategy, adaptiveCommStrategy]) {
  const r = bench(make);
  console.log(
    `  ${r.name.padEnd(14)} LP rows (last) ${String(r.rows).padStart(3)}  median ${(r.median * 1e6).toFixed(1)} us  p90 ${(r.p90 * 1e6).toFixed(1)} us`,
  );
}
