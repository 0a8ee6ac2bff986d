/**
 * Duration models: how long a task takes on a worker and a copy takes between two nodes.
 * The platform model below derives both from the platform's figures (flop rates, link
 * bandwidths and latencies); src/perf adds calibrated history and regression models behind
 * the same interface. Schedulers see estimates through it; the simulator also uses it for
 * the durations it simulates.
 */
import type { TaskGraph } from './graph.ts';
import { type Platform, soloTransferTime, workerRate } from './platform.ts';

/** Estimates durations in seconds. */
export interface DurationModel {
  /** Duration of `task` on `worker`. */
  taskDuration(graph: TaskGraph, task: number, worker: number): number;
  /** Duration of a copy of `bytes` from node src to node dst over their direct route, alone. */
  transferTime(src: number, dst: number, bytes: number): number;
}

/** Durations from the platform's figures: flops over the worker's rate for the codelet. */
export class PlatformModel implements DurationModel {
  private readonly rates: Float64Array;
  private readonly codeletCount: number;

  constructor(
    private readonly platform: Platform,
    graph: TaskGraph,
  ) {
    // rates[codelet * workers + worker]: flop/s, precomputed so an estimate is two loads.
    this.codeletCount = graph.codelets.length;
    const nw = platform.workers.length;
    this.rates = new Float64Array(this.codeletCount * nw);
    for (let c = 0; c < this.codeletCount; c++) {
      for (let w = 0; w < nw; w++)
        this.rates[c * nw + w] = workerRate(platform.workers[w]!, graph.codelets[c]!.name);
    }
  }

  taskDuration(graph: TaskGraph, task: number, worker: number): number {
    const c = graph.taskCodelet.data[task]!;
    const rate = this.rates[c * this.platform.workers.length + worker]!;
    return graph.taskFlops.data[task]! / rate;
  }

  transferTime(src: number, dst: number, bytes: number): number {
    return soloTransferTime(this.platform, src, dst, bytes);
  }
}
