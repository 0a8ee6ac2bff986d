/**
 * A duration model from calibrated performance models (seed 001 section III.B): for each task
 * and worker kind, the history model's mean for the task's codelet and data footprint when
 * it was measured; otherwise the codelet's regression over its measured footprints (the power
 * law a n^b + c with three footprints or more, the line a n + b with two, the one measured
 * rate scaled by the flop count with one); otherwise the platform's figures. Transfers use
 * the calibrated bus of the machine when there is one.
 *
 * Every task's estimate per worker kind is computed once, when the model is built for a
 * graph, so a scheduler's lookup is one array read.
 */
import type { TaskGraph } from '../core/graph.ts';
import { type DurationModel, PlatformModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { HistoryEntry, HistoryModel } from './history.ts';
import { evalLinear, evalPower, fitFromHistory } from './regression.ts';

/** A calibrated bus: bandwidth and latency per ordered pair of memory-node names. */
export interface BusPair {
  src: string;
  dst: string;
  bandwidth: number;
  latency: number;
  samples: number;
}

/** How a task's data sizes are keyed in the history (StarPU's footprint). */
export function footprintOf(graph: TaskGraph, task: number): string {
  const parts: number[] = [];
  const aEnd = graph.accessStart.data[task + 1]!;
  for (let a = graph.accessStart.data[task]!; a < aEnd; a++) {
    parts.push(graph.handleSize.data[graph.accessHandle.data[a]!]!);
  }
  return parts.join(',');
}

/** The regression variable of a task: its flop count, or its bytes when it has no flops. */
export function sizeOf(graph: TaskGraph, task: number): number {
  const f = graph.taskFlops.data[task]!;
  if (f > 0) return f;
  let bytes = 0;
  const aEnd = graph.accessStart.data[task + 1]!;
  for (let a = graph.accessStart.data[task]!; a < aEnd; a++) {
    bytes += graph.handleSize.data[graph.accessHandle.data[a]!]!;
  }
  return bytes;
}

/** Options of a calibrated model. */
export interface CalibratedModelOptions {
  /** Samples a (codelet, kind, footprint) needs to count as calibrated (default 10). */
  minSamples?: number;
}

/** Where an estimate came from, per task and worker kind (for reports and tests). */
export const Source = { HISTORY: 0, REGRESSION: 1, PLATFORM: 2 } as const;

/** Durations from the history and regression models, falling back on the platform. */
export class CalibratedModel implements DurationModel {
  private readonly fallback: PlatformModel;
  /** estimate[task * 2 + kind] (kind 0 = cpu, 1 = gpu), seconds; NaN: use the fallback. */
  private estimate = new Float64Array(0);
  /** 1 where the (codelet, kind, footprint) of the task has fewer samples than minSamples. */
  private uncalibrated = new Uint8Array(0);
  /** Per task and kind: its (codelet, kind, footprint) slot. */
  private slot = new Int32Array(0);
  /**
   * Per slot: measurements still wanted in this graph. The model's estimates are fixed for a
   * graph, so it tells the scheduler to send a slot's tasks for measurement only this many
   * times, not every task of the graph (StarPU's models update as tasks end).
   */
  private budget: number[] = [];
  /**
   * Per slot: its (codelet, kind, footprint) and its measurements when its budget was last set,
   * to re-read them once the budget is spent.
   */
  private readonly slotKey: { codelet: string; kind: 'cpu' | 'gpu'; footprint: string; count: number }[] = [];
  /** Source of each estimate (Source), per task and kind. */
  source = new Uint8Array(0);
  /** Tasks whose estimates are computed (those submitted later are computed on first use). */
  private computed = 0;
  private readonly workerKind: Uint8Array;
  private readonly nodes: number;
  private readonly busLatency: Float64Array;
  private readonly busBandwidth: Float64Array;
  private readonly minSamples: number;
  private readonly cache = new Map<
    string,
    { seconds: number; source: number; calibrated: boolean; missing: number; slot: number }
  >();
  private readonly fits = new Map<string, ReturnType<typeof fitFromHistory> & { entries: HistoryEntry[] }>();

  constructor(
    platform: Platform,
    private readonly graph: TaskGraph,
    private readonly history: HistoryModel,
    bus?: readonly BusPair[],
    options: CalibratedModelOptions = {},
  ) {
    this.minSamples = options.minSamples ?? 10;
    this.fallback = new PlatformModel(platform, graph);
    this.workerKind = Uint8Array.from(platform.workers, (w) => (w.kind === 'gpu' ? 1 : 0));
    this.extend();
    const nn = platform.nodes.length;
    this.nodes = nn;
    this.busLatency = new Float64Array(nn * nn).fill(Number.NaN);
    this.busBandwidth = new Float64Array(nn * nn).fill(Number.NaN);
    const index = new Map(platform.nodes.map((n, i) => [n.name, i]));
    for (const pair of bus ?? []) {
      const s = index.get(pair.src);
      const d = index.get(pair.dst);
      if (s === undefined || d === undefined) continue;
      this.busLatency[s * nn + d] = pair.latency;
      this.busBandwidth[s * nn + d] = pair.bandwidth;
    }
  }

  private fitFor(codelet: string, kind: 'cpu' | 'gpu') {
    const key = `${codelet}|${kind}`;
    let f = this.fits.get(key);
    if (f === undefined) {
      const entries = this.history.entries(codelet).filter((e) => e.kind === kind && e.count > 0);
      let fit: ReturnType<typeof fitFromHistory> = {};
      try {
        fit = fitFromHistory(entries);
      } catch {
        // too few distinct sizes: the one-rate scaling below applies
      }
      f = { ...fit, entries };
      this.fits.set(key, f);
    }
    return f;
  }

  /** Computes the estimates of the tasks submitted since the last call. */
  private extend(): void {
    const graph = this.graph;
    const T = graph.taskCount;
    if (T <= this.computed) return;
    let cap = Math.max(16, this.estimate.length / 2);
    while (cap < T) cap *= 2;
    if (2 * cap > this.estimate.length) {
      const grow = <A extends Float64Array | Uint8Array | Int32Array>(
        a: A,
        make: (n: number) => A,
        fill?: number,
      ): A => {
        const b = make(2 * cap);
        if (fill !== undefined) b.fill(fill);
        b.set(a as never);
        return b;
      };
      this.estimate = grow(this.estimate, (n) => new Float64Array(n), Number.NaN);
      this.uncalibrated = grow(this.uncalibrated, (n) => new Uint8Array(n));
      this.slot = grow(this.slot, (n) => new Int32Array(n));
      this.source = grow(this.source, (n) => new Uint8Array(n), Source.PLATFORM);
    }
    const kinds = ['cpu', 'gpu'] as const;
    const minSamples = this.minSamples;
    for (let t = this.computed; t < T; t++) {
      const codelet = graph.codelets[graph.taskCodelet.data[t]!]!.name;
      const footprint = footprintOf(graph, t);
      const size = sizeOf(graph, t);
      for (let k = 0; k < 2; k++) {
        const kind = kinds[k]!;
        const key = `${codelet}|${kind}|${footprint}|${size}`;
        let e = this.cache.get(key);
        if (e === undefined) {
          const slot = this.cache.size;
          e = { seconds: Number.NaN, source: Source.PLATFORM, calibrated: false, missing: minSamples, slot };
          const h = this.history.entry(codelet, kind, footprint);
          if (h !== undefined && h.count > 0) {
            const missingSamples = Math.max(0, minSamples - h.count);
            e = {
              seconds: h.mean,
              source: Source.HISTORY,
              calibrated: missingSamples === 0,
              missing: missingSamples,
              slot,
            };
          } else {
            const f = this.fitFor(codelet, kind);
            let s = Number.NaN;
            if (f.power) s = evalPower(f.power, size);
            else if (f.linear) s = evalLinear(f.linear, size);
            else if (f.entries.length === 1 && f.entries[0]!.size > 0) {
              s = (f.entries[0]!.mean * size) / f.entries[0]!.size;
            }
            if (Number.isFinite(s) && s > 0) e = { ...e, seconds: s, source: Source.REGRESSION };
          }
          this.cache.set(key, e);
          this.budget.push(e.missing);
          this.slotKey.push({ codelet, kind, footprint, count: h?.count ?? 0 });
        }
        this.estimate[2 * t + k] = e.seconds;
        this.source[2 * t + k] = e.source;
        this.uncalibrated[2 * t + k] = e.calibrated ? 0 : 1;
        this.slot[2 * t + k] = e.slot;
      }
    }
    this.computed = T;
  }

  taskDuration(graph: TaskGraph, task: number, worker: number): number {
    if (task >= this.computed) this.extend();
    const e = this.estimate[2 * task + this.workerKind[worker]!]!;
    return Number.isNaN(e) ? this.fallback.taskDuration(graph, task, worker) : e;
  }

  /**
   * True when nothing measured gives an estimate of the task on this worker's kind (only the
   * platform's rates), or, when `calibrating`, when its (codelet, kind, footprint) has fewer
   * than minSamples measurements; at most the missing number of times per (codelet, kind,
   * footprint) and graph (each true answer counts as one measurement on its way).
   */
  needsCalibration(_graph: TaskGraph, task: number, worker: number, calibrating = false): boolean {
    if (task >= this.computed) this.extend();
    const i = 2 * task + this.workerKind[worker]!;
    const wanted = calibrating ? this.uncalibrated[i] === 1 : this.source[i] === Source.PLATFORM;
    if (!wanted) return false;
    const slot = this.slot[i]!;
    if (this.budget[slot]! <= 0) {
      // Spent. A task counted here may have gone to another worker kind that also wanted
      // measurements: once the runtime has saved new samples into the history (at a wait()),
      // the budget is what the history still lacks, so that a calibration of several rounds on
      // one engine converges; without new samples the budget stays spent.
      const k = this.slotKey[slot]!;
      const count = this.history.entry(k.codelet, k.kind, k.footprint)?.count ?? 0;
      if (count <= k.count || count >= this.minSamples) return false;
      k.count = count;
      this.budget[slot] = this.minSamples - count;
    }
    this.budget[slot]!--;
    return true;
  }

  transferTime(src: number, dst: number, bytes: number): number {
    const r = src * this.nodes + dst;
    const bw = this.busBandwidth[r]!;
    return Number.isNaN(bw) ? this.fallback.transferTime(src, dst, bytes) : this.busLatency[r]! + bytes / bw;
  }
}
