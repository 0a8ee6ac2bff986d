/**
 * docs/results.md, "Seed 003: adaptive partitioning on sbac18 (simulated)": the four
 * benchmarks under the four strategies (`locus partition ... --json`, 30 iterations, the
 * benchmarks' default sizes), the N-body's per-device balance, and the comparison with the
 * seed's Figures 2 and 3. Every number is generated; the seed's own figures are quoted as such.
 */
import type { GeneratedSection } from './sections.ts';

const RUN = 'locus partition --platform sbac18 --iterations 30 --json';
const cmd = (bench: string, strategy: string) => `${RUN} --bench ${bench} --strategy ${strategy}`;
const val = (commands: string[], expr: string) =>
  `<!-- val: ${commands.join(' ;; ')} :: ${expr} --><!-- /val -->`;
/** One value of one run. */
const of = (bench: string, strategy: string, expr: string) => val([cmd(bench, strategy)], expr);
/** max / min of the devices' times in the last iteration of run r. */
const spread = (r: string) =>
  `f(Math.max(...${r}.perIteration.at(-1).deviceSeconds) / Math.min(...${r}.perIteration.at(-1).deviceSeconds), 2)`;
/** How far adaptive-comm's speed-up is below oracle's, in percent. */
const gap = (bench: string) =>
  val([cmd(bench, 'adaptive-comm'), cmd(bench, 'oracle')], 'pct(1 - r.speedup / r2.speedup, 1)');
/** The MB moved in iteration i of a run. */
const mbAt = (bench: string, strategy: string, i: number) =>
  of(bench, strategy, `f(r.perIteration[${i}].bytes / 1e6, 1)`);

