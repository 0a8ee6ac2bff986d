/**
 * `locus sweep`: run a workload over several sizes and policies (a named figure of the seeds,
 * or a grid given on the command line), write runs.csv (a line as each run ends), summary.csv and
 * the throughput and transfer plots (SVG and PNG), and print the summary. An interrupted sweep
 * (Ctrl-C, a failing run) keeps its finished runs in runs.csv; `--resume` skips them.
 */
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { LocusError } from '../core/types.ts';
import { writeCsv } from '../report/csv.ts';
import { FIGURES, getFigure } from '../report/figures.ts';
import { describeSweep, peakRate, plotSweep } from '../report/plots.ts';
import { SEED001_CLUSTER_FIGURE } from '../report/seed001-cluster.ts';
import { SEED003_FIGURE } from '../report/seed003.ts';
import {
  RUN_COLUMNS,
  resolveSweep,
  runSweepAsync,
  SUMMARY_COLUMNS,
  SweepInterrupted,
  type SweepResult,
  type SweepSpec,
} from '../report/sweep.ts';
import { checkAndWriteSettings, RunsCsvWriter, readRunsCsv, sweepSettings } from '../report/sweep-files.ts';
import { SCHEDULERS } from '../sched/index.ts';
import { WORKLOADS } from '../workloads/index.ts';
import { table } from './format.ts';
import { naturalInt, noiseValue, positiveInt, seedValue, size } from './options.ts';

/** Parses --noise (defined with the other option parsers). */
export { noiseValue };

import { Interrupt } from './interrupt.ts';
import { makeOutputFolder, writeOutputFile } from './output-files.ts';
import { addSimulationOptions, type SimulationFlags, schedulerOptionsFrom } from './sim-options.ts';
import { checkEarlierSweep } from './sweep-folder.ts';
import { summaryGrids, sweepIndexHtml } from './sweep-index.ts';
import { seed001ClusterCommand } from './sweep-seed001-cluster.ts';
import { seed003Command } from './sweep-seed003.ts';

