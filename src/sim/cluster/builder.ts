/**
 * Builds the task graphs of a simulated cluster from one workload program: the Submitter the
 * workload submits to, once, for every node at once. The insertion planner of the MPI cluster
 * (src/cluster/insert-plan.ts, reused as is) says which node runs each task and which messages
 * it needs; each node's graph gets:
 * - the data it owns (registered when declared) and the data it comes to use (registered at
 *   its first use there: a received copy, or a datum a task of this node writes);
 * - for each message it sends, a SEND application task reading the datum on its host memory
 *   (StarPU-MPI's detached send: it waits for the writer, fetches the datum home from a GPU if
 *   needed, and holds writers off until the message is delivered);
 * - for each message it receives, a RECV application task writing the datum on its host memory
 *   (the detached receive: the tasks that read the datum wait for it; earlier readers of the
 *   previous copy are waited for first);
 * - the tasks it runs.
 * Received copies stay valid until the datum is written again (the planner's cache), so later
 * readers on that node need no message. The builder also records which tasks read each received
 * version (copyPlan), so that the simulation drops a copy once its last reader has ended.
 */

import type { Distribution } from '../../cluster/distribution.ts';
import { InsertionPlanner } from '../../cluster/insert-plan.ts';
import type { Codelet } from '../../core/graph.ts';
import { TaskGraph } from '../../core/graph.ts';
import { AccessMode } from '../../core/types.ts';
import {
  type DataSpec,
  ELEMENT_BYTES,
  type SubmitAccess,
  type Submitter,
  type TaskSpec,
} from '../../workloads/submitter.ts';
import type { CopyPlan } from './copies.ts';

/** One message of the run: a datum's version from one node to another. */
export interface Message {
  /** Datum (declaration index, the same on every node). */
  handle: number;
  /** Sending and receiving nodes. */
  from: number;
  to: number;
  /** Bytes. */
  bytes: number;
  /** The planner's tag (the version's serial number modulo the MPI tag range). */
  tag: number;
  /** The SEND task in the sender's graph, the RECV task in the receiver's. */
  sendTask: number;
  recvTask: number;
}

/** The codelets of the two application tasks (no worker runs them). */
const SEND: Codelet = { name: 'mpi-send', kinds: ['cpu'] };
const RECV: Codelet = { name: 'mpi-recv', kinds: ['cpu'] };

/** The graphs and messages of a workload distributed over `nodes` nodes. */
export class ClusterGraphBuilder implements Submitter {
  /** A simulation computes no values. */
  readonly computes = false;
  /** One task graph per node. */
  readonly graphs: TaskGraph[];
  /** Every message, in planning order. */
  readonly messages: Message[] = [];
  /** The plan (its counts are the planned tasks and messages of each node). */
  readonly planner: InsertionPlanner;
  /** Per node: local handle id of each datum (-1: not registered there). */
  private readonly local: number[][];
  /** Per node: codelet ids (the workload's, in declaration order). */
  private readonly codelets: number[][];
  private readonly codeletIds = new Map<Codelet, number>();
  private readonly specs: DataSpec[] = [];
  private readonly send: number[];
  private readonly recv: number[];
  /** Flops of the tasks each node runs. */
  readonly flops: number[];

  /** Tasks submitted so far (the index into `priorities`). */
  private submitted = 0;
  /** Per node, per datum: the message whose copy is the version held there (-1: none). */
  private readonly current: number[][];
  /** Per node, per datum: kept for the whole run (owned, or written by a task of the node). */
  private readonly kept: boolean[][];
  /** Per message: its readers on the receiver. */
  private readonly readers: number[] = [];
  /** Per node: (task, message) pairs, tasks in increasing order, of the copies tasks read. */
  private readonly readTask: number[][];
  private readonly readMessage: number[][];

  /**
   * A builder for `nodes` nodes whose data `distribution` places; with `priorities`, the k-th
   * task submitted gets priorities[k] (the whole graph's bottom levels, say) instead of its own.
   */
  constructor(
    readonly nodes: number,
    distribution: Distribution,
    private readonly priorities?: ArrayLike<number>,
  ) {
    this.planner = new InsertionPlanner(nodes, distribution);
    this.graphs = Array.from({ length: nodes }, () => new TaskGraph());
    this.local = this.graphs.map(() => []);
    this.codelets = this.graphs.map(() => []);
    this.send = this.graphs.map(() => -1);
    this.recv = this.graphs.map(() => -1);
    this.flops = this.graphs.map(() => 0);
    this.current = this.graphs.map(() => []);
    this.kept = this.graphs.map(() => []);
    this.readTask = this.graphs.map(() => []);
    this.readMessage = this.graphs.map(() => []);
  }

  /** Declares the datum; its owner registers it now. */
  data(spec: DataSpec): number {
    const h = this.planner.declare(spec.length * ELEMENT_BYTES[spec.type], spec.block);
    this.specs.push(spec);
    for (const l of this.local) l.push(-1);
    for (const c of this.current) c.push(-1);
    for (const k of this.kept) k.push(false);
    this.kept[this.planner.owner(h)]![h] = true;
    this.handleOn(this.planner.owner(h), h);
    return h;
  }

