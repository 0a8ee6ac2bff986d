/**
 * Runs an iterated kernel sequence split over devices (seed 003): every iteration, each kernel
 * is split into one sub-kernel per device from the strategy's ratios (split.ts), each
 * sub-kernel's regions are instantiated (kernel.ts), the intervals missing on its device are
 * moved as libsplit does (validity.ts: D2H from the device holding them, then H2D), and the
 * sub-kernels run on emulated device memories (memories.ts), so the result is checked against
 * the unsplit run bit for bit. Then the strategy gets what the iteration measured
 * (IterationObservation) and answers the next ratios.
 *
 * Time comes from one of two modes:
 * - `simulated`: the iteration is replayed in Locus's simulator (sim-iteration.ts); a
 *   sub-kernel's time is its device's launch cost (devices.ts, LAUNCH_SECONDS) plus the work in
 *   its sub-range over its device's rate for the codelet;
 * - `real`: every copy and every sub-kernel is timed on this machine. By
 *   default (`threads`, when the sequence has a `source`) each emulated device is a worker
 *   thread (device-threads.ts) computing in place on its memory (SharedArrayBuffers): per
 *   kernel, the copies run on the main thread as libsplit's runtime does them (D2H, then H2D,
 *   each timed), then every device's sub-kernel runs concurrently, and the iteration's time is
 *   the sum over kernels of the slowest D2H, the slowest H2D and the measured wall time of the
 *   concurrent compute phase. With `threads: false` the sub-kernels run one after the other on
 *   the main thread and the compute phase counts as the slowest sub-kernel (what concurrent
 *   devices would take), and every copy and sub-kernel is timed by the process's CPU clock
 *   (cpuClock), not the wall clock, so that time the OS gives other processes is not read as
 *   a device being slow. One device can be made slower: its sub-kernels and the copies to and
 *   from it take `slowdown` times as long (the extra time is spent busy-waiting).
 */
import { parseRunMode } from '../core/mode-word.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { DeviceThreads } from './device-threads.ts';
import { deviceRate, launchSeconds, type PartitionDevice } from './devices.ts';
import type { IntervalSet } from './intervals.ts';
import { instantiate, type KernelSequence } from './kernel.ts';
import { Memories } from './memories.ts';
import { type Fragment, type SimSubKernel, simulateIteration } from './sim-iteration.ts';
import { splitRange } from './split.ts';
import type {
  IterationObservation,
  PartitionStrategy,
  SequenceShape,
  TransferObservation,
} from './strategy.ts';
import { type TransferPlan, Validity } from './validity.ts';

/** How a split run is timed. */
export type PartitionMode = 'simulated' | 'real';

/** Options of runPartitioned(). */
export interface PartitionRunOptions {
  /** The sequence (its buffers' initial content is not modified). */
  readonly sequence: KernelSequence;
  /** The machine: its links and rates (simulated mode), its buses' `Omega_d` for the strategy. */
  readonly platform: Platform;
  /** The devices to split over, in sub-range order (partitionDevices(platform) or a subset). */
  readonly devices: readonly PartitionDevice[];
  /** Chooses the ratios. */
  readonly strategy: PartitionStrategy;
  /** Iterations to run (>= 1). */
  readonly iterations: number;
  /** Simulated (default) or real. */
  readonly mode?: PartitionMode | 'sim';
  /** Real mode: index in `devices` of a device made slower (none when absent). */
  readonly slowDevice?: number;
  /** Real mode: how many times slower that device computes and copies (default 1). */
  readonly slowdown?: number;
  /**
   * Real mode: one worker thread per device, sub-kernels concurrent (default: true when the
   * sequence has a `source`, which it needs); false: everything on the main thread.
   */
  readonly threads?: boolean;
}

