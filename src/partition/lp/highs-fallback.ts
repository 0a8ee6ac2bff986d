/**
 * HiGHS (the `highs` package: the Edinburgh solver compiled to WebAssembly) as the partitioning
 * LP's fallback, for the programs yalps's dense simplex cannot finish. yalps pivots by Dantzig's
 * rule without an anti-cycling rule, and on a degenerate program it cycles (one N-body program
 * of the 700 that seed 003's benchmarks solve did); HiGHS's dual simplex does not. HiGHS loads
 * asynchronously and the strategies decide synchronously, so the fallback solves in a child
 * Node process (spawnSync): about 0.2 s, paid only by the programs yalps gives up on. `highs` is
 * an optional peer dependency (4 MiB of WebAssembly): without it such a program stops the run
 * with one line saying to install it.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { LocusError } from '../../core/types.ts';

/**
 * The child's program: imports the package's CommonJS entry (its default export is the loader),
 * reads an LP file on stdin, prints HiGHS's status and primal values.
 */
const CHILD = `
const [url] = process.argv.slice(1);
const { default: load } = await import(url);
let lp = '';
for await (const chunk of process.stdin) lp += chunk;
const highs = await load();
const r = highs.solve(lp);
const values = {};
for (const [name, c] of Object.entries(r.Columns ?? {})) values[name] = c.Primal;
process.stdout.write(JSON.stringify({ status: r.Status, values }));
`;

/** HiGHS's answer: its model status and, by variable name, the primal values. */
export interface HighsAnswer {
  /** 'Optimal', 'Infeasible', 'Unbounded', ... (HiGHS's model status). */
  readonly status: string;
  /** Primal value of each variable, by its name in the LP file. */
  readonly values: Record<string, number>;
}

/**
 * Solves the CPLEX-format program `lp` with HiGHS in a child process. Throws a LocusError when
 * the `highs` package is missing or the child fails. Cost: a Node start, HiGHS's load, the solve.
 */
export function solveWithHighs(lp: string): HighsAnswer {
  let entry: string;
  try {
    entry = pathToFileURL(createRequire(import.meta.url).resolve('highs')).href;
  } catch {
    throw new LocusError(
      'LOCUS_STATE_INVALID',
      'partitioning LP: yalps could not solve this program and its fallback solver, the optional highs package, is not installed: run npm install highs',
    );
  }
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, entry], {
    input: lp,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (out.status !== 0) {
    const why = (out.stderr || out.error?.message || '').trim().split('\n').pop();
    throw new LocusError(
      'LOCUS_STATE_INVALID',
      `partitioning LP: the fallback solver (HiGHS) failed: ${why}`,
    );
  }
  return JSON.parse(out.stdout) as HighsAnswer;
}