/** The section. */
export const SEED003_SECTION: GeneratedSection = {
  page: 'docs/results.md',
  heading: '## Seed 003: adaptive partitioning on sbac18 (simulated)',
  before: '## Scale: 4 GPUs, N = 300 (90,000 tasks)',
  body: `
Seed 003 splits every kernel of an iterated sequence over 3 GPUs and the CPU and, after each
iteration, solves a linear program for the next ratios ([partition.md](partition.md),
[the LP](policies/partitioning.md)). Here each benchmark runs 30 iterations on the simulated
\`sbac18\` preset at its default size (Jacobi 2800 x 2800 and FDTD-2D 2000 x 2000, PolyBench's
EXTRALARGE sizes; 2SpMV 36,000 rows of about 118 non-zeros; the N-body 96,000 particles: the
seed gives none, [partition.md](partition.md) says why these), checked bit for bit against
the unsplit run; the speed-up is against the best single device. \`locus sweep --figure
seed003\` draws the same runs as the seed's Figure 2 (\`fig2.png\`) and Figure 3
(\`fig3.png\`).

\`${RUN} --bench B --strategy S\`:

<!-- table
run u: ${cmd('$B', 'uniform')}
run a: ${cmd('$B', 'adaptive')}
run c: ${cmd('$B', 'adaptive-comm')}
run o: ${cmd('$B', 'oracle')}
each B: jacobi fdtd2d 2spmv nbody
| benchmark | '$B'
| uniform | f(u.speedup, 2)
| adaptive | f(a.speedup, 2)
| adaptive-comm | f(c.speedup, 2)
| oracle | f(o.speedup, 2)
| adaptive-comm ms/iteration | f(c.secondsPerIteration * 1e3, 3)
| adaptive MB/iteration | f(a.bytesPerIteration / 1e6, 2)
| adaptive-comm MB/iteration | f(c.bytesPerIteration / 1e6, 2)
| LP solve (ms/iteration) | f(c.solveSecondsPerIteration * 1e3, 3)
-->

How this compares with the seed (its Figure 2 and section V). Each sub-kernel costs its
device's rate times its items plus a fixed launch cost ([partition.md](partition.md)), and
every copy between devices goes through the host with a fixed latency each way.

- **adaptive-comm within 5% of oracle on Jacobi, FDTD-2D and 2SpMV**: ${gap('jacobi')},
  ${gap('fdtd2d')} and ${gap('2spmv')} below it. The gap is the second iteration: the first
  one runs uniform, and the LP's first ratios move the rows between the uniform split and its
  own (${mbAt('fdtd2d', 'adaptive-comm', 1)} MB on FDTD-2D in that iteration, against
  ${mbAt('fdtd2d', 'adaptive-comm', 5)} MB once settled), a cost oracle, which starts at the
  converged ratios, never pays. It shrinks as the run grows; the seed does not give its
  iteration counts.
- **adaptive slowed by transfers: reproduced on FDTD-2D, not on Jacobi.** FDTD-2D's \`hz\`
  kernel moves 32 bytes per point against 24 for \`ey\` and \`ex\`, so the fixed launch cost
  weighs differently on the three kernels and their per-kernel optima differ: adaptive gives
  \`hz\` its own ratios, and every iteration moves the rows between the two splits
  (${of('fdtd2d', 'adaptive', 'f(r.perIteration.at(-1).bytes / 1e6, 2)')} MB in the last
  iteration, against ${of('fdtd2d', 'adaptive-comm', 'f(r.perIteration.at(-1).bytes / 1e6, 2)')}
  MB for adaptive-comm, which keeps the three kernels aligned). Jacobi's stencil and copy both
  read 8 bytes and write 8 bytes per point from DRAM on both kinds of device: the stencil's
  neighbours come from caches (three rows of 2800 doubles, 66 KB, fit in the Xeon's 256 KB L2
  and in the M2075's 768 KB L2), a store that misses in the Xeon's caches reads its line first
  (write-allocate) in both kernels alike, and both pay one launch per device. So both take the
  same time per row on each device, their optima are the same ratios, and adaptive equals
  adaptive-comm (the two rows above are identical). No public figure gives the E5-2650's
  OpenCL efficiency on a stencil against a copy, or the M2075's; the seed measured a
  difference (it does not give it) that this preset cannot derive, and it keeps the
  bandwidth-derived rates rather than invent one.
- **adaptive and adaptive-comm about equal on 2SpMV**, as in the seed: each product reads its
  input vector through the column indices, drawn over the whole vector, so the region is the
  whole vector and every device receives all of it before every product whatever the ratios
  (the bytes per iteration are mostly that); the ratios only move the rows of the matrices.
  Both are above uniform: the CPU device is slower than a GPU on the sparse products and gets
  fewer rows.
- **N-body: adaptive-comm above adaptive**: ${of('nbody', 'adaptive-comm', 'f(r.speedup, 2)')}
  against ${of('nbody', 'adaptive', 'f(r.speedup, 2)')} (the seed: 1.86 against 1.68). Every
  kernel's work-group is a bin, as in SOTL, so the force kernel's ratios, applied to the
  sort and move kernels, keep each device's particles where the force kernel left them;
  adaptive balances the cheap kernels on their own (their work per bin is the particle count,
  the force kernel's grows as its square) and moves the particles between the two splits
  (${of('nbody', 'adaptive', 'f(r.bytesPerIteration / 1e6, 2)')} MB per iteration against
  ${of('nbody', 'adaptive-comm', 'f(r.bytesPerIteration / 1e6, 2)')} MB). The seed's
  magnitudes need a problem whose force kernel takes a few milliseconds on one GPU: an
  iteration split four ways also pays, for each of the seven kernels, the launches and the
  host-routed halo copies, each with its latency each way, whatever the size; with 32,000
  particles adaptive-comm reaches ${val([`${cmd('nbody', 'adaptive-comm')} --size 32000`], 'f(r.speedup, 2)')}.
- **N-body oracle**: ${of('nbody', 'oracle', 'f(r.speedup, 2)')}, replaying adaptive-comm's
  last ratios from the first iteration; the particles drift, so ratios that fit the last
  iteration do not fit the first ones. The seed has no oracle for SOTL for that reason (its
  load changes with the iterations and the solver never converges).
- **N-body balance (Figure 3)**: in the last iteration the slowest device takes
  ${of('nbody', 'adaptive-comm', spread('r'))} times the fastest under adaptive-comm, and
  ${of('nbody', 'uniform', spread('r'))} times under uniform. The load per bin moves every
  iteration and the LP reacts to the last iteration's mean time per bin on each device, so
  the times move around balance (\`fig3.png\`).
- **LP solve time**: the table's last row, the fastest of three identical builds and solves
  per iteration; the N-body's LP (seven kernels, four devices, the dependent pairs above
  \`NEGLIGIBLE_PAIR\`: [the LP](policies/partitioning.md)) is the largest, ${of('nbody', 'adaptive-comm', 'f(r.solveSecondsPerIteration * 1e3, 3)')} ms per
  iteration on this machine, shared with other work while it ran.
`,
};
