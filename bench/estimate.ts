/**
 * `npm run bench`: the cost of one duration estimate, which the dm* schedulers ask for per
 * task per worker. Seed 000's matmul2d (100,489 tasks) on v100x2 with 2 GPUs and 4 CPUs; the
 * calibrated model holds a history entry for the task's footprint on each worker kind (built
 * with the graph, then one array read per lookup), against the platform model (flops / rate).
 */
import { PlatformModel } from '../src/core/model.ts';
import { HistoryModel } from '../src/perf/history.ts';
import { CalibratedModel, footprintOf } from '../src/perf/model.ts';
import { resolvePlatform } from '../src/platform/presets.ts';
import { generateWorkload } from '../src/workloads/index.ts';

const platform = resolvePlatform('v100x2', { cpus: 4 });
const { graph } = generateWorkload('matmul2d', { tiles: 317 });
const history = new HistoryModel();
for (const kind of ['cpu', 'gpu'] as const) {
  history.record({
    codelet: 'gemm',
    kind,
    footprint: footprintOf(graph, 0),
    size: graph.taskFlops.data[0]!,
    seconds: 5.6e-4,
  });
}
const t0 = performance.now();
const calibrated = new CalibratedModel(platform, graph, history);
const buildMs = performance.now() - t0;
const plain = new PlatformModel(platform, graph);
const T = graph.taskCount;
const W = platform.workers.length;

function measure(model: { taskDuration(g: typeof graph, t: number, w: number): number }): number {
  let sink = 0;
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const s = performance.now();
    for (let t = 0; t < T; t++) for (let w = 0; w < W; w++) sink += model.taskDuration(graph, t, w);
    rounds.push(((performance.now() - s) * 1e6) / (T * W));
  }
  if (sink === 42) console.log(''); // keep the loop alive
  rounds.sort((a, b) => a - b);
  return rounds[3]!;
}

console.log(
  `\nduration estimate lookup (${T.toLocaleString('en-US')} tasks x ${W} workers, median of 7 rounds):`,
);
console.log(
  `  calibrated model  ${measure(calibrated).toFixed(1)} ns per lookup (built for the graph in ${buildMs.toFixed(0)} ms)`,
);
console.log(`  platform model    ${measure(plain).toFixed(1)} ns per lookup`);
