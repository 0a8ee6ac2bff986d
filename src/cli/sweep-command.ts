/**
 * `locus sweep`: run a workload over several sizes and policies (a named figure of the seeds,
 * or a grid given on the command line), write runs.csv, summary.csv and the throughput and
 * transfer plots (SVG and PNG), and print the summary.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { LocusError } from '../core/types.ts';
import { writeCsv } from '../report/csv.ts';
import { FIGURES, getFigure } from '../report/figures.ts';
import { describeSweep, peakRate, plotSweep } from '../report/plots.ts';
import {
  RUN_COLUMNS,
  resolveSweep,
  runSweep,
  SUMMARY_COLUMNS,
  type SweepResult,
  type SweepSpec,
} from '../report/sweep.ts';
import { SCHEDULERS } from '../sched/index.ts';
import { WORKLOADS } from '../workloads/index.ts';
import { table } from './format.ts';
import { naturalInt, positiveInt, seedValue, size } from './options.ts';
import { addSimulationOptions, type SimulationFlags, schedulerOptionsFrom } from './sim-options.ts';

/** Options of `locus sweep` as commander parses them. */
export interface SweepOptions extends SimulationFlags {
  figure?: string;
  workload?: string;
  sizes?: number[];
  sched?: string;
  reps?: number;
  seed?: number;
  out?: string;
  platform?: string;
  gpus?: number;
  cpus?: number;
  gpuMem?: number;
  noise?: number;
  chargeScheduling?: boolean;
  priorities?: string;
  tileSize?: number;
  inner?: number;
  precision?: string;
  keepOutputs?: boolean;
  pipeline?: number;
  json?: boolean;
  progress: boolean;
  plots: boolean;
}

/** Most sizes one --sizes value may expand to. */
const MAX_SIZES = 10_000;

/** Parses --sizes: comma-separated integers and FROM:TO[:STEP] ranges ("10,20,30", "10:150:10"). */
export function sizeList(value: string): number[] {
  const bad = () =>
    new InvalidArgumentError(
      `'${value}' is not a list of sizes; use e.g. 10,20,30 or 10:150:10 (from:to:step)`,
    );
  const out: number[] = [];
  for (const item of value.split(',')) {
    const parts = item.trim().split(':');
    if (parts.length > 3 || parts.some((p) => !/^\d+$/.test(p.trim()))) throw bad();
    const [from, to = from, step = 1] = parts.map((p) => Number(p.trim())) as [number, number?, number?];
    if (from <= 0 || to < from || step <= 0 || !Number.isSafeInteger(to)) throw bad();
    if ((to - from) / step + out.length >= MAX_SIZES) {
      throw new InvalidArgumentError(`'${value}' expands to more than ${MAX_SIZES} sizes`);
    }
    for (let n = from; n <= to; n += step) out.push(n);
  }
  return out;
}

/** Parses --noise: a number in [0, 1). */
export function noiseValue(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n < 1)) {
    throw new InvalidArgumentError(`'${value}' is not a noise level; use a number in [0, 1), e.g. 0.05`);
  }
  return n;
}

