/**
 * Duration models: how long a task takes on a worker and a copy takes between two nodes.
 * The platform model below derives both from the platform's figures (flop rates, link
 * bandwidths and latencies); src/perf adds calibrated history and regression models behind
 * the same interface. Schedulers see estimates through it; the simulator also uses it for
 * the durations it simulates.
 */
import { type FootprintRule, footprintDuration } from './footprint.ts';
import type { TaskGraph } from './graph.ts';
import { type Platform, routeOf, workerRate } from './platform.ts';

/** Estimates durations in seconds. */
export interface DurationModel {
  /** Duration of `task` on `worker`. */
  taskDuration(graph: TaskGraph, task: number, worker: number): number;
  /** Duration of a copy of `bytes` from node src to node dst over their direct route, alone. */
  transferTime(src: number, dst: number, bytes: number): number;
  /**
   * Optional: true when `task` must be measured on `worker`'s kind: it has no estimate at all
   * (nothing measured for its codelet there, so only the platform's rates), or, when
   * `calibrating`, fewer measurements than the model requires. dm* schedulers send such tasks
   * there, as StarPU's do with uncalibrated models (src/perf).
   */
  needsCalibration?(graph: TaskGraph, task: number, worker: number, calibrating: boolean): boolean;
}

/**
 * Durations from the platform's figures: the worker's footprint rules for the codelet when one
 * matches the task (src/core/footprint.ts), otherwise flops over the worker's rate for it.
 */
export class PlatformModel implements DurationModel {
  private rates: Float64Array;
  /** rules[codelet * workers + worker]: that worker's footprint rules for the codelet, if any. */
  private rules: (readonly FootprintRule[] | undefined)[] = [];
  private codeletCount = 0;
  private readonly nodes: number;
  private readonly routeLatency: Float64Array;
  private readonly routeBandwidth: Float64Array;

  constructor(
    private readonly platform: Platform,
    graph: TaskGraph,
  ) {
    // rates[codelet * workers + worker]: flop/s, precomputed so an estimate is two loads.
    // Per direct route: summed latency and bottleneck bandwidth (as soloTransferTime, but
    // precomputed since schedulers ask per task per worker; Infinity without a route).
    this.nodes = platform.nodes.length;
    const nn = this.nodes;
    this.routeLatency = new Float64Array(nn * nn);
    this.routeBandwidth = new Float64Array(nn * nn);
    for (let src = 0; src < nn; src++) {
      for (let dst = 0; dst < nn; dst++) {
        const r = src * nn + dst;
        const route = routeOf(platform, src, dst);
        let latency = route ? 0 : Number.POSITIVE_INFINITY;
        let bandwidth = Number.POSITIVE_INFINITY;
        for (const l of route ?? []) {
          latency += platform.links[l]!.latency;
          bandwidth = Math.min(bandwidth, platform.links[l]!.bandwidth);
        }
        this.routeLatency[r] = latency;
        this.routeBandwidth[r] = bandwidth;
      }
    }
    this.rates = new Float64Array(0);
    this.addCodelets(graph);
  }

  /** Reads the rates of codelets registered since the last look (dynamic submission). */
  private addCodelets(graph: TaskGraph): void {
    const nw = this.platform.workers.length;
    const n = graph.codelets.length;
    const rates = new Float64Array(n * nw);
    rates.set(this.rates);
    for (let c = this.codeletCount; c < n; c++) {
      const name = graph.codelets[c]!.name;
      for (let w = 0; w < nw; w++) {
        const worker = this.platform.workers[w]!;
        rates[c * nw + w] = workerRate(worker, name);
        const rules = worker.codeletModels?.[name];
        this.rules[c * nw + w] = rules !== undefined && rules.length > 0 ? rules : undefined;
      }
    }
    this.rates = rates;
    this.codeletCount = n;
  }

  taskDuration(graph: TaskGraph, task: number, worker: number): number {
    const c = graph.taskCodelet.data[task]!;
    if (c >= this.codeletCount) this.addCodelets(graph);
    const slot = c * this.platform.workers.length + worker;
    const rules = this.rules[slot];
    if (rules !== undefined) {
      const d = footprintDuration(graph, task, rules);
      if (!Number.isNaN(d)) return d; // a rule matched
    }
    return graph.taskFlops.data[task]! / this.rates[slot]!;
  }

  transferTime(src: number, dst: number, bytes: number): number {
    const r = src * this.nodes + dst;
    return this.routeLatency[r]! + bytes / this.routeBandwidth[r]!;
  }
}