  /** Declares the codelet on every node (the same codelet again returns its first id). */
  codelet(codelet: Codelet): number {
    let id = this.codeletIds.get(codelet);
    if (id === undefined) {
      id = this.codeletIds.size;
      this.codeletIds.set(codelet, id);
      this.graphs.forEach((g, r) => {
        this.codelets[r]!.push(g.addCodelet(codelet));
      });
    }
    return id;
  }

  /** The hint applies on every node that holds the datum. */
  wontUse(data: number): void {
    this.graphs.forEach((g, r) => {
      const l = this.local[r]![data]!;
      if (l >= 0) g.wontUse(l);
    });
  }

  /** Plans the task: its messages become SEND and RECV tasks, then it goes to its node's graph. */
  submit(codelet: number, accesses: readonly SubmitAccess[], task?: TaskSpec): void {
    const plan = this.planner.task(accesses);
    for (const t of plan.transfers) {
      const src = this.graphs[t.from]!;
      const dst = this.graphs[t.to]!;
      const name = this.specs[t.handle]!.name;
      // Registered at a node's first message, so a graph without messages is the workload's own.
      if (this.send[t.from]! < 0) this.send[t.from] = src.addCodelet(SEND);
      if (this.recv[t.to]! < 0) this.recv[t.to] = dst.addCodelet(RECV);
      const sendTask = src.submit(this.send[t.from]!, [[this.handleOn(t.from, t.handle), AccessMode.R]], {
        app: true,
        name: `send(${name} to ${t.to})`,
      });
      const recvTask = dst.submit(this.recv[t.to]!, [[this.handleOn(t.to, t.handle), AccessMode.W]], {
        app: true,
        name: `recv(${name} from ${t.from})`,
      });
      this.current[t.to]![t.handle] = this.messages.length;
      this.readers.push(0);
      this.messages.push({ ...t, sendTask, recvTask });
    }
    const r = plan.executor;
    const mapped = accesses.map(([h, m]) => [this.handleOn(r, h), m] as const);
    const g = this.graphs[r]!;
    const before = g.taskCount;
    for (const [h, m] of accesses) {
      const i = this.current[r]![h]!;
      if (m & AccessMode.R && i >= 0) {
        this.readers[i]!++;
        this.readTask[r]!.push(before);
        this.readMessage[r]!.push(i);
      }
    }
    for (const [h, m] of accesses) {
      if (!(m & AccessMode.W)) continue;
      // A new version on this node: written here, kept here; cached copies elsewhere are stale.
      this.kept[r]![h] = true;
      for (const c of this.current) c[h] = -1;
    }
    const k = this.submitted++;
    const options = this.priorities ? { ...task, priority: this.priorities[k]! } : task;
    g.submit(this.codelets[r]![codelet]!, mapped, options);
    this.flops[r]! += g.taskFlops.data[before]!;
  }

  /**
   * What the simulation needs to drop received copies (call once every task is submitted):
   * per message its readers and whether it is droppable (its datum is not kept on the
   * receiver), per node the messages each task reads and the bytes of its kept and
   * received-only data.
   */
  copyPlan(): CopyPlan {
    const n = this.nodes;
    const m = this.messages.length;
    const droppable = new Uint8Array(m);
    const local = new Int32Array(m);
    this.messages.forEach((msg, i) => {
      droppable[i] = this.kept[msg.to]![msg.handle] ? 0 : 1;
      local[i] = this.local[msg.to]![msg.handle]!;
    });
    const keptBytes = new Float64Array(n);
    const receivedOnlyBytes = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      this.local[r]!.forEach((l, h) => {
        if (l < 0) return;
        const bytes = this.graphs[r]!.handleSize.data[l]!;
        if (this.kept[r]![h]) keptBytes[r]! += bytes;
        else receivedOnlyBytes[r]! += bytes;
      });
    }
    const readStart = this.graphs.map((g, r) => {
      const start = new Int32Array(g.taskCount + 1);
      for (const t of this.readTask[r]!) start[t + 1]!++;
      for (let t = 0; t < g.taskCount; t++) start[t + 1]! += start[t]!;
      return start;
    });
    return {
      droppable,
      local,
      readers: Int32Array.from(this.readers),
      readStart,
      readMessage: this.readMessage.map((a) => Int32Array.from(a)),
      keptBytes,
      receivedOnlyBytes,
    };
  }

  /** The name of datum `h`. */
  handleName(h: number): string {
    return this.specs[h]!.name;
  }

  /** Node `r`'s handle of datum `h`, registered there now if it was not. */
  private handleOn(r: number, h: number): number {
    const l = this.local[r]!;
    if (l[h]! >= 0) return l[h]!;
    const spec = this.specs[h]!;
    const id = this.graphs[r]!.addHandle(spec.length * ELEMENT_BYTES[spec.type], {
      name: spec.name,
      ...(spec.block ? { block: spec.block } : {}),
      ...(spec.discard ? { discard: true } : {}),
    });
    l[h] = id;
    return id;
  }
}
