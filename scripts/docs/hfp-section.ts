/**
 * docs/results.md, "hfp: a policy beyond DARTS (issue 16)": the five comparisons of issue 16,
 * each a named `locus sweep` (src/report/figures.ts, hfp-*): GFlop/s, makespan and bytes to the
 * GPUs per policy and size, deterministic (scheduling cost not charged).
 */
import type { GeneratedSection } from './sections.ts';

/** The comparisons: sweep name, what it shows, the sizes' meaning, the policies. */
const SWEEPS: readonly [name: string, label: string, size: string, policies: readonly string[]][] = [
  [
    'hfp-fig2',
    "seed 000's Fig. 2 (matmul2d, 2 x 500 MiB)",
    'N',
    ['eager', 'dmdar', 'darts', 'darts+luf', 'hfp'],
  ],
  [
    'hfp-fig3',
    "seed 000's Fig. 3 (Cholesky, 1920 tiles, 2 x 2000 MiB, bottom-level priorities)",
    'N',
    ['eager', 'dmda', 'dmdar', 'dmdas', 'darts', 'darts+luf', 'hfp'],
  ],
  ['hfp-random4', '4000 random tasks of 4 inputs (2 x 500 MiB)', 'data', SPREAD()],
  ['hfp-random5', '4000 random tasks of 5 inputs', 'data', SPREAD()],
  ['hfp-random6', '4000 random tasks of 6 inputs', 'data', SPREAD()],
  ['hfp-gemm', 'tiled 3-D GEMM (2 x 500 MiB)', 'N', SPREAD()],
  ['hfp-shared', '4000 random tasks of 2 inputs + 1 datum read by all, on 4 x 500 MiB', 'data', SPREAD()],
];

function SPREAD(): string[] {
  return ['eager', 'dmda', 'dmdar', 'darts', 'darts+luf', 'hfp'];
}

function block(name: string, label: string, size: string, policies: readonly string[]): string {
  const cols = policies.flatMap((p) => [
    `| ${p} GFlop/s | f(x.by['${p}'].gflops, 0)`,
    `| ${p} GiB | gib(x.by['${p}'].bytesToDevices, 1)`,
  ]);
  return [
    `<!-- define ${name}: locus sweep --figure ${name} --json --no-plots --out $TMP/${name} -->`,
    '',
    `\`locus sweep --figure ${name}\`: ${label}; GFlop/s and GiB to the GPUs.`,
    '',
    '<!-- table',
    `run: @${name}`,
    "expand: pivot(r, 'tiles', 'policy')",
    `| ${size} | x.key`,
    '| working set (MiB) | mib(x.first.workingSetBytes)',
    ...cols,
    '-->',
    '',
  ].join('\n');
}

/** The section (its tables are filled by `npm run docs:results`). */
export const HFP_SECTION: GeneratedSection = {
  page: 'docs/results.md',
  heading: '## hfp: a policy beyond DARTS (issue 16)',
  before: '## Scale: 4 GPUs, N = 300 (90,000 tasks)',
  body: [
    'The comparisons issue 16 sets for [hfp](policies/hfp.md), each a named sweep of `locus sweep`',
    '(src/report/figures.ts), platform v100x2, seed 1, the scheduling cost not charged.',
    '',
    ...SWEEPS.map(([n, l, s, p]) => block(n, l, s, p)),
  ].join('\n'),
};
