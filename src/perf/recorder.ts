/**
 * Collects the measured duration of every task of a real run as performance-model samples
 * (codelet, worker kind, data footprint, flop count, seconds): the real driver reports each
 * task's start and end as measured by its worker thread. The runtime saves them into the
 * model store after the run, so real runs keep the models up to date (seed 001 III.B: models
 * are auto-tuned by execution).
 */
import type { EngineObserver } from '../core/engine.ts';
import type { TaskGraph } from '../core/graph.ts';
import { growF64 } from '../core/growable.ts';
import type { Platform } from '../core/platform.ts';
import type { Sample } from './history.ts';
import { footprintOf, sizeOf } from './model.ts';

/** A task observer that turns task times into samples. */
export class SampleRecorder implements EngineObserver {
  /** The samples of the tasks finished so far. */
  readonly samples: Sample[] = [];
  private started: Float64Array<ArrayBuffer>;
  private lastTask = -1;

  constructor(
    private readonly graph: TaskGraph,
    private readonly platform: Platform,
    /** Which tasks to record (default all; the runtime skips tasks without a kernel). */
    private readonly include: (task: number) => boolean = () => true,
  ) {
    this.started = new Float64Array(graph.taskCount);
  }

  grow(tasks: number): void {
    this.started = growF64(this.started, tasks);
  }

  /** The engine recycled tasks [0, k): the start times shift down with their ids. */
  rebase(k: number): void {
    this.started.copyWithin(0, k);
    this.lastTask = this.lastTask >= k ? this.lastTask - k : -1;
  }

  taskStarted(task: number, _worker: number, now: number): void {
    if (task >= this.started.length)
      this.started = growF64(this.started, Math.max(task + 1, 2 * this.started.length));
    this.started[task] = now;
  }

  /** A failed task's time measures nothing about its codelet: drop the sample just taken. */
  taskFailed(task: number): void {
    const last = this.samples.length - 1;
    if (last >= 0 && this.lastTask === task) this.samples.length = last;
  }

  taskFinished(task: number, worker: number, now: number): void {
    this.lastTask = -1;
    if (!this.include(task)) return;
    const g = this.graph;
    this.samples.push({
      codelet: g.codelets[g.taskCodelet.data[task]!]!.name,
      kind: this.platform.workers[worker]!.kind === 'gpu' ? 'gpu' : 'cpu',
      footprint: footprintOf(g, task),
      size: sizeOf(g, task),
      seconds: now - this.started[task]!,
    });
    this.lastTask = task;
  }
}