/** Adds the `sweep` command to the program. */
export function registerSweepCommand(program: Command): void {
  const cmd = program
    .command('sweep')
    .description(
      "run a workload over sizes x policies x repetitions; write CSVs and plots (seed 000's Figures 2 and 3: --figure fig2|fig3)",
    )
    .option('-f, --figure <name>', `a named experiment: ${Object.keys(FIGURES).join(', ')}`)
    .option('-w, --workload <name>', `task graph: ${Object.keys(WORKLOADS).join(', ')}`)
    .option('--sizes <list>', 'values of --tiles: 10,20,30 or from:to:step (10:150:10)', sizeList)
    .option(
      '-s, --sched <list>',
      `comma-separated policies, NAME or NAME+EVICTION (darts+luf); schedulers: ${Object.keys(SCHEDULERS).join(', ')} (default eager)`,
    )
    .option('--reps <n>', 'repetitions per point, seeds seed, seed+1, ... (default 1)', positiveInt)
    .option('--seed <n>', 'first seed (default 1)', seedValue)
    .option('-o, --out <dir>', 'output folder (default results/<figure or workload>)')
    .option('-p, --platform <name|file.json>', 'preset name or platform file (default v100x2)')
    .option('--gpus <n>', 'GPUs of the preset to use', naturalInt)
    .option('--cpus <n>', 'CPU cores that compute', naturalInt)
    .option('--gpu-mem <size>', 'cap every GPU memory (e.g. 500MiB, 2GB)', size)
    .option('--noise <x>', 'relative spread of task durations, in [0, 1) (default 0)', noiseValue)
    .option('--charge-scheduling', "add the schedulers' measured decision time to the workers' time")
    .option('--no-charge-scheduling', 'do not charge it (the default without --figure)')
    .addOption(new Option('--priorities <kind>', 'task priorities').choices(['none', 'bottom-level']))
    .option('--tile-size <n>', 'tile edge in elements', positiveInt)
    .option('--inner <n>', 'inner dimension of matmul2d blocks', positiveInt)
    .addOption(new Option('--precision <p>', 'element precision').choices(['single', 'double']))
    .option('--keep-outputs', "write matmul2d's C blocks back instead of discarding them")
    .option('--pipeline <n>', 'tasks a GPU worker holds ahead (default 2)', positiveInt)
    .option('--json', 'print the runs as a JSON array instead of the summary table')
    .option('--no-plots', 'write the CSVs only')
    .option('--no-progress', 'no progress bar');
  addSimulationOptions(cmd).action((opts: SweepOptions) => sweepCommand(opts));
}

/** The sweep the options describe, its plot title and output folder. */
export function sweepFromOptions(o: SweepOptions): { spec: SweepSpec; title: string; out: string } {
  const fig = o.figure !== undefined ? getFigure(o.figure) : undefined;
  if (fig && o.workload !== undefined && o.workload !== fig.sweep.workload) {
    throw new LocusError(
      `--figure ${o.figure} runs ${fig.sweep.workload}; drop --workload ${o.workload} or --figure`,
    );
  }
  if (!fig && o.workload === undefined) {
    throw new LocusError(
      `give --figure (${Object.keys(FIGURES).join(', ')}) or --workload NAME with --sizes (e.g. --workload cholesky --sizes 5:40:5)`,
    );
  }
  if (!fig && o.sizes === undefined) {
    throw new LocusError('--sizes is needed without --figure (e.g. --sizes 10,20,30 or 10:150:10)');
  }
  const base: Partial<SweepSpec> = fig?.sweep ?? {};
  const params = { ...base.params };
  if (o.tileSize !== undefined) params.tileSize = o.tileSize;
  if (o.inner !== undefined) params.inner = o.inner;
  if (o.precision !== undefined) params.precision = o.precision as 'single' | 'double';
  if (o.keepOutputs) params.keepOutputs = true;
  const workload = fig?.sweep.workload ?? o.workload!;
  const spec: SweepSpec = {
    ...base,
    workload,
    params,
    sizes: o.sizes ?? base.sizes!,
    policies: o.sched !== undefined ? o.sched.split(',') : (base.policies ?? ['eager']),
    reps: o.reps ?? base.reps,
    seed: o.seed ?? base.seed,
    platform: o.platform ?? base.platform,
    gpus: o.gpus ?? base.gpus,
    cpus: o.cpus ?? base.cpus,
    gpuMem: o.gpuMem ?? base.gpuMem,
    noise: o.noise ?? base.noise,
    chargeScheduling: o.chargeScheduling ?? base.chargeScheduling,
    priorities: (o.priorities as SweepSpec['priorities']) ?? base.priorities,
    gpuPipeline: o.pipeline ?? base.gpuPipeline,
    gpuLookahead: o.lookahead ?? base.gpuLookahead,
    streams: o.streams ?? base.streams,
    schedulerOptions: { ...base.schedulerOptions, ...schedulerOptionsFrom(o) },
  };
  // A preset's gpus option does not apply to a platform file: keep only what was asked.
  if (o.platform !== undefined && o.platform !== base.platform && o.gpus === undefined) spec.gpus = undefined;
  const title = fig ? fig.title : `${workload} sweep`;
  return { spec, title, out: o.out ?? join('results', o.figure ?? workload) };
}

