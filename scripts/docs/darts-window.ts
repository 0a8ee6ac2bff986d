/**
 * docs/results.md, "Seed 000 section 4.3: DARTS with tasks submitted while it runs": the
 * seed's Cholesky (N = 40, two V100 capped at 2000 MB) under darts+luf and dmdar, with the
 * whole graph submitted at start and with an application thread submitting through a window
 * (`--submit-window`), without and with bottom-level priorities; makespan, GFlop/s and bytes
 * (deterministic), and the wall time of each run (machine-dependent: `--bench`).
 */
import type { GeneratedSection } from './sections.ts';

const RUN = 'locus run --workload cholesky --tiles 40 --platform v100x2 --gpu-mem 2000MB';

const ROWS = [
  ['darts+luf', '', 'none'],
  ['darts+luf', '--submit-window 2000', 'none'],
  ['darts+luf', '--submit-window 200', 'none'],
  ['dmdar', '', 'none'],
  ['dmdar', '--submit-window 2000', 'none'],
  ['dmdar', '--submit-window 200', 'none'],
  ['darts+luf', '', 'bottom-level'],
  ['darts+luf', '--submit-window 2000', 'bottom-level'],
  ['darts+luf', '--submit-window 200', 'bottom-level'],
  ['dmdar', '', 'bottom-level'],
  ['dmdar', '--submit-window 2000', 'bottom-level'],
  ['dmdar', '--submit-window 200', 'bottom-level'],
]
  .map(
    ([s, w, p]) =>
      `row: S=${s} W="${w === '' ? '' : ` ${w}`}" P=${p} L="${w === '' ? 'whole graph' : w.replace('--submit-window ', 'window ')}"`,
  )
  .join('\n');

/**
 * `locus run` of scheduler s, window option w ('' or ' --submit-window n', with its space)
 * and priorities p, written the same in the tables (from $S, $W, $P) and in the values, so
 * that each distinct run is made once.
 */
const cmd = (s: string, w: string, p: string) => `${RUN} --priorities ${p} --sched ${s}${w} --json`;

/** A generated value: `expr` over the output `r` (and `r2`, ...) of the commands. */
const val = (commands: string[], expr: string) =>
  `<!-- val: ${commands.join(' ;; ')} :: ${expr} --><!-- /val -->`;

const whole = cmd('darts+luf', '', 'none');
const win = cmd('darts+luf', ' --submit-window 2000', 'none');
const wholeP = cmd('darts+luf', '', 'bottom-level');
const winP = cmd('darts+luf', ' --submit-window 2000', 'bottom-level');
const win3000 = cmd('darts+luf', ' --submit-window 3000', 'none');
const dm = cmd('dmdar', '', 'none');
const dmWin = cmd('dmdar', ' --submit-window 2000', 'none');

/** The section. */
export const DARTS_WINDOW_SECTION: GeneratedSection = {
  page: 'docs/results.md',
  heading: '## Seed 000 section 4.3: DARTS with tasks submitted while it runs',
  before: '## Scale: 4 GPUs, N = 300 (90,000 tasks)',
  body: `
Seed 000 section 4.3 adapts DARTS to tasks submitted while the run goes on (Cholesky): its
dataNotInMem_k follows the data of newly submitted tasks, and the maximum priority of a
candidate datum's tasks breaks ties right after the number of tasks it frees. Locus's
simulator models the application thread: with \`--submit-window n\` at most n tasks are
submitted and not ended (StarPU's \`STARPU_LIMIT_MAX_SUBMITTED_TASKS\`), topped up when that
falls to 90% of n; a task whose predecessors have ended waits until it is submitted. DARTS
uses section 4.3's tie order in such runs and section 3.2's (unprocessed tasks, then priority)
with the whole graph submitted at start ([darts.md](policies/darts.md)); without priorities
the two orders are the same.

\`${RUN} --priorities P --sched S [--submit-window n] --json\`
(11,480 tasks; \`--gpu-mem 2000MB\` is 2 x 10^9 bytes per GPU):

<!-- table
run r: ${cmd('$S', '$W', '$P')}
${ROWS}
| scheduler | '$S'
| priorities | '$P'
| submission | '$L'
| makespan (s) | f(r.makespanS, 3)
| GFlop/s | f(r.gflops, 0)
| to GPUs (GiB) | gib(r.bytesToDevices)
| from GPUs (GiB) | gib(r.bytesFromDevices)
| evictions | r.evictions
-->

The wall time of each of these runs (the simulation's own cost, schedule computation included):

<!-- table(bench)
run r: ${cmd('$S', '$W', '$P')}
${ROWS}
| scheduler | '$S'
| priorities | '$P'
| submission | '$L'
| wall time (s) | f(r.wallS, 2)
-->

- Without priorities, a window of 2000 changes DARTS+LUF's run by
  ${val([whole, win], 'change(r.gflops, r2.gflops)')} in GFlop/s and
  ${val([whole, win], 'change(r.bytesToDevices, r2.bytesToDevices)')} in bytes to the GPUs:
  a task the window holds back cannot be planned before the application thread submits it.
  dmdar's run is ${val([dm, dmWin], "r.makespanS === r2.makespanS && r.bytesToDevices === r2.bytesToDevices ? 'the same' : 'different'")} with that window. With a window of 3000
  DARTS+LUF's run is
  ${val([whole, win3000], "r.makespanS === r2.makespanS && r.bytesToDevices === r2.bytesToDevices && r.evictions === r2.evictions ? 'the same as' : 'different from'")}
  the whole graph's: submitting in steps, through the structures that grow with each
  submission, changes no decision by itself.
- With bottom-level priorities (section 4.3's setting), DARTS+LUF goes from
  ${val([wholeP], 'f(r.gflops, 0)')} GFlop/s (whole graph) to ${val([winP], 'f(r.gflops, 0)')} GFlop/s
  with the window of 2000, and from ${val([wholeP], 'gib(r.bytesToDevices)')} to
  ${val([winP], 'gib(r.bytesToDevices)')} GiB to the GPUs.
`,
};