/** Options of `locus sweep` as commander parses them. */
export interface SweepOptions extends SimulationFlags {
  figure?: string;
  workload?: string;
  sizes?: number[];
  sched?: string;
  reps?: number;
  repeat?: number;
  resume?: boolean;
  /** Overwrite an earlier sweep in the output folder. */
  force?: boolean;
  seed?: number;
  out?: string;
  platform?: string;
  gpus?: number;
  cpus?: number;
  gpuMem?: number;
  /** --host-mem and --disk: out of core (see `locus run`). */
  hostMem?: number;
  disk?: string;
  noise?: number;
  chargeScheduling?: boolean;
  priorities?: string;
  tileSize?: number;
  inner?: number;
  precision?: string;
  keepOutputs?: boolean;
  /** false with --no-hints. */
  hints?: boolean;
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

/** Adds the `sweep` command to the program. */
export function registerSweepCommand(program: Command): void {
  const cmd = program
    .command('sweep')
    .description(
      "run a workload over sizes x policies x repetitions; write CSVs and plots (seed 000's Figures 2 and 3: --figure fig2|fig3)",
    )
    .option(
      '-f, --figure <name>',
      `a named experiment: ${[...Object.keys(FIGURES), SEED003_FIGURE, SEED001_CLUSTER_FIGURE].join(', ')}`,
    )
    .option('-w, --workload <name>', `task graph: ${Object.keys(WORKLOADS).join(', ')}`)
    .option('--sizes <list>', 'values of --tiles: 10,20,30 or from:to:step (10:150:10)', sizeList)
    .option(
      '-s, --sched <list>',
      `comma-separated policies, NAME or NAME+EVICTION (darts+luf); schedulers: ${Object.keys(SCHEDULERS).join(', ')} (default eager)`,
    )
    .option('--repeat <n>', 'repetitions per point, seeds seed, seed+1, ... (default 1)', positiveInt)
    .addOption(new Option('--reps <n>', 'same as --repeat').argParser(positiveInt).hideHelp())
    .option('--resume', 'keep the runs already in <out>/runs.csv (an interrupted sweep) and run the others')
    .option('--force', 'overwrite an earlier sweep in the output folder (without it, one is refused)')
    .option('--seed <n>', 'first seed (default 1)', seedValue)
    .option('-o, --out <dir>', 'output folder (default results/<figure or workload>)')
    .option('-p, --platform <name|file.json>', 'preset name or platform file (default v100x2)')
    .option('--gpus <n>', 'GPUs of the preset to use', naturalInt)
    .option('--cpus <n>', 'CPU cores that compute', naturalInt)
    .option('--gpu-mem <size>', 'cap every GPU memory (e.g. 500MiB, 2GB)', size)
    .option('--host-mem <size>', 'cap host memory (e.g. 1GiB); data beyond it need --disk', size)
    .option(
      '--disk <name>',
      'out of core: a disk below host memory for the sizes whose data exceed it (a preset: nvme; or a disk node of the platform file)',
    )
    .option('--noise <x>', 'relative spread of task durations, in [0, 1) (default 0)', noiseValue)
    .option('--charge-scheduling', "add the schedulers' measured decision time to the workers' time")
    .option('--no-charge-scheduling', 'do not charge it (the default without --figure)')
    .addOption(new Option('--priorities <kind>', 'task priorities').choices(['none', 'bottom-level']))
    .option('--tile-size <n>', 'tile edge in elements', positiveInt)
    .option('--inner <n>', 'inner dimension of matmul2d blocks', positiveInt)
    .addOption(new Option('--precision <p>', 'element precision').choices(['single', 'double']))
    .option('--keep-outputs', "write matmul2d's C blocks back instead of discarding them")
    .option('--no-hints', "no wontUse hints (cholesky's finished tiles, matmul2d's kept C blocks)")
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
      'LOCUS_OPTION_CONFLICT',
      `--figure ${o.figure} runs ${fig.sweep.workload}; drop --workload ${o.workload} or --figure`,
    );
  }
  if (!fig && o.workload === undefined) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `give --figure (${Object.keys(FIGURES).join(', ')}) or --workload NAME with --sizes (e.g. --workload cholesky --sizes 5:40:5)`,
    );
  }
  if (!fig && o.sizes === undefined) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      '--sizes is needed without --figure (e.g. --sizes 10,20,30 or 10:150:10)',
    );
  }
  if (o.repeat !== undefined && o.reps !== undefined && o.repeat !== o.reps) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `--repeat ${o.repeat} and --reps ${o.reps} disagree: give one of them`,
    );
  }
  const base: Partial<SweepSpec> = fig?.sweep ?? {};
  const params = { ...base.params };
  if (o.tileSize !== undefined) params.tileSize = o.tileSize;
  if (o.inner !== undefined) params.inner = o.inner;
  if (o.precision !== undefined) params.precision = o.precision as 'single' | 'double';
  if (o.keepOutputs) params.keepOutputs = true;
  if (o.hints === false) params.hints = false;
  const workload = fig?.sweep.workload ?? o.workload!;
  const spec: SweepSpec = {
    ...base,
    workload,
    params,
    sizes: o.sizes ?? base.sizes!,
    policies: o.sched !== undefined ? o.sched.split(',') : (base.policies ?? ['eager']),
    reps: o.repeat ?? o.reps ?? base.reps,
    seed: o.seed ?? base.seed,
    platform: o.platform ?? base.platform,
    gpus: o.gpus ?? base.gpus,
    cpus: o.cpus ?? base.cpus,
    gpuMem: o.gpuMem ?? base.gpuMem,
    ...(o.hostMem !== undefined ? { hostMem: o.hostMem } : {}),
    ...(o.disk !== undefined ? { disk: o.disk } : {}),
    noise: o.noise ?? base.noise,
    chargeScheduling: o.chargeScheduling ?? base.chargeScheduling,
    priorities: (o.priorities as SweepSpec['priorities']) ?? base.priorities,
    gpuPipeline: o.pipeline ?? base.gpuPipeline,
    gpuLookahead: o.lookahead ?? base.gpuLookahead,
    streams: o.streams ?? base.streams,
    cleanFirst: o.cleanFirst === false ? false : base.cleanFirst,
    minClean: o.minClean ?? base.minClean,
    targetClean: o.targetClean ?? base.targetClean,
    schedulerOptions: { ...base.schedulerOptions, ...schedulerOptionsFrom(o) },
  };
  // A preset's gpus option does not apply to a platform file: keep only what was asked.
  if (o.platform !== undefined && o.platform !== base.platform && o.gpus === undefined) spec.gpus = undefined;
  const title = fig ? fig.title : `${workload} sweep`;
  return { spec, title, out: o.out ?? join('results', o.figure ?? workload) };
}

/** The summary as two tables (throughput, transfers): one row per size, one column per policy. */
export function formatSummary(result: SweepResult): string {
  return summaryGrids(result)
    .map((g) => `${g.title}\n${table(g.rows)}`)
    .join('\n\n');
}

