/**
 * One iteration of a split sequence timed by Locus's simulator (engine, simulated backend,
 * platform model), so that per-device rates, bus contention and routes count.
 *
 * Design: the runner has already decided, with libsplit's bookkeeping (validity.ts), which
 * intervals each sub-kernel must receive and who last wrote them. Each iteration becomes one
 * small task graph:
 * - one task per non-empty sub-kernel, pinned to its device's worker (PinnedScheduler); its
 *   duration is the work in its sub-range (non-zeros, neighbour pairs, ...) over the device's
 *   rate for the kernel's codelet (devices.ts);
 * - every group of intervals a sub-kernel receives from one source is a fresh handle of exactly
 *   those bytes, whose only valid copy is where the bytes are when the iteration starts:
 *   - valid on the host then: a handle at home, valid there from the start;
 *   - written earlier in this iteration by sub-kernel (h, d2): a handle that task writes, so the
 *     copy starts when the producer ends and follows the platform's route from d2 (through the
 *     host, or peer to peer where the platform has such links);
 *   - left on device d2 by an earlier iteration: a handle written by a zero-time origin task
 *     pinned to d2 at the start of the iteration;
 * - a one-byte chain handle per device, read-written by each of its sub-kernels in kernel
 *   order, keeps a device's sub-kernels in sequence order (an in-order OpenCL queue).
 * The engine then moves every fragment over the links (sharing buses, one stream per pair of
 * nodes) and the makespan is the iteration's time; each sub-kernel's measured time is its task
 * time. Iterations are separate graphs, as the seed's runtime computes the next partitioning
 * between iterations.
 *
 * One difference with the bookkeeping: when two devices need the same intervals from a third,
 * libsplit brings them to the host once and sends them twice; here each receiver's fragment is
 * its own handle, so the engine may bring them to the host twice (the byte counts reported
 * are libsplit's).
 */
