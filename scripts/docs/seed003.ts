/**
 * docs/results.md, "Seed 003: adaptive partitioning on sbac18 (simulated)": the four
 * benchmarks under the four strategies (`locus partition ... --json`, 20 iterations, the
 * benchmarks' default sizes), the N-body's per-device balance, and the comparison with the
 * seed's Figures 2 and 3. Every number is generated; the seed's own figures are quoted as such.
 */
import type { GeneratedSection } from './sections.ts';

const RUN = 'locus partition --platform sbac18 --iterations 20 --json';
const BIG = '--size 32000';
const cmd = (bench: string, strategy: string) => `${RUN} --bench ${bench} --strategy ${strategy}`;
const val = (commands: string[], expr: string) =>
  `<!-- val: ${commands.join(' ;; ')} :: ${expr} --><!-- /val -->`;
/** max / min of the devices' times in the last iteration of run r. */
const spread = (r: string) =>
  `f(Math.max(...${r}.perIteration.at(-1).deviceSeconds) / Math.min(...${r}.perIteration.at(-1).deviceSeconds), 2)`;

/** The section. */
export const SEED003_SECTION: GeneratedSection = {
  page: 'docs/results.md',
  heading: '## Seed 003: adaptive partitioning on sbac18 (simulated)',
  before: '## Scale: 4 GPUs, N = 300 (90,000 tasks)',
  body: `
Seed 003 splits every kernel of an iterated sequence over 3 GPUs and the CPU and, after each
iteration, solves a linear program for the next ratios ([partition.md](partition.md),
[the LP](policies/partitioning.md)). Here each benchmark runs 20 iterations on the simulated
\`sbac18\` preset at its default size, checked bit for bit against the unsplit run; the
speed-up is against the best single device. \`locus sweep --figure seed003\` draws the same
runs as the seed's Figure 2 (\`fig2.png\`) and Figure 3 (\`fig3.png\`).

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
device's rate times its items plus a fixed launch cost (3 us on a GPU, 20 us on the CPU device:
[partition.md](partition.md)), so the time per work-group the LP reads (the seed's f_d^k)
depends on the sub-range's size, as the seed says.

- **adaptive slowed by transfers: reproduced on FDTD-2D, not on Jacobi.** FDTD-2D's \`hz\`
  kernel moves 32 bytes per point against 24 for \`ey\` and \`ex\`, so the fixed launch cost
  weighs differently on the three kernels and their per-kernel optima differ: adaptive gives
  \`hz\` its own ratios, and every iteration moves the rows between the two splits
  (${val([cmd('fdtd2d', 'adaptive')], 'f(r.bytesPerIteration / 1e6, 2)')} MB per iteration,
  against ${val([cmd('fdtd2d', 'adaptive-comm')], 'f(r.bytesPerIteration / 1e6, 2)')} MB for
  adaptive-comm, which keeps the three kernels aligned); its speed-up falls below uniform's.
  Jacobi's stencil and copy both move 16 bytes per point, so on every device they take the same
  time, their optima are the same ratios, aligned, and adaptive equals adaptive-comm. In the
  seed the measured stencil and copy must have had different device ratios (it does not give
  them); no public figure gives the E5-2650's OpenCL efficiency on a stencil against a copy,
  so the preset keeps the bandwidth-derived rates.
- **adaptive-comm at least as fast as adaptive**: equal on Jacobi and 2SpMV, above on
  FDTD-2D; on the N-body ${val([cmd('nbody', 'adaptive-comm')], 'f(r.speedup, 2)')} against
  ${val([cmd('nbody', 'adaptive')], 'f(r.speedup, 2)')} (the seed: 1.68 to 1.86).
- **within 5% of oracle**: on Jacobi. On FDTD-2D adaptive-comm starts from uniform ratios and
  shrinks the CPU device's share a little at every iteration: with a fixed launch cost the
  CPU's time per row grows as its share shrinks, and the LP, which takes that time per row as
  a constant, cuts its share again at the next iteration. It settles only after most of the 20
  iterations, each step moving rows, while oracle runs at the settled ratios from the start.
- **small problems**: at the default sizes (chosen for real runs in JavaScript) an N-body
  iteration lasts a fraction of a millisecond, so the seven launches on each device and the
  transfers outweigh what splitting saves, and every strategy is below the best single device
  on the N-body and about at it on 2SpMV (the seed's problem sizes are not given). With 32000
  particles (\`--size 32000\`) the N-body splits profitably: uniform
  ${val([`${cmd('nbody', 'uniform')} ${BIG}`], 'f(r.speedup, 2)')}, adaptive
  ${val([`${cmd('nbody', 'adaptive')} ${BIG}`], 'f(r.speedup, 2)')}, adaptive-comm
  ${val([`${cmd('nbody', 'adaptive-comm')} ${BIG}`], 'f(r.speedup, 2)')}; adaptive-comm is
  below adaptive there, unlike the seed.
- **2SpMV**: the columns of the generated matrices are drawn uniformly over the whole vector,
  so the smallest and largest column of any block of rows span nearly all of it: libsplit's
  [min, max] over-approximation of a gather through the column indices would instantiate the
  whole vector, as the region here declares, and each device receives all of it before every
  product whatever the ratios; the bytes per iteration are mostly that, the same for both
  adaptive strategies, which is the seed's observation that the two are equal. The rows' work
  comes in bands, so a device's mean time per row changes with the rows it gets: the LP
  extrapolates the mean of the rows a device had to the rows it is given, a heavy band lands on
  the device that had light rows, and the ratios keep moving instead of settling; both adaptive
  strategies end below uniform (the seed reports them above uniform; its matrices are not
  described). Neither the seed nor libsplit damps the estimate, and Locus does not either.
- **N-body balance (Figure 3)**: in the last iteration the slowest device takes
  ${val([cmd('nbody', 'adaptive-comm')], spread('r'))} times the fastest under adaptive-comm,
  and ${val([cmd('nbody', 'uniform')], spread('r'))} times under uniform
  (${val([`${cmd('nbody', 'adaptive-comm')} ${BIG}`], spread('r'))} and
  ${val([`${cmd('nbody', 'uniform')} ${BIG}`], spread('r'))} with 32000 particles). The load
  per bin moves every iteration and the LP reacts to the last iteration's mean time per bin on
  each device, so the times oscillate around balance (\`fig3.png\`). The table's last column
  is the LP's solve time per iteration (the fastest of three identical solves); the issue asks
  for under a millisecond on the N-body's seven kernels and four devices.
`,
};