/** A shell word: quoted when it holds anything but safe characters. */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`;
}

/** The command that resumes this sweep: the same arguments plus --resume. */
export function resumeCommand(argv: readonly string[] = process.argv): string {
  const i = argv.indexOf('sweep');
  const args = i >= 0 ? argv.slice(i + 1) : [];
  return ['locus sweep', ...args.map(shellWord), ...(args.includes('--resume') ? [] : ['--resume'])].join(
    ' ',
  );
}

/**
 * Runs the command. Bad input fails before the output folder is created (a LocusError reaches
 * main's handler: one line, exit code 2). Each run's row is appended to runs.csv as it ends;
 * Ctrl-C stops the sweep between two runs (exit code 130) and a failing run stops it too, and
 * both say how to resume. Then summary.csv, the table and the plots.
 */
export async function sweepCommand(o: SweepOptions): Promise<void> {
  if (o.figure === SEED003_FIGURE) return seed003Command(o);
  if (o.figure === SEED001_CLUSTER_FIGURE) return seed001ClusterCommand(o);
  const { spec, title, out } = sweepFromOptions(o);
  const resolved = resolveSweep(spec).spec; // bad input fails before the output folder is created
  checkEarlierSweep(out, o.resume === true, o.force === true);
  makeOutputFolder(out);
  const runsFile = join(out, 'runs.csv');
  const done = o.resume ? readRunsCsv(runsFile) : [];
  checkAndWriteSettings(
    join(out, 'settings.json'),
    sweepSettings(resolved),
    o.resume === true,
    done.length > 0,
  );
  const writer = new RunsCsvWriter(runsFile, done);
  let finished = done.length;
  const bar =
    o.progress && process.stderr.isTTY
      ? new SingleBar({
          format: 'sweep [{bar}] {value}/{total} runs | {run} | {eta_formatted} left',
          stream: process.stderr,
          clearOnComplete: true,
          hideCursor: true,
        })
      : undefined;
  let started = false;
  // Ctrl-C or SIGTERM: the finished runs are kept and the line says how to resume.
  const interrupt = new Interrupt();
  let result: SweepResult;
  try {
    result = await runSweepAsync(spec, {
      done,
      signal: interrupt.signal,
      onRow: (row) => {
        writer.append(row);
        finished++;
      },
      onProgress: (p) => {
        if (!bar) return;
        const run = p.next ? `N=${p.next.tiles} ${p.next.policy} seed ${p.next.seed}` : 'done';
        if (!started && p.next) {
          bar.start(p.total, p.done, { run });
          started = true;
        } else bar.update(p.done, { run });
      },
    });
  } catch (e) {
    bar?.stop();
    writer.close();
    const kept = `${finished} finished run${finished === 1 ? '' : 's'} kept in ${runsFile}`;
    if (e instanceof SweepInterrupted) {
      process.stderr.write(
        `locus: sweep ${interrupt.verb} after ${finished} of ${e.total} runs (${kept}); resume with: ${resumeCommand()}\n`,
      );
      process.exitCode = interrupt.exitCode;
      return;
    }
    if (finished > 0 && finished > done.length) {
      const hint = `${kept}; resume with: ${resumeCommand()}`;
      if (e instanceof LocusError) throw new LocusError(e.code, `${e.message} (${hint})`, { cause: e });
      process.stderr.write(`locus: sweep stopped by an error (${hint})\n`);
    }
    throw e;
  } finally {
    interrupt.dispose();
  }
  bar?.stop();
  writer.close();
  // Rewritten whole: a resumed sweep's rows in the order an uninterrupted one writes them.
  writeCsv(runsFile, result.rows, RUN_COLUMNS);
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
  const shown: { name: string; caption: string }[] = [];
  if (o.plots) {
    const plots = await plotSweep(result, { title, kernel: fig?.kernel, lines: fig?.lines(result.platform) });
    for (const [name, p] of Object.entries(plots)) {
      writeOutputFile(join(out, `${name}.svg`), p.svg);
      writeOutputFile(join(out, `${name}.png`), p.png);
      // The images have no title: a paper sets this caption under them.
      writeOutputFile(join(out, `${name}.caption.txt`), `${p.caption}\n`);
      written.push(`${name}.svg`, `${name}.png`, `${name}.caption.txt`);
      shown.push({ name, caption: p.caption });
    }
  }
  // A page to open in a browser: the plots, the tables and the files.
  writeOutputFile(
    join(out, 'index.html'),
    sweepIndexHtml({
      title,
      description: describeSweep(result),
      grids: summaryGrids(result),
      plots: shown,
      files: ['runs.csv', 'summary.csv', 'settings.json', ...written.filter((f) => !f.endsWith('.csv'))],
    }),
  );
  written.push('index.html');
  if (!o.json) process.stdout.write(`wrote ${written.map((f) => join(out, f)).join(', ')}\n`);
}