/** The summary as two tables (throughput, transfers): one row per size, one column per policy. */
export function formatSummary(result: SweepResult): string {
  const labels = result.spec.policies.map((p) => p.label);
  const cell = new Map(result.summary.map((r) => [`${r.tiles}/${r.policy}`, r]));
  const reps = result.spec.reps;
  const grid = (value: (r: (typeof result.summary)[number]) => string) =>
    table([
      ['N', 'working set', ...labels],
      ...result.sizes.map((s) => [
        String(s.tiles),
        `${(s.workingSetBytes / 2 ** 20).toFixed(0)} MiB`,
        ...labels.map((l) => {
          const r = cell.get(`${s.tiles}/${l}`);
          return r ? value(r) : '-';
        }),
      ]),
    ]);
  const range = (mean: number, min: number, max: number, digits: number) =>
    reps > 1
      ? `${mean.toFixed(digits)} [${min.toFixed(digits)}-${max.toFixed(digits)}]`
      : mean.toFixed(digits);
  const gib = 2 ** 30;
  const of = reps > 1 ? `, mean [min-max] of ${reps} runs` : '';
  return [
    `throughput (GFlop/s${of})`,
    grid((r) => range(r.gflopsMean, r.gflopsMin, r.gflopsMax, 0)),
    '',
    `transferred to the GPUs (GiB${of})`,
    grid((r) => range(r.bytesToDevicesMean / gib, r.bytesToDevicesMin / gib, r.bytesToDevicesMax / gib, 1)),
  ].join('\n');
}

/** Writes a file; a LocusError names it when that fails. */
function write(file: string, data: string | Buffer): void {
  try {
    writeFileSync(file, data);
  } catch (e) {
    throw new LocusError(`cannot write ${file}: ${(e as Error).message}`);
  }
}

/**
 * Runs the command. The sweep, the CSVs and the table are synchronous (a LocusError thrown
 * here reaches main's handler: one line, exit code 2); the plots render asynchronously
 * afterwards, and a failure there sets the exit code itself.
 */
export function sweepCommand(o: SweepOptions): void {
  const { spec, title, out } = sweepFromOptions(o);
  resolveSweep(spec); // bad input fails before the output folder is created
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    throw new LocusError(`cannot create the output folder ${out}: ${(e as Error).message}`);
  }
  const bar =
    o.progress && process.stderr.isTTY
      ? new SingleBar({
          format: 'sweep [{bar}] {value}/{total} runs | {run} | {eta_formatted} left',
          stream: process.stderr,
          clearOnComplete: true,
          hideCursor: true,
        })
      : undefined;
  let result: SweepResult;
  try {
    result = runSweep(spec, (p) => {
      if (!bar) return;
      const run = p.next ? `N=${p.next.tiles} ${p.next.policy} seed ${p.next.seed}` : 'done';
      if (p.done === 0 && p.next) bar.start(p.total, 0, { run });
      else bar.update(p.done, { run });
    });
  } finally {
    bar?.stop();
  }
  writeCsv(join(out, 'runs.csv'), result.rows, RUN_COLUMNS);
  writeCsv(join(out, 'summary.csv'), result.summary, SUMMARY_COLUMNS);
  const written = ['runs.csv', 'summary.csv'];
  const fig = o.figure !== undefined ? getFigure(o.figure) : undefined;
  if (o.json) {
    process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
  } else {
    const kernel = fig?.kernel;
    const peak = kernel ? peakRate(result.platform, kernel).label : undefined;
    process.stdout.write(
      `${title}\n${describeSweep(result)}${peak ? `\n${peak}` : ''}\n\n${formatSummary(result)}\n\n`,
    );
  }
  const report = () => {
    if (!o.json) process.stdout.write(`wrote ${written.map((f) => join(out, f)).join(', ')}\n`);
  };
  if (!o.plots) {
    report();
    return;
  }
  plotSweep(result, { title, kernel: fig?.kernel, lines: fig?.lines(result.platform) })
    .then((plots) => {
      for (const [name, p] of Object.entries(plots)) {
        write(join(out, `${name}.svg`), p.svg);
        write(join(out, `${name}.png`), p.png);
        written.push(`${name}.svg`, `${name}.png`);
      }
      report();
    })
    .catch((e: unknown) => {
      if (!(e instanceof LocusError)) throw e;
      process.stderr.write(`locus: ${e.message}\n`);
      process.exitCode = 2;
    });
}