/** What one iteration did and measured. */
export interface PartitionIteration {
  /** What the strategy was given. */
  readonly observation: IterationObservation;
  /** The iteration's time in seconds (simulated makespan, or the real decomposition above). */
  readonly seconds: number;
  /** Per device: its time in the iteration (last sub-kernel end, or its copies plus compute). */
  readonly deviceSeconds: number[];
  /** Bytes moved (D2H plus H2D) as instantiated from the regions. */
  readonly bytes: number;
  /** The strategy's time to choose the next ratios (0 after the last iteration). */
  readonly solveSeconds: number;
}

/** The outcome of a split run. */
export interface PartitionRunResult {
  /** Per iteration. */
  readonly iterations: PartitionIteration[];
  /** Every buffer's final content, gathered on the host. */
  readonly buffers: Record<string, Float64Array | Int32Array>;
  /** Wall-clock seconds the whole run took on this machine. */
  readonly wallSeconds: number;
}

/** Seconds per byte over the direct route from `src` to `dst` (bandwidth only). */
function secondsPerByte(platform: Platform, src: number, dst: number): number {
  if (src === dst) return 0;
  const route = platform.routes[src * platform.nodes.length + dst];
  if (!route || route.length === 0) return 0;
  let bw = Number.POSITIVE_INFINITY;
  for (const l of route) bw = Math.min(bw, platform.links[l]!.bandwidth);
  return 1 / bw;
}

/** The shape the strategy is told about: kernels, devices, dependencies and the buses' `Omega_d`. */
export function sequenceShape(
  sequence: KernelSequence,
  platform: Platform,
  devices: readonly PartitionDevice[],
): SequenceShape {
  const ks = sequence.kernels;
  const dependencies: { producer: number; consumer: number }[] = [];
  ks.forEach((cons, k) => {
    ks.forEach((prod, h) => {
      const writes = new Set(prod.accesses.filter((a) => a.write?.length).map((a) => a.buffer));
      if (cons.accesses.some((a) => a.read?.length && writes.has(a.buffer)))
        dependencies.push({ producer: h, consumer: k });
    });
  });
  return {
    kernels: ks.length,
    devices: devices.length,
    kernelNames: ks.map((k) => k.name),
    deviceNames: devices.map((d) => d.name),
    dependencies,
    hostToDeviceSecondsPerByte: devices.map((d) => secondsPerByte(platform, platform.homeNode, d.node)),
    deviceToHostSecondsPerByte: devices.map((d) => secondsPerByte(platform, d.node, platform.homeNode)),
  };
}

/**
 * Real mode's `Omega_d` (seed 003 IV.B: "the time to transfer one byte from host to device d",
 * which libsplit calibrates on the machine): the copies to or from each device measured so far,
 * seconds over bytes. The platform's links describe the simulated machine, not the emulated
 * devices' copies on this one (a memory copy, slowed for a throttled device), so in real mode the
 * strategies are told the measured figure, once a device has copied anything.
 */
export class BusCalibration {
  readonly #seconds: number[];
  readonly #bytes: number[];

  /** Nothing measured yet for `devices` devices. */
  constructor(devices: number) {
    this.#seconds = new Array<number>(devices).fill(0);
    this.#bytes = new Array<number>(devices).fill(0);
  }

  /** One timed copy of `bytes` bytes to or from `device`. */
  add(device: number, seconds: number, bytes: number): void {
    this.#seconds[device] = this.#seconds[device]! + seconds;
    this.#bytes[device] = this.#bytes[device]! + bytes;
  }