import type { TaskGraph } from '../core/graph.ts';
import { TaskGraph as Graph } from '../core/graph.ts';
import { type DurationModel, PlatformModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { SchedContext, Scheduler } from '../core/policy.ts';
import { AccessMode } from '../core/types.ts';
import { createEviction } from '../evict/index.ts';
import { Simulator } from '../sim/simulator.ts';
import type { PartitionDevice } from './devices.ts';

/** Where a fragment's bytes are when the iteration starts. */
export type FragmentSource =
  | { readonly kind: 'host' }
  | { readonly kind: 'task'; readonly kernel: number; readonly device: number }
  | { readonly kind: 'origin'; readonly device: number };

/** One fragment a sub-kernel receives. */
export interface Fragment {
  readonly source: FragmentSource;
  readonly bytes: number;
}

/** One sub-kernel to simulate. */
export interface SimSubKernel {
  readonly kernel: number;
  readonly device: number;
  readonly codelet: string;
  /** Compute seconds (work / rate). */
  readonly seconds: number;
  /** What it receives, grouped by source. */
  readonly fragments: readonly Fragment[];
}

/** What the simulated iteration measured. */
export interface SimIterationResult {
  /** Makespan in simulated seconds. */
  readonly seconds: number;
  /** Task time of each sub-kernel, `[kernel][device]` (0 when it had no work-group). */
  readonly subKernelSeconds: number[][];
  /** Per device: when its last sub-kernel ended (its time in the iteration). */
  readonly deviceSeconds: number[];
}

/** Runs each task on the worker it is pinned to, in submission order. */
class PinnedScheduler implements Scheduler {
  readonly name = 'partition-pinned';
  private queues: number[][] = [];
  constructor(private readonly pins: Map<number, number>) {}
  init(ctx: SchedContext): void {
    this.queues = ctx.platform.workers.map(() => []);
  }
  push(task: number): void {
    this.queues[this.pins.get(task)!]!.push(task);
  }
  pop(worker: number): number {
    return this.queues[worker]!.shift() ?? -1;
  }
}

/** Task durations given per task; copies from the platform's figures. */
class FixedDurations implements DurationModel {
  constructor(
    private readonly durations: Map<number, number>,
    private readonly links: PlatformModel,
  ) {}
  taskDuration(_graph: TaskGraph, task: number): number {
    return this.durations.get(task) ?? 0;
  }
  transferTime(src: number, dst: number, bytes: number): number {
    return this.links.transferTime(src, dst, bytes);
  }
}

function key(s: FragmentSource): string {
  return s.kind === 'host' ? 'host' : s.kind === 'task' ? `t${s.kernel}.${s.device}` : `o${s.device}`;
}

/** Simulates one iteration's sub-kernels (in sequence order) on `platform`. */
export function simulateIteration(
  platform: Platform,
  devices: readonly PartitionDevice[],
  kernels: number,
  subs: readonly SimSubKernel[],
): SimIterationResult {
  const graph = new Graph();
  const codelet = graph.addCodelet({ name: 'sub-kernel', kinds: ['cpu', 'gpu'] });
  const pins = new Map<number, number>();
  const durations = new Map<number, number>();
  const chain = devices.map((d) => graph.addHandle(1, { name: `chain:${d.name}` }));
  // Handles of fragments produced by tasks, created up front: producer key -> handles it writes.
  const produced = new Map<string, number[]>();
  const reads: number[][] = [];
  for (const s of subs) {
    const mine: number[] = [];
    for (const f of s.fragments) {
      const h = graph.addHandle(Math.max(1, f.bytes), { name: `k${s.kernel}d${s.device}<-${key(f.source)}` });
      mine.push(h);
      if (f.source.kind !== 'host') {
        const k = key(f.source);
        if (!produced.has(k)) produced.set(k, []);
        produced.get(k)!.push(h);
      }
    }
    reads.push(mine);
  }
  devices.forEach((dev, d) => {
    const writes = produced.get(`o${d}`);
    if (!writes) return;
    const t = graph.submit(
      codelet,
      writes.map((h) => [h, AccessMode.W] as const),
      { name: `origin:${dev.name}` },
    );
    pins.set(t, dev.worker);
    durations.set(t, 0);
  });
  const taskOf = new Map<number, { kernel: number; device: number }>();
  subs.forEach((s, i) => {
    const dev = devices[s.device]!;
    const acc: [number, AccessMode][] = [[chain[s.device]!, AccessMode.RW]];
    for (const h of reads[i]!) acc.push([h, AccessMode.R]);
    for (const h of produced.get(`t${s.kernel}.${s.device}`) ?? []) acc.push([h, AccessMode.W]);
    const t = graph.submit(codelet, acc, { name: `${s.codelet}@${dev.name}` });
    pins.set(t, dev.worker);
    durations.set(t, s.seconds);
    taskOf.set(t, { kernel: s.kernel, device: s.device });
  });
  const sim = new Simulator({
    graph,
    platform,
    scheduler: new PinnedScheduler(pins),
    eviction: createEviction('lru'),
    model: new FixedDurations(durations, new PlatformModel(platform, graph)),
    flushAtEnd: false,
  });
  const subKernelSeconds = Array.from({ length: kernels }, () => devices.map(() => 0));
  const deviceSeconds = devices.map(() => 0);
  const started = new Map<number, number>();
  sim.engine.observe({
    taskStarted(task: number, _w: number, now: number) {
      started.set(task, now);
    },
    taskFinished(task: number, _w: number, now: number) {
      const s = taskOf.get(task);
      if (!s) return;
      subKernelSeconds[s.kernel]![s.device] = now - started.get(task)!;
      deviceSeconds[s.device] = Math.max(deviceSeconds[s.device]!, now);
    },
  });
  const r = sim.run();
  return { seconds: r.makespanS, subKernelSeconds, deviceSeconds };
}
