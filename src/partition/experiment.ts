/**
 * One partitioning experiment (seed 003 section V): a benchmark split over a platform's devices
 * under a strategy, checked bit for bit against the unsplit run, with the speed-up against the
 * best single device (the same sequence run on each device alone). `oracle` runs `adaptive-comm`
 * first and replays its last ratios from the first iteration. Shared by `locus partition` and
 * `locus sweep --figure seed003`.
 */
import { parseRunMode } from '../core/mode-word.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { benchmarkSequence } from './benchmarks.ts';
import { type PartitionDevice, partitionDevices } from './devices.ts';
import { FixedRatiosStrategy } from './fixed.ts';
import { type PartitionMode, type PartitionRunResult, runPartitioned, runSequential } from './runner.ts';
import { createStrategy, oracleStrategy } from './strategies.ts';

/** What to run. */
export interface ExperimentOptions {
  /** Benchmark name (benchmarks.ts). */
  readonly bench: string;
  /** Strategy name (strategies.ts), `oracle` included. */
  readonly strategy: string;
  /** The machine. */
  readonly platform: Platform;
  /** Iterations (>= 1). */
  readonly iterations: number;
  /** Simulated (default) or real. */
  readonly mode?: PartitionMode | 'sim';
  /** Problem size (the benchmark's default when absent). */
  readonly size?: number;
  /** Seed of generated data. */
  readonly seed?: number;
  /** Real mode: name of the device made slower, with `slowdown`. */
  readonly slowDevice?: string;
  /** Real mode: how many times slower. */
  readonly slowdown?: number;
  /** Real mode: one worker thread per device (default) or false for the single-thread path. */
  readonly threads?: boolean;
}

/** One iteration as reported. */
export interface ExperimentIteration {
  /** The iteration's seconds. */
  readonly seconds: number;
  /** Each device's seconds in it. */
  readonly deviceSeconds: number[];
  /** Bytes moved. */
  readonly bytes: number;
  /** The strategy's decision time after it. */
  readonly solveSeconds: number;
  /** The ratios it ran with, `[kernel][device]`. */
  readonly ratios: readonly (readonly number[])[];
}

/** What an experiment measured (the JSON of `locus partition`). */
export interface ExperimentResult {
  readonly bench: string;
  readonly strategy: string;
  readonly platform: string;
  readonly mode: PartitionMode;
  readonly devices: string[];
  readonly kernels: string[];
  readonly iterations: number;
  readonly slowDevice?: string;
  readonly slowdown?: number;
  readonly checked: string;
  /** Simulated or measured seconds of all iterations. */
  readonly seconds: number;
  /** Best single device's seconds over this run's seconds. */
  readonly speedup: number;
  readonly bestSingleDevice: { device: string; seconds: number };
  readonly singleDevice: { device: string; seconds: number }[];
  readonly secondsPerIteration: number;
  readonly bytesPerIteration: number;
  readonly solveSecondsPerIteration: number;
  readonly perIteration: ExperimentIteration[];
}

/** Total seconds of a run (sum of its iterations). */
function total(r: PartitionRunResult): number {
  return r.iterations.reduce((s, it) => s + it.seconds, 0);
}

/** Runs one experiment; throws a LocusError on bad input and an Error if a result differs. */
export function runExperiment(o: ExperimentOptions): ExperimentResult {
  const mode = parseRunMode(o.mode ?? 'simulated', 'mode');
  const sequence = benchmarkSequence(o.bench, {
    ...(o.size !== undefined ? { size: o.size } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
  });
  const { platform } = o;
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
  const base = {
    sequence,
    platform,
    iterations: o.iterations,
    mode,
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
  } as const;
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
  const alone = new FixedRatiosStrategy(
    sequence.kernels.map(() => [1]),
    'single-device',
  );
  const single = devices.map((d: PartitionDevice, i) => {
    const r = runPartitioned({
      ...base,
      devices: [d],
      strategy: alone,
      ...(slowDevice === i ? { slowDevice: 0, slowdown: o.slowdown! } : {}),
    });
    return { device: d.name, seconds: total(r) };
  });
  const best = single.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const seconds = total(run);
  const its = run.iterations;
  const mean = (f: (it: (typeof its)[number]) => number) => its.reduce((s, it) => s + f(it), 0) / its.length;
  return {
    bench: sequence.name,
    strategy: o.strategy,
    platform: platform.name,
    mode,
    devices: devices.map((d) => d.name),
    kernels: sequence.kernels.map((k) => k.name),
    iterations: o.iterations,
    ...(slowDevice !== undefined ? { slowDevice: devices[slowDevice]!.name, slowdown: o.slowdown! } : {}),
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
}
