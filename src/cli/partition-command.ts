/**
 * `locus partition`: one of seed 003's benchmarks split over the devices of a platform under a
 * partitioning strategy, simulated or real, checked bit for bit against the unsplit run, with
 * the speed-up against the best single device (the same sequence run on each device alone).
 */
import { type Command, InvalidArgumentError } from 'commander';
import { LocusError } from '../core/types.ts';
import { BENCHMARKS, benchmarkSequence } from '../partition/benchmarks.ts';
import { type PartitionDevice, partitionDevices } from '../partition/devices.ts';
import { FixedRatiosStrategy } from '../partition/fixed.ts';
import type { KernelSequence } from '../partition/kernel.ts';
import {
  type PartitionMode,
  type PartitionRunResult,
  runPartitioned,
  runSequential,
} from '../partition/runner.ts';
import { createStrategy, oracleStrategy, STRATEGY_NAMES } from '../partition/strategies.ts';
import type { PartitionStrategy } from '../partition/strategy.ts';
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
  json?: boolean;
}

/** A number >= 1. */
function factorValue(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 1)
    throw new InvalidArgumentError(`'${value}' is not a slowdown factor; use a number >= 1, e.g. 3`);
  return n;
}

/** Total seconds of a run (sum of its iterations). */
function total(r: PartitionRunResult): number {
  return r.iterations.reduce((s, it) => s + it.seconds, 0);
}

/** Every kernel entirely on one device. */
function alone(sequence: KernelSequence): PartitionStrategy {
  return new FixedRatiosStrategy(
    sequence.kernels.map(() => [1]),
    'single-device',
  );
}

/** Runs the command; prints text or JSON. */
export function partitionCommand(o: PartitionCliOptions): void {
  if (o.bench === undefined)
    throw new LocusError('LOCUS_OPTION_INVALID', `--bench is required: use ${BENCHMARKS.join(', ')}`);
  if (o.mode !== 'simulated' && o.mode !== 'real')
    throw new LocusError('LOCUS_OPTION_INVALID', `--mode is simulated or real (got '${o.mode}')`);
  const mode = o.mode as PartitionMode;
  if (!(STRATEGY_NAMES as readonly string[]).includes(o.strategy))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--strategy: unknown strategy '${o.strategy}': use ${STRATEGY_NAMES.join(', ')}`,
    );
  const sequence = benchmarkSequence(o.bench, {
    ...(o.size !== undefined ? { size: o.size } : {}),
    seed: o.seed,
  });
  const platform = resolvePlatform(o.platform, {
    ...(o.gpus !== undefined ? { gpus: o.gpus } : {}),
    ...(o.cpus !== undefined ? { cpus: o.cpus } : {}),
  });
  const devices = partitionDevices(platform);
  let slowDevice: number | undefined;
  if (o.slowDevice !== undefined || o.slowdown !== undefined) {
    if (mode !== 'real')
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        '--slow-device and --slowdown apply to --mode real; to slow a device in simulation, lower its rates in a platform file',
      );
    if (o.slowDevice === undefined || o.slowdown === undefined)
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        '--slow-device and --slowdown go together (e.g. --slow-device gpu0 --slowdown 3)',
      );
    slowDevice = devices.findIndex((d) => d.name === o.slowDevice);
    if (slowDevice < 0)
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `--slow-device: no device '${o.slowDevice}' on ${platform.name}; its devices are ${devices.map((d) => d.name).join(', ')}`,
      );
  }
  const strategy = createStrategy(o.strategy === 'oracle' ? 'adaptive-comm' : o.strategy);
  const base = { sequence, platform, iterations: o.iterations, mode } as const;
  const slow = slowDevice !== undefined ? { slowDevice, slowdown: o.slowdown! } : {};
  let run = runPartitioned({ ...base, devices, strategy, ...slow });
  if (o.strategy === 'oracle') {
    const converged = run.iterations.at(-1)!.observation.ratios;
    run = runPartitioned({ ...base, devices, strategy: oracleStrategy(converged), ...slow });
  }
  const reference = runSequential(sequence, o.iterations);
  for (const [name, a] of Object.entries(reference)) {
    const b = run.buffers[name]!;
    for (let i = 0; i < a.length; i++)
      if (!Object.is(a[i], b[i]))
        throw new Error(`partition: ${name}[${i}] is ${b[i]} split and ${a[i]} unsplit (a region is wrong)`);
  }
  const single = devices.map((d: PartitionDevice, i) => {
    const r = runPartitioned({
      ...base,
      devices: [d],
      strategy: alone(sequence),
      ...(slowDevice === i ? { slowDevice: 0, slowdown: o.slowdown! } : {}),
    });
    return { device: d.name, seconds: total(r) };
  });
  const best = single.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const seconds = total(run);
  const its = run.iterations;
  const mean = (f: (it: (typeof its)[number]) => number) => its.reduce((s, it) => s + f(it), 0) / its.length;
  const result = {
    bench: sequence.name,
    strategy: o.strategy,
    platform: platform.name,
    mode,
    devices: devices.map((d) => d.name),
    kernels: sequence.kernels.map((k) => k.name),
    iterations: o.iterations,
    ...(slowDevice !== undefined ? { slowDevice: devices[slowDevice]!.name, slowdown: o.slowdown } : {}),
    checked: 'bit-identical to the unsplit run',
    seconds,
    speedup: best.seconds / seconds,
    bestSingleDevice: best,
    singleDevice: single,
    secondsPerIteration: mean((it) => it.seconds),
    bytesPerIteration: mean((it) => it.bytes),
    solveSecondsPerIteration: mean((it) => it.solveSeconds),
    perIteration: its.map((it) => ({
      seconds: it.seconds,
      deviceSeconds: it.deviceSeconds,
      bytes: it.bytes,
      solveSeconds: it.solveSeconds,
      ratios: it.observation.ratios,
    })),
  };
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
    .option('--mode <mode>', 'simulated or real (emulated devices on this machine)', 'simulated')
    .option('--size <n>', 'problem size (grid side, rows or particles)', positiveInt)
    .option('--seed <n>', 'seed of generated data', seedValue, 1)
    .option('--slow-device <name>', 'real mode: the device to slow down (gpu0, cpu, ...)')
    .option('--slowdown <f>', 'real mode: how many times slower it computes and copies', factorValue)
    .option('--json', 'one JSON object')
    .action((opts: PartitionCliOptions) => partitionCommand(opts));
}
