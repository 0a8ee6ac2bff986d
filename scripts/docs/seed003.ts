/**
 * docs/results.md, "Seed 003: adaptive partitioning on sbac18 (simulated)": the four
 * benchmarks under the four strategies (`locus partition ... --json`, 20 iterations, the
 * benchmarks' default sizes), the N-body's per-device balance, and the comparison with the
 * seed's Figures 2 and 3. Every number is generated; the seed's own figures are quoted as such.
 */
import type { GeneratedSection } from './sections.ts';

const RUN = 'locus partition --platform sbac18 --iterations 20 --json';
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

How this compares with the seed (its Figure 2 and section V):

- **adaptive-comm at least as fast as adaptive**: on Jacobi, FDTD-2D and 2SpMV the two are
  equal or nearly (the table); on the N-body adaptive-comm is
  ${val([cmd('nbody', 'adaptive'), cmd('nbody', 'adaptive-comm')], 'f(r2.speedup, 2)')} against
  ${val([cmd('nbody', 'adaptive')], 'f(r.speedup, 2)')} (the seed: 1.68 to 1.86).
- **adaptive slowed by transfers on Jacobi and FDTD-2D: not reproduced.** In the preset every
  kernel of these two benchmarks is memory-bound, so a device's rate for each kernel is its
  memory bandwidth over the kernel's bytes per point, and the ratio of any two devices' rates
  is the same for every kernel. The per-kernel optima that adaptive picks are then the same
  ratios for every kernel, aligned, and a kernel reads on each device what the previous one
  wrote there but for one-row halos. adaptive-comm's regression sees only such aligned ratios
  (S_d = 0), so it never gets a slope and solves adaptive's LP. In the seed the measured
  times of the copy and stencil kernels must have put their optimal ratios apart (the seed
  does not give them); without a source for kernel-dependent device ratios the preset keeps
  the bandwidth-derived rates.
- **within 5% of oracle**: adaptive-comm starts from uniform ratios and moves the data to its
  new split in its second iteration; oracle starts at the converged ratios. Over 20 short
  iterations that start-up is the gap on Jacobi and FDTD-2D (within 5%). On 2SpMV the gap is
  larger and adaptive is below uniform: see the next point. On the N-body the oracle replays the
  ratios of the last iteration while the load keeps moving, which is why the seed shows no
  oracle for SOTL.
- **2SpMV**: the dense vector is read whole by every row range (the columns are a gather), so
  each device receives all of it before every product whatever the ratios; the bytes per
  iteration above are mostly that, the same for both adaptive strategies, which is the seed's
  observation that the two are equal. The rows' work comes in bands, so a device's mean time
  per row (the seed's f_d^k) changes with the rows it gets: the LP extrapolates the mean of
  the rows a device had to the rows it is given, a heavy band lands on the device that had
  light rows, and the ratios keep moving instead of settling. The uniform split happens to be
  close to balanced here, so both adaptive strategies end below it and below the oracle (the
  seed reports them above uniform; its matrices are not described). Neither the seed nor
  libsplit damps the estimate, and Locus does not either.
- **N-body balance (Figure 3)**: in the last iteration the slowest device takes
  ${val([cmd('nbody', 'adaptive-comm')], spread('r'))} times the fastest under adaptive-comm,
  and ${val([cmd('nbody', 'uniform')], spread('r'))} times under uniform. The per-device times do
  not stay close together as in the seed's Figure 3: the load per bin moves every iteration
  and the LP reacts to the last iteration's mean time per bin on each device, so the times
  oscillate around balance (\`fig3.png\`). The LP solve per iteration stays under a
  millisecond for the N-body's seven kernels on four devices (the table's last column).
`,
};
