/**
 * `locus demo`: seed 000's 2-D matrix product (960 x 3840 blocks, 7.08 GFlop tasks) simulated
 * on two V100s capped at 500 MiB, at a size where both matrices fit in the GPUs and at one
 * where not even one does, under each scheduler: throughput and bytes moved, in a few seconds.
 * It says that the figures are simulated (no GPU runs), what seed 000 is, and how to go on.
 */
import { resolvePlatform } from '../platform/presets.ts';
import { formatBytes } from '../platform/units.ts';
import { parsePolicySpec } from '../report/policy-spec.ts';

/** The policies the demo compares (seed 000's Figure 2). */
const DEMO_POLICIES = ['eager', 'dmdar', 'darts', 'darts+luf'];

import { simulate } from '../sim/simulate.ts';
import { generateWorkload } from '../workloads/index.ts';
import { table } from './format.ts';

/** Prints the demo table. */
export function demoCommand(): void {
  const platform = resolvePlatform('v100x2', {});
  const out = process.stdout;
  out.write(
    "Seed 000's 2-D matrix product, simulated on v100x2 (2 V100, 500 MiB each, one shared 12.38 GB/s host link)\n" +
      '(seed 000: the first paper Locus reproduces, on scheduling tasks that share data on GPUs whose\n' +
      ' memory holds only part of it; this is its Figure 2. Nothing runs on a GPU here: every figure\n' +
      " below is the simulator's, from the platform's rates, in virtual time.)\n",
  );
  const peak = platform.workers.reduce((s, w) => s + (w.codeletFlops.gemm ?? w.flops), 0);
  out.write(`peak of the two GPUs on this kernel: ${(peak / 1e12).toFixed(2)} TFlop/s\n\n`);
  const rows = [['N', 'working set', 'policy', 'simulated GFlop/s', 'to GPUs', 'evictions']];
  for (const n of [20, 80, 150]) {
    for (const label of DEMO_POLICIES) {
      const policy = parsePolicySpec(label);
      const wl = generateWorkload('matmul2d', { tiles: n });
      const { report } = simulate({
        graph: wl.graph,
        platform,
        scheduler: policy.scheduler,
        eviction: policy.eviction,
        workload: wl.summary,
      });
      rows.push([
        String(n),
        formatBytes(wl.workingSetBytes),
        label,
        report.gflops.toFixed(0),
        formatBytes(report.bytesToDevices),
        String(report.evictions),
      ]);
    }
  }
  out.write(`${table(rows)}\n\n`);
  out.write('At N = 20 both matrices fit in the GPUs: every block is loaded about once.\n');
  out.write(
    'At N = 80 and 150 they do not: EAGER with LRU reloads B for every row of A and the shared bus caps it;\n' +
      'DARTS loads the block that frees the most tasks, and with its LUF eviction stays at the peak.\n',
  );
  out.write(
    'Try: locus run --workload matmul2d --tiles 80 --sched eager --trace out.json\n' +
      '(the command is `npx locus` in a project that installed locus-runtime, `node bin/locus.mjs` in a checkout)\n',
  );
}
