/**
 * `locus partition`: one of seed 003's benchmarks split over the devices of a platform under a
 * partitioning strategy, simulated or real, checked bit for bit against the unsplit run, with
 * the speed-up against the best single device (the same sequence run on each device alone).
 */

import { type Command, InvalidArgumentError } from 'commander';
import { parseRunMode } from '../core/mode-word.ts';
import { LocusError } from '../core/types.ts';
import { BENCHMARKS } from '../partition/benchmarks.ts';
import { runExperiment } from '../partition/experiment.ts';
import type { PartitionMode } from '../partition/runner.ts';
import { STRATEGY_NAMES } from '../partition/strategies.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { naturalInt, positiveInt, seedValue } from './options.ts';

/** Options of `locus partition`. */
interface PartitionCliOptions {
  bench?: string;
  strategy: string;
  platform: string;
  gpus?: number;
  cpus?: number;
  iterations: number;
  mode: string;
  size?: number;
  seed: number;
  slowDevice?: string;
  slowdown?: number;
  singleThread?: boolean;
  json?: boolean;
}

/** A number >= 1. */
function factorValue(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 1)
    throw new InvalidArgumentError(`'${value}' is not a slowdown factor; use a number >= 1, e.g. 3`);
  return n;
}

/** Runs the command; prints text or JSON. */
export function partitionCommand(o: PartitionCliOptions): void {
  if (o.bench === undefined)
    throw new LocusError('LOCUS_OPTION_INVALID', `--bench is required: use ${BENCHMARKS.join(', ')}`);
  const mode: PartitionMode = parseRunMode(o.mode, '--mode');
  if (o.singleThread && mode !== 'real')
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      '--single-thread applies to --mode real (a simulated run uses no device threads): add --mode real or drop it',
    );
  if (!(STRATEGY_NAMES as readonly string[]).includes(o.strategy))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--strategy: unknown strategy '${o.strategy}': use ${STRATEGY_NAMES.join(', ')}`,
    );
  const platform = resolvePlatform(o.platform, {
    ...(o.gpus !== undefined ? { gpus: o.gpus } : {}),
    ...(o.cpus !== undefined ? { cpus: o.cpus } : {}),
  });
  const result = runExperiment({
    bench: o.bench,
    strategy: o.strategy,
    platform,
    iterations: o.iterations,
    mode,
    seed: o.seed,
    ...(o.size !== undefined ? { size: o.size } : {}),
    ...(o.slowDevice !== undefined ? { slowDevice: o.slowDevice } : {}),
    ...(o.slowdown !== undefined ? { slowdown: o.slowdown } : {}),
    ...(o.singleThread ? { threads: false } : {}),
  });
  const best = result.bestSingleDevice;
  const its = result.perIteration;
  if (o.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const ms = (s: number) => `${(s * 1e3).toFixed(3)} ms`;
  const lines = [
    `${result.bench} on ${result.platform} (${result.devices.join(', ')}), ${mode}, strategy ${o.strategy}, ${o.iterations} iterations: result ${result.checked}`,
    `speed-up ${result.speedup.toFixed(2)} against the best single device (${best.device}, ${ms(best.seconds)} in all)`,
    `per iteration: ${ms(result.secondsPerIteration)}, ${Math.round(result.bytesPerIteration)} bytes moved, solve ${ms(result.solveSecondsPerIteration)}`,
    'iteration  seconds     bytes  per device (ms)',
    ...its.map(
      (it, i) =>
        `${String(i).padStart(9)}  ${ms(it.seconds).padStart(10)}  ${String(it.bytes).padStart(8)}  ${it.deviceSeconds.map((s) => (s * 1e3).toFixed(3)).join(' ')}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Adds `locus partition` with its options to `program`. */
export function registerPartitionCommand(program: Command, name: string, summary: string): void {
  program
    .command(name)
    .description(summary)
    .option('--bench <name>', `benchmark: ${BENCHMARKS.join(', ')}`)
    .option('--strategy <name>', `partitioning strategy: ${STRATEGY_NAMES.join(', ')}`, 'uniform')
    .option('--platform <name|file>', 'preset or platform file', 'hannibal')
    .option('--gpus <n>', 'GPUs of the preset to use', naturalInt)
    .option('--cpus <n>', 'CPU cores of the preset (together one device)', naturalInt)
    .option('--iterations <n>', 'iterations of the sequence', positiveInt, 10)
    .option('--mode <mode>', 'simulated (or sim) or real (emulated devices on this machine)', 'simulated')
    .option('--size <n>', 'problem size (grid side, rows or particles)', positiveInt)
    .option('--seed <n>', 'seed of generated data', seedValue, 1)
    .option('--slow-device <name>', 'real mode: the device to slow down (gpu0, cpu, ...)')
    .option('--slowdown <f>', 'real mode: how many times slower it computes and copies', factorValue)
    .option(
      '--single-thread',
      'real mode: run every device on the main thread (default: one worker thread per device)',
    )
    .option('--json', 'one JSON object')
    .action((opts: PartitionCliOptions) => partitionCommand(opts));
}
