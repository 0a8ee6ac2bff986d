/**
 * Prefetch at assignment (seed 001's "-pr" policies, seed 000 Algorithm 1 lines 7-9): when a
 * task is queued on a worker, each of its inputs is requested on the worker's memory node.
 * A request fills free memory and may evict only replicas that no task queued on that node
 * reads (seed 001: "a prefetch request will not be considered if it would prevent pending
 * tasks from executing properly"); the engine already pins what popped and running tasks
 * use. So once every resident replica is needed by a queued task, prefetching stops: the
 * behaviour seed 000 section 4.2 describes for DMDAR when memory is tight.
 *
 * A request that cannot be served now (no room without evicting needed data, or the node's
 * fetch queue busy) stays pending, as StarPU's prefetch requests wait in their node's request
 * list: the pending requests of a node are retried in request order when one of its workers
 * finishes a task or one of its replicas is dropped, stopping at the first that still cannot
 * be served; a request no queued task needs any more, or already valid or loading, is
 * dropped. On seed 000's matrix product (every task pushed at time 0, so prefetching only at
 * assignment stops for good once memory is full), retrying took DMDAR at N = 80 on v100x2
 * from 25.0 to 15.6 GiB moved and from 13.3 to 17.3 TFlop/s.
 *
 * Out of core (a disk node below host memory, the data's home), host memory is one more cache:
 * a task queued on a CPU worker gets its inputs prefetched from the disk into host memory the
 * same way, evicting there only what no task queued on the host's workers reads. Without a disk,
 * host memory holds every datum and nothing is prefetched there.
 *
 * Costs: per assigned task O(a) requests; per retry O(1) per request served or dropped plus
 * one failed request; each request costs O(1) plus the eviction policy's victim search.
 */
import { growU8, IntQueue } from '../../core/growable.ts';
import type { SchedContext } from '../../core/policy.ts';
import { AccessMode } from '../../core/types.ts';
import type { QueuedInputs } from './inputs.ts';

/** Requests a queued task's inputs on its worker's node, keeping refused requests pending. */
export class Prefetcher {
  private ctx!: SchedContext;
  private inputs!: QueuedInputs;
  /** The node no request goes to: host memory when it holds every datum, -1 out of core. */
  private home = 0;
  private nn = 0;
  /** Per node: may this handle be evicted for a prefetch? (built once, no closure per call) */
  private allow: ((handle: number) => boolean)[] = [];
  private pending: IntQueue[] = [];
  private pendingBit = new Uint8Array(0);
  private retrying = false;

  /**
   * `allow[node]`: which replicas of node a prefetch may evict (the scheduler's evictionFilter,
   * the same functions, so that the engine's eviction index knows them).
   */
  init(ctx: SchedContext, inputs: QueuedInputs, allow: ((handle: number) => boolean)[]): void {
    this.ctx = ctx;
    this.inputs = inputs;
    const disk = ctx.platform.nodes.some((n) => n.kind === 'disk');
    this.home = disk ? -1 : ctx.platform.homeNode;
    this.nn = ctx.platform.nodes.length;
    this.allow = allow;
    this.pending = ctx.platform.nodes.map(() => new IntQueue());
    this.pendingBit = new Uint8Array(ctx.handleCapacity * this.nn);
  }

  /** Per-handle tables now hold `handles` handles. */
  grow(handles: number): void {
    this.pendingBit = growU8(this.pendingBit, handles * this.nn);
  }

  /** Number of requests pending on `node`. */
  pendingCount(node: number): number {
    return this.pending[node]!.length;
  }

  /** Prefetches `task`'s inputs to `node` (its worker's node); nothing to do in a host memory that holds every datum. */
  request(task: number, node: number): void {
    if (node === this.home) return;
    const ctx = this.ctx;
    const g = ctx.graph;
    const allow = this.allow[node]!;
    const aEnd = g.accessStart.data[task + 1]!;
    for (let a = g.accessStart.data[task]!; a < aEnd; a++) {
      if (!(g.accessMode.data[a]! & AccessMode.R)) continue;
      const h = g.accessHandle.data[a]!;
      const s = h * this.nn + node;
      if (this.pendingBit[s] === 1) continue; // already waiting, in request order
      if (!ctx.prefetch(h, node, true, allow)) {
        this.pendingBit[s] = 1;
        this.pending[node]!.push(h);
      }
    }
  }

  /** Retries the pending requests of `node` in order, stopping at the first that must wait. */
  retry(node: number): void {
    // Guard: a prefetch may evict, and the eviction notifies the scheduler, which retries.
    if (this.retrying || node === this.home) return;
    const q = this.pending[node]!;
    if (q.length === 0) return;
    this.retrying = true;
    const allow = this.allow[node]!;
    while (q.length > 0) {
      const h = q.peek();
      const stale = !this.inputs.needed(h, node) || this.ctx.isValidOrLoading(h, node);
      if (!stale && !this.ctx.prefetch(h, node, true, allow)) break;
      q.shift();
      this.pendingBit[h * this.nn + node] = 0;
    }
    this.retrying = false;
  }
}
