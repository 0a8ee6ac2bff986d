/**
 * The `locus` command: argument parsing (commander) and the error policy: a user error is
 * one line on stderr and exit code 2; anything else is a bug and keeps its stack trace.
 */
import { Command, CommanderError, Option } from 'commander';
import { LocusError } from '../core/types.ts';
import { EVICTION_POLICIES } from '../evict/index.ts';
import { describePlatform } from '../platform/describe.ts';
import { describePresets, resolvePlatform } from '../platform/presets.ts';
import { SCHEDULERS } from '../sched/index.ts';
import { WORKLOADS } from '../workloads/index.ts';
import { registerCalibrateCommands } from './calibrate-command.ts';
import { demoCommand } from './demo-command.ts';
import { durationValue, naturalInt, positiveInt, seedValue, size } from './options.ts';
import { realRunCommand } from './real-command.ts';
import { type RunOptions, runCommand } from './run-command.ts';
import { addSimulationOptions } from './sim-options.ts';
import { noiseValue, registerSweepCommand } from './sweep-command.ts';

/** Builds the command-line program. */
export function buildProgram(): Command {
  const program = new Command('locus')
    .description('A data-locality-aware task runtime for CPUs and memory-limited GPUs (simulated by default)')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true);

  const run = program
    .command('run')
    .description('run a workload on a platform under a scheduler and report what happened')
    .addOption(
      new Option('-w, --workload <name>', `task graph: ${Object.keys(WORKLOADS).join(', ')}`).default(
        'cholesky',
      ),
    )
    .option('-n, --tiles <n>', 'tiles per dimension (matmul2d: N x N tasks)', positiveInt)
    .option('--tile-size <n>', 'tile edge in elements', positiveInt)
    .option('--inner <n>', 'inner dimension of matmul2d blocks (stencil: grid depth)', positiveInt)
    .option('--precision <p>', 'single or double')
    .option('--iterations <n>', 'iterations (stencil)', positiveInt)
    .option('--tasks <n>', 'task count (random)', positiveInt)
    .option('--data <n>', 'data count (random)', positiveInt)
    .option('--degree <n>', 'inputs per task (random)', positiveInt)
    .option('--keep-outputs', "write matmul2d's C blocks back instead of discarding them")
    .option(
      '--order <order>',
      "cholesky: trailing updates by rows (StarPU's order) or columns (seed 004's Table 5.2)",
    )
    .option(
      '-p, --platform <name|file.json>',
      'preset name or platform file (default v100x2; --mode real: local, this machine)',
    )
    .option('--gpus <n>', 'GPUs of the preset to use (local: emulated devices)', naturalInt)
    .option('--cpus <n>', 'CPU cores that compute', naturalInt)
    .option('--gpu-mem <size>', 'cap every GPU memory (e.g. 500MiB, 2GB)', size)
    .option(
      '-s, --sched <name>',
      `scheduler, or SCHEDULER+EVICTION (darts+luf): ${Object.keys(SCHEDULERS).join(', ')}`,
      'eager',
    )
    .option(
      '-e, --eviction <name>',
      `eviction policy (default lru): ${Object.keys(EVICTION_POLICIES).join(', ')}`,
    )
    .option('--seed <n>', 'seed of random draws (deterministic runs)', seedValue, 1)
    .option(
      '--pipeline <n>',
      'tasks a GPU worker holds, the running one included (default 2; real: every worker, 4)',
      positiveInt,
    )
    .option('--priorities <kind>', 'task priorities: none or bottom-level', 'none')
    .option('--noise <x>', 'relative spread of task durations, in [0, 1) (default 0)', noiseValue)
    .option('--charge-scheduling', "add the schedulers' measured decision time to the workers' time")
    .option('--mode <mode>', 'sim (simulated platform) or real (worker threads on this machine)', 'sim')
    .option('--check', 'real: compare the result with a sequential run (prints the relative difference)')
    .option('--throttle', "real: hold copies to emulated devices to the platform's link speed")
    .option('--no-record', "real: do not save the run's measurements into the performance models")
    .option('--runtime <version>', "static: seed 004's runtime v1, v2, v3 or v4 (coherence presets)")
    .option(
      '--coherence <list>',
      'static: write-through|write-back, free=none|aliens|all, cache=N (comma-separated; instead of --runtime)',
    )
    .option('--mapping <kind>', 'static: blocks to GPUs: 2d, 2d:PxQ, rows, cols or a .json grid (default 2d)')
    .option('--cache-lines <n>', 'v3, v4: alien blocks each GPU caches (LRU; default unlimited)', naturalInt)
    .option('--serial', 'run tasks one at a time in submission order')
    .option(
      '--idle <policy>',
      "idle threads: poll, ea1 (block when no task), ea2 (GPU threads block while their GPU computes) or ea1+ea2 (seed 002's energy model)",
    )
    .option(
      '--wake-latency <duration>',
      'ea1: wake-up latency of a blocked thread (default 50us)',
      durationValue,
    )
    .option('--stop-after <n>', 'keep only the first n tasks and skip the final write-back', positiveInt)
    .option(
      '--calibrate',
      'real: send tasks where their performance models lack measurements (StarPU_CALIBRATE)',
    )
    .option('--json', 'print the report as one JSON object')
    .option('--trace <file>', 'write a Chrome trace (open in Perfetto)')
    .option('--no-progress', 'no progress bar');
  addSimulationOptions(run).action(async (opts: RunOptions) => {
    if (opts.mode === 'real') {
      const code = await realRunCommand(opts);
      if (code !== 0) process.exitCode = code;
    } else {
      runCommand(opts);
    }
  });

  registerSweepCommand(program);
  registerCalibrateCommands(program);

  program
    .command('platforms')
    .description('list the preset platforms with their figures and sources, or describe one')
    .argument('[name]', 'a preset name or platform file to describe')
    .option('--gpus <n>', 'GPUs of the preset to use', naturalInt)
    .option('--cpus <n>', 'CPU cores that compute', naturalInt)
    .option('--gpu-mem <size>', 'cap every GPU memory', size)
    .action((name: string | undefined, opts: { gpus?: number; cpus?: number; gpuMem?: number }) => {
      if (name === undefined) process.stdout.write(`${describePresets()}\n`);
      else process.stdout.write(`${describePlatform(resolvePlatform(name, opts))}\n`);
    });

  program
    .command('workloads')
    .description('list the workload generators')
    .action(() => {
      for (const [name, w] of Object.entries(WORKLOADS))
        process.stdout.write(`${name.padEnd(10)} ${w.description}\n`);
    });

  program
    .command('policies')
    .description('list the schedulers and eviction policies')
    .action(() => {
      process.stdout.write('schedulers (--sched)\n');
      for (const [name, s] of Object.entries(SCHEDULERS))
        process.stdout.write(`  ${name.padEnd(10)} ${s.description}\n`);
      process.stdout.write('eviction policies (--eviction)\n');
      for (const [name, s] of Object.entries(EVICTION_POLICIES)) {
        process.stdout.write(`  ${name.padEnd(10)} ${s.description}\n`);
      }
    });

  program
    .command('demo')
    .description(
      "a short tour: seed 000's matrix product on two 500 MiB V100s, below and above the memory limit",
    )
    .action(() => demoCommand());

  return program;
}

/** Runs the CLI with `argv` (process.argv form); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0; // --help, --version
      process.stderr.write(`locus: ${e.message.replace(/^error: /, '')}\n`);
      return 2;
    }
    if (e instanceof LocusError) {
      process.stderr.write(`locus: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
