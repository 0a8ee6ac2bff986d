/**
 * hfp out of core (issue 30): host memory as the GPUs' staging level. With a disk below host
 * memory, a GPU's load of a datum only the disk holds is two copies, disk to host then host to
 * GPU, made when the GPU's lookahead buffer asks for it. hfp knows each GPU's future (its plan,
 * in order: Scheduler.plannedTasks), so it reads ahead from the disk into host memory the inputs
 * of the next `window` planned tasks of every GPU that are neither on that GPU nor in host
 * memory, nearest first, GPU by GPU in turn: the disk reads then overlap the GPUs' work and the
 * bus's copies instead of coming in front of them. A read may evict from host memory, through
 * the run's eviction policy, only data none of those windows reads (seed 001's rule for
 * prefetches: never keep pending tasks from running); the windows' data count against host
 * memory, and a GPU's window stops where they would exceed it, so the reads never push out what
 * the nearer tasks need. A refused read stops that GPU's walk until the next call.
 *
 * It runs after each GPU pop and each task's end. Cost per call: O(GPUs x window x inputs) plus
 * the eviction policy's victim search per read. Without a disk hfp makes none of this.
 */
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';
import { diskNodeOf } from '../../platform/disk.ts';

/** Planned tasks of a GPU worker yet to be popped, in the order they will be. */
export type PlannedOf = (worker: number) => Iterable<number>;

/** hfp's reads ahead from the disk into host memory for its GPUs' plans. */
export class HostStaging {
  private readonly ctx: SchedContext;
  private readonly planned: PlannedOf;
  private readonly window: number;
  private readonly host: number;
  private readonly gpus: number[] = [];
  private readonly gpuNode: number[] = [];
  private seen: Uint32Array;
  private stamp = 0;
  private readonly allow = (h: number): boolean => this.seen[h] !== this.stamp;
  /** The windows' tasks of the current call, per GPU. */
  private readonly windows: number[][] = [];
  /** Reads requested (tests read them). */
  readonly stats = { requests: 0, bytes: 0 };

  /** The staging for `ctx`'s platform when it has a disk node and GPUs, else undefined. */
  static forPlatform(ctx: SchedContext, planned: PlannedOf, window: number): HostStaging | undefined {
    const p = ctx.platform;
    if (diskNodeOf(p) < 0 || !p.workers.some((w) => w.kind === 'gpu') || window <= 0) return undefined;
    return new HostStaging(ctx, planned, window);
  }

  private constructor(ctx: SchedContext, planned: PlannedOf, window: number) {
    this.ctx = ctx;
    this.planned = planned;
    this.window = window;
    const p = ctx.platform;
    this.host = p.homeNode;
    p.workers.forEach((w, i) => {
      if (w.kind === 'gpu') {
        this.gpus.push(i);
        this.gpuNode.push(w.node);
        this.windows.push([]);
      }
    });
    this.seen = new Uint32Array(ctx.handleCapacity);
  }

  /** Reads ahead what the GPUs' windows lack (see the file's comment). */
  fill(): void {
    const ctx = this.ctx;
    const g = ctx.graph;
    if (this.seen.length < ctx.handleCapacity) {
      const seen = new Uint32Array(ctx.handleCapacity);
      seen.set(this.seen);
      this.seen = seen;
    }
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const capacity = ctx.memoryCapacity(this.host);
    const size = g.handleSize.data;
    let bytes = 0;
    // The windows, nearest tasks first across the GPUs, while their data fit in host memory.
    const iters = this.gpus.map((w) => this.planned(w)[Symbol.iterator]());
    for (const list of this.windows) list.length = 0;
    let full = false;
    for (let depth = 0; depth < this.window && !full; depth++) {
      let any = false;
      for (let k = 0; k < this.gpus.length && !full; k++) {
        const next = iters[k]!.next();
        if (next.done) continue;
        any = true;
        const t = next.value;
        let more = 0;
        for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
          const h = g.accessHandle.data[a]!;
          if (this.seen[h] !== this.stamp && (g.accessMode.data[a]! & AccessMode.R) !== 0) more += size[h]!;
        }
        if (bytes + more > capacity) {
          full = true;
          break;
        }
        bytes += more;
        for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++)
          if ((g.accessMode.data[a]! & AccessMode.R) !== 0) this.seen[g.accessHandle.data[a]!] = this.stamp;
        this.windows[k]!.push(t);
      }
      if (!any) break;
    }
    // The reads, in the same order: nearest first, GPU by GPU.
    const stopped = new Uint8Array(this.gpus.length);
    for (let depth = 0; depth < this.window; depth++) {
      let any = false;
      for (let k = 0; k < this.gpus.length; k++) {
        if (stopped[k] === 1 || depth >= this.windows[k]!.length) continue;
        any = true;
        const t = this.windows[k]![depth]!;
        for (let a = g.accessStart.data[t]!; a < g.accessStart.data[t + 1]!; a++) {
          if ((g.accessMode.data[a]! & AccessMode.R) === 0) continue;
          const h = g.accessHandle.data[a]!;
          if (ctx.isValidOrLoading(h, this.gpuNode[k]!) || ctx.isValidOrLoading(h, this.host)) continue;
          if (!ctx.prefetch(h, this.host, true, this.allow)) {
            stopped[k] = 1;
            break;
          }
          this.stats.requests++;
          this.stats.bytes += size[h]!;
        }
      }
      if (!any) break;
    }
  }
}
