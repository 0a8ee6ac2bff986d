/**
 * `node --import tsx bench/sirocco-cholesky.ts --tiles N [locus run flags...]`: Locus's run of
 * tiled Cholesky on StarPU's sirocco (test/fixtures/starpu-sirocco/sirocco-chol.json, issue 24's
 * platform: 2 K40m capped at 500 MiB, every figure from StarPU's sampling; tiles of 960,
 * StarPU's cholesky_implicit order, bottom-level priorities unless --priorities says otherwise) beside StarPU master's run at the same N
 * (test/fixtures/starpu-sirocco/darts-cholesky.json, measured by scripts/record-starpu-sirocco.sh),
 * with the trace statistics of bench/sirocco/trace-stats.ts for both, as one JSON object:
 * { tiles, flags, locus: { gflops, makespanS, bytesToDevices, ..., trace }, starpu: {...} }.
 * Extra flags go to `locus run` (e.g. --sched hfp, --no-clean-first). Deterministic.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { siroccoCholeskyArgs } from '../test/helpers/sirocco-run.ts';
import { locusTraceStats } from './sirocco/trace-stats.ts';

const args = process.argv.slice(2);
const i = args.indexOf('--tiles');
const tiles = i >= 0 ? Number(args[i + 1]) : Number.NaN;
if (!Number.isInteger(tiles) || tiles < 1) {
  process.stderr.write('usage: sirocco-cholesky.ts --tiles N [locus run flags...]\n');
  process.exit(2);
}
const flags = args.filter((_, j) => j !== i && j !== i + 1);
if (!flags.includes('--sched') && !flags.includes('-s')) flags.push('--sched', 'darts+luf');
const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'locus-sirocco-'));
try {
  const trace = join(tmp, 'trace.json');
  const out = execFileSync(
    process.execPath,
    ['bin/locus.mjs', ...siroccoCholeskyArgs(tiles, flags), '--trace', trace, '--json'],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const r = JSON.parse(out) as Record<string, unknown>;
  const fixture = JSON.parse(
    readFileSync(join(root, 'test/fixtures/starpu-sirocco/darts-cholesky.json'), 'utf8'),
  ) as { runs: Record<string, unknown> };
  const locus = {
    gflops: r.gflops,
    makespanS: r.makespanS,
    bytesToDevices: r.bytesToDevices,
    bytesDeviceToDevice: r.bytesDeviceToDevice,
    writebackBytes: r.writebackBytes,
    evictions: r.evictions,
    trace: locusTraceStats(trace),
  };
  console.log(JSON.stringify({ tiles, flags, locus, starpu: fixture.runs[String(tiles)] ?? null }));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
