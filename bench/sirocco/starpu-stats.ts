/**
 * `node --import tsx bench/sirocco/starpu-stats.ts <fxt-dir> <stdout-file>`: one fixture entry
 * of StarPU's cholesky_implicit run (scripts/record-starpu-sirocco.sh): the GFlop/s and time
 * the example printed, StarPU's bus statistics (STARPU_BUS_STATS, bytes per route) and the
 * trace statistics of trace-stats.ts, as JSON on stdout. Bad input: one line, exit 2.
 */
import { existsSync, readFileSync } from 'node:fs';
import { starpuTraceStats } from './trace-stats.ts';

const [dir, out] = process.argv.slice(2);
if (!dir || !out || !existsSync(`${dir}/tasks.rec`) || !existsSync(`${dir}/paje.trace`) || !existsSync(out)) {
  process.stderr.write('usage: starpu-stats.ts <starpu_fxt_tool output dir> <example stdout>\n');
  process.exit(2);
}
const text = readFileSync(out, 'utf8');
const result = /^(\d+)\t(\d+)\t([\d.]+)$/m.exec(text);
if (!result) {
  process.stderr.write(`starpu-stats: no "size ms GFlops" line in ${out}\n`);
  process.exit(2);
}
// "NUMA 0 -> CUDA 0	37.4874 GB	...	(transfers : 10919 - avg 3.5156 MB)": GB are GiB there.
const routes: { from: string; to: string; transfers: number; bytes: number }[] = [];
for (const m of text.matchAll(
  /^\s*(\S+ \d+) -> (\S+ \d+)\t([\d.]+) GB\t.*\(transfers : (\d+) - avg ([\d.]+) MB\)/gm,
)) {
  routes.push({ from: m[1]!, to: m[2]!, transfers: Number(m[4]), bytes: Math.round(Number(m[3]) * 2 ** 30) });
}
const stats = await starpuTraceStats(dir);
console.log(
  JSON.stringify({ msPrinted: Number(result[2]), gflops: Number(result[3]), busStats: routes, trace: stats }),
);