  /** Seconds per byte per device: measured where something was copied, else `fallback`'s. */
  secondsPerByte(fallback: readonly number[]): number[] {
    return fallback.map((f, d) => (this.#bytes[d]! > 0 ? this.#seconds[d]! / this.#bytes[d]! : f));
  }
}

/** Milliseconds of a clock. */
type Clock = () => number;

/** Wall-clock milliseconds. */
const wallClock: Clock = () => performance.now();

/**
 * Milliseconds of CPU time this process has used (user and system, all its threads): the clock of
 * the single-thread real mode, where every copy and sub-kernel runs on the main thread and no
 * device thread exists. On a machine shared with other work, the wall clock also counts the time
 * the OS gave other processes in the middle of a sub-kernel; a dedicated device would not have
 * lost it, and the LP would read it as that device being slower.
 */
const cpuClock: Clock = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Busy-waits until `clock()` reaches `until` (ms): a throttled device's extra time. */
function spinUntil(clock: Clock, until: number): void {
  while (clock() < until) {
    // spin
  }
}

function checkRatios(ratios: number[][], shape: SequenceShape, who: string): void {
  if (ratios.length !== shape.kernels || ratios.some((r) => r.length !== shape.devices))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `strategy ${who} answered ${ratios.length} x ${ratios[0]?.length ?? 0} ratios for ${shape.kernels} kernels on ${shape.devices} devices`,
    );
}

/** Runs `iterations` iterations of the sequence split over the devices; see the file comment. */
export function runPartitioned(o: PartitionRunOptions): PartitionRunResult {
  const t0 = performance.now();
  const { sequence, platform, devices, strategy } = o;
  const mode = parseRunMode(o.mode ?? 'simulated', 'mode');
  const slow = o.slowDevice ?? -1;
  const slowdown = o.slowdown ?? 1;
  if (!Number.isInteger(o.iterations) || o.iterations < 1)
    throw new LocusError('LOCUS_OPTION_INVALID', `iterations must be an integer >= 1 (got ${o.iterations})`);
  if (!(slowdown >= 1) || !Number.isFinite(slowdown))
    throw new LocusError('LOCUS_OPTION_INVALID', `slowdown must be a number >= 1 (got ${slowdown})`);
  if (slow !== -1 && !(Number.isInteger(slow) && slow >= 0 && slow < devices.length))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `slow device ${slow} is not one of the ${devices.length} devices`,
    );
  const threaded = mode === 'real' && (o.threads ?? sequence.source !== undefined);
  const clock: Clock = mode === 'real' && !threaded ? cpuClock : wallClock;
  if (threaded && !sequence.source)
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `sequence ${sequence.name} has no source (module, export, arguments): it cannot run on device threads; run it with threads: false`,
    );
  const shape = sequenceShape(sequence, platform, devices);
  // Real mode: the copies measured so far give the strategies' Omega_d (BusCalibration).
  const bus = { h2d: new BusCalibration(devices.length), d2h: new BusCalibration(devices.length) };
  const calibrated = (): SequenceShape => ({
    ...shape,
    hostToDeviceSecondsPerByte: bus.h2d.secondsPerByte(shape.hostToDeviceSecondsPerByte),
    deviceToHostSecondsPerByte: bus.d2h.secondsPerByte(shape.deviceToHostSecondsPerByte),
  });
  const n = devices.length;
  const lengths = new Map(sequence.buffers.map((b) => [b.name, b.init.length]));
  const elemBytes = new Map(sequence.buffers.map((b) => [b.name, b.init.BYTES_PER_ELEMENT]));
  const mem = new Memories(sequence.buffers, n, threaded);
  const valid = new Validity(lengths, n);
  const read = (buffer: string, i: number) => mem.of(valid.holderOf(buffer, i))[buffer]![i]!;
  const lengthOf = (buffer: string) => lengths.get(buffer)!;
  const bytesOf = (buffer: string, s: IntervalSet) => s.size * elemBytes.get(buffer)!;
  const factor = (d: number) => (d === slow ? slowdown : 1);
  const timedCopy = (buffer: string, set: IntervalSet, from: number, to: number): number => {
    const c0 = clock();
    mem.copy(buffer, set, from, to);
    const f = Math.max(factor(from), factor(to));
    if (f > 1) spinUntil(clock, c0 + (clock() - c0) * f);
    return (clock() - c0) / 1000;
  };

  let ratios = strategy.initial(shape);
  checkRatios(ratios, shape, strategy.name);
  const threads = threaded
    ? new DeviceThreads(
        sequence.source!,
        mem.devices,
        devices.map((_, d) => factor(d)),
      )
    : undefined;
  try {
    return runIterations();
  } finally {
    threads?.close();
  }

  function runIterations(): PartitionRunResult {
    const out: PartitionIteration[] = [];
    for (let it = 0; it < o.iterations; it++) {
      const hostAtStart = new Map([...lengths.keys()].map((b) => [b, valid.onHost(b)]));
      const seconds = sequence.kernels.map(() => devices.map(() => 0));
      const transfers = new Map<string, TransferObservation>();
      const subs: SimSubKernel[] = [];
      // The ratios the sub-kernels ran with once rounded to whole work-groups (libsplit's
      // real_granu_dscr, which its MKGR scheduler hands the solver, not the requested ones):
      // f_d^k = time / (ng * x) with the requested x misreads a rounded sub-range's time.
      const realized: number[][] = [];
      const realDevice = devices.map(() => 0);
      let realTotal = 0;
      let bytes = 0;
      const note = (t: Omit<TransferObservation, 'bytes'>, b: number) => {
        const k = `${t.producer},${t.consumer},${t.device},${t.direction}`;
        const prev = transfers.get(k);
        transfers.set(k, { ...t, bytes: (prev?.bytes ?? 0) + b });
        bytes += b;
      };
      sequence.kernels.forEach((kernel, k) => {
        const ranges = splitRange(kernel.workGroups, ratios[k]!);
        realized.push(ranges.map(([lo, hi]) => (hi - lo) / kernel.workGroups));
        const plans: TransferPlan[] = [];
        const writes: { buffer: string; set: IntervalSet }[][] = [];
        // Instantiate every sub-kernel's regions before any of them runs (they see the same state).
        const reads = ranges.map(([lo, hi]) =>
          kernel.accesses
            .filter((a) => a.read?.length)
            .map((a) => ({
              buffer: a.buffer,
              set: instantiate(a.read!, lo, hi, lengthOf(a.buffer), read, lengthOf),
            })),
        );
        for (const [lo, hi] of ranges)
          writes.push(
            kernel.accesses
              .filter((a) => a.write?.length)
              .map((a) => ({
                buffer: a.buffer,
                set: instantiate(a.write!, lo, hi, lengthOf(a.buffer), read, lengthOf),
              })),
          );
        const d2hTime = devices.map(() => 0);
        const h2dTime = devices.map(() => 0);
        for (let d = 0; d < n; d++) {
          const plan: TransferPlan = { d2h: [], h2d: [] };
          for (const r of reads[d]!) valid.fetch(r.buffer, d, r.set, plan);
          plans.push(plan);
          for (const c of plan.d2h) {
            const t = timedCopy(c.buffer, c.set, c.from, -1);
            d2hTime[c.from] = d2hTime[c.from]! + t;
            note(
              { producer: c.writer.kernel, consumer: k, device: c.from, direction: 'd2h' },
              bytesOf(c.buffer, c.set),
            );
            bus.d2h.add(c.from, t, bytesOf(c.buffer, c.set));
          }
          for (const c of plan.h2d) {
            const t = timedCopy(c.buffer, c.set, -1, d);
            h2dTime[d] = h2dTime[d]! + t;
            note(
              { producer: c.writer.kernel, consumer: k, device: d, direction: 'h2d' },
              bytesOf(c.buffer, c.set),
            );
            bus.h2d.add(d, t, bytesOf(c.buffer, c.set));
          }
        }
        let run = devices.map(() => 0);
        let computeWall = 0;
        if (threads) {
          const r = threads.run(k, ranges);
          run = r.seconds;
          computeWall = r.wall;
        }
        ranges.forEach(([lo, hi], d) => {
          if (hi <= lo) return;
          const dm = mem.of(d);
          if (!threads) {
            const c0 = clock();
            kernel.run(dm, lo, hi);
            if (factor(d) > 1) spinUntil(clock, c0 + (clock() - c0) * factor(d));
            run[d] = (clock() - c0) / 1000;
          }
          for (const w of writes[d]!)
            valid.wrote(w.buffer, d, w.set, { kernel: k, device: d, iteration: it });
          if (mode === 'real') {
            seconds[k]![d] = run[d]!;
            return;
          }
          const work = kernel.work(dm, lo, hi);
          // Group what the sub-kernel receives by where the bytes are when the iteration starts.
          const groups = new Map<string, Fragment>();
          const add = (key: string, source: Fragment['source'], b: number) => {
            if (b > 0) groups.set(key, { source, bytes: (groups.get(key)?.bytes ?? 0) + b });
          };
          for (const c of plans[d]!.h2d) {
            const w = c.writer;
            if (w.iteration === it)
              add(
                `t${w.kernel}.${w.device}`,
                { kind: 'task', kernel: w.kernel, device: w.device },
                bytesOf(c.buffer, c.set),
              );
            else {
              const onHost = c.set.intersect(hostAtStart.get(c.buffer)!);
              add('host', { kind: 'host' }, bytesOf(c.buffer, onHost));
              add(
                `o${w.device}`,
                { kind: 'origin', device: w.device },
                bytesOf(c.buffer, c.set.minus(onHost)),
              );
            }
          }
          subs.push({
            kernel: k,
            device: d,
            codelet: kernel.codelet,
            seconds:
              launchSeconds(platform, devices[d]!) + work / deviceRate(platform, devices[d]!, kernel.codelet),
            fragments: [...groups.values()],
          });
        });
        if (mode === 'real') {
          realTotal +=
            Math.max(...d2hTime) + Math.max(...h2dTime) + (threads ? computeWall : Math.max(...run));
          for (let d = 0; d < n; d++) realDevice[d] = realDevice[d]! + d2hTime[d]! + h2dTime[d]! + run[d]!;
        }
      });
      let iterSeconds = realTotal;
      let deviceSeconds = realDevice;
      if (mode === 'simulated') {
        const r = simulateIteration(platform, devices, sequence.kernels.length, subs);
        iterSeconds = r.seconds;
        deviceSeconds = r.deviceSeconds;
        for (let k = 0; k < seconds.length; k++) seconds[k] = r.subKernelSeconds[k]!;
      }
      const observation: IterationObservation = {
        iteration: it,
        ratios: realized,
        workGroups: sequence.kernels.map((k) => k.workGroups),
        seconds,
        transfers: [...transfers.values()],
      };
      let solveSeconds = 0;
      if (it + 1 < o.iterations) {
        const decision = strategy.next(mode === 'real' ? calibrated() : shape, observation);
        checkRatios(decision.ratios, shape, strategy.name);
        ratios = decision.ratios;
        solveSeconds = decision.solveSeconds;
      }
      out.push({ observation, seconds: iterSeconds, deviceSeconds, bytes, solveSeconds });
    }
    const last: TransferPlan = { d2h: [], h2d: [] };
    valid.gather(last);
    for (const c of last.d2h) mem.copy(c.buffer, c.set, c.from, -1);
    return { iterations: out, buffers: mem.host, wallSeconds: (performance.now() - t0) / 1000 };
  }
}

/** Runs the sequence unsplit, kernel after kernel on one copy of the buffers: the reference result. */
export function runSequential(
  sequence: KernelSequence,
  iterations: number,
): Record<string, Float64Array | Int32Array> {
  const mem = new Memories(sequence.buffers, 0).host;
  for (let it = 0; it < iterations; it++) for (const k of sequence.kernels) k.run(mem, 0, k.workGroups);
  return mem;
}
