/**
 * docs/results.md, "Memory pressure: clean-first eviction and wontUse hints" (issue 16): seed
 * 000's Fig. 3 setting (Cholesky, tiles of 1920 single, two V100 capped at 2000 MiB, bottom-level
 * priorities) at N = 30 and 40, every Fig. 3 policy, before (clean-first off, hints off), with
 * each mechanism alone, and with both (the defaults): GFlop/s, bytes written back home and bytes
 * sent to the GPUs (deterministic simulations); then the clean-buffer knobs (StarPU's
 * STARPU_MINIMUM/TARGET_CLEAN_BUFFERS, off by default in Locus) off and at StarPU's defaults,
 * 5 and 10, for eager, dmdar and darts+luf, the other settings at their defaults.
 */
import type { GeneratedSection } from './sections.ts';

const RUN =
  'locus run --workload cholesky --platform v100x2 --gpus 2 --gpu-mem 2000MiB --priorities bottom-level';

/** Fig. 3's policies (src/report/figures.ts). */
const POLICIES = ['eager', 'dmda', 'dmdar', 'dmdas', 'darts', 'darts+luf'];

/** The four settings: flags, clean-first, hints. */
const SETTINGS: [flags: string, clean: string, hints: string][] = [
  [' --no-clean-first --no-hints', 'off', 'off'],
  [' --no-hints', 'on', 'off'],
  [' --no-clean-first', 'off', 'on'],
  ['', 'on', 'on'],
];

const ROWS = [30, 40]
  .flatMap((n) =>
    POLICIES.flatMap((s) => SETTINGS.map(([f, c, h]) => `row: N=${n} S=${s} F="${f}" C=${c} H=${h}`)),
  )
  .join('\n');

/** The clean-buffer rows: policies, and the knobs off or at StarPU's defaults (5 / 10). */
const CLEAN_POLICIES = ['eager', 'dmdar', 'darts+luf'];
const CLEAN_SETTINGS: [flags: string, label: string][] = [
  ['', 'off'],
  [' --min-clean 5 --target-clean 10', '5 / 10'],
];
const CLEAN_ROWS = [30, 40]
  .flatMap((n) =>
    CLEAN_POLICIES.flatMap((s) => CLEAN_SETTINGS.map(([f, k]) => `row: N=${n} S=${s} F="${f}" K="${k}"`)),
  )
  .join('\n');

/** The section. */
export const MEMORY_PRESSURE_SECTION: GeneratedSection = {
  page: 'docs/results.md',
  heading: '## Memory pressure: clean-first eviction and wontUse hints',
  before: '## Seed 000 section 4.3: DARTS with tasks submitted while it runs',
  body: `
Issue 16's two mechanisms on seed 000's Fig. 3 setting, where the tiles no longer fit in the
GPUs: clean-first eviction (every eviction policy takes clean replicas before modified ones,
whose eviction costs a write-back on the shared host bus; \`--no-clean-first\` turns it off)
and the workload's wontUse hints (each tile of column k is hinted once its last task is
submitted: written back early and evicted first; \`--no-hints\` turns them off). "Written
back" counts every copy home of modified data (before an eviction, early after a hint, and
the final flush).

\`${RUN} --tiles N --sched S [--no-clean-first] [--no-hints] --json\`:

<!-- table
run r: ${RUN} --tiles $N --sched $S$F --json
${ROWS}
| N | '$N'
| scheduler | '$S'
| clean-first | '$C'
| hints | '$H'
| GFlop/s | f(r.gflops, 0)
| written back (GiB) | gib(r.writebackBytes, 1)
| to GPUs (GiB) | gib(r.bytesToDevices, 1)
| evictions | r.evictions
-->

Clean buffers (\`--min-clean\`, \`--target-clean\`; StarPU's \`STARPU_MINIMUM_CLEAN_BUFFERS\` and
\`STARPU_TARGET_CLEAN_BUFFERS\`, whose defaults there are 5 and 10; off by default in Locus, so
the rows above have them off): while fewer than the minimum percentage of a GPU's replicas are
clean, modified ones are written back early, in the eviction policy's order, while the route
home carries no other transfer, until the target percentage is clean. "Write-backs" counts
every copy home of modified data, early ones included.

\`${RUN} --tiles N --sched S [--min-clean 5 --target-clean 10] --json\`:

<!-- table
run r: ${RUN} --tiles $N --sched $S$F --json
${CLEAN_ROWS}
| N | '$N'
| scheduler | '$S'
| min / target clean (%) | '$K'
| GFlop/s | f(r.gflops, 0)
| written back (GiB) | gib(r.writebackBytes, 1)
| write-backs | r.writebacks
| to GPUs (GiB) | gib(r.bytesToDevices, 1)
| evictions | r.evictions
-->
`,
};
