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
 * readers on that node need no message.
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
  }

  /** Declares the datum; its owner registers it now. */
  data(spec: DataSpec): number {
    const h = this.planner.declare(spec.length * ELEMENT_BYTES[spec.type], spec.block);
    this.specs.push(spec);
    for (const l of this.local) l.push(-1);
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
      this.messages.push({ ...t, sendTask, recvTask });
    }
    const r = plan.executor;
    const mapped = accesses.map(([h, m]) => [this.handleOn(r, h), m] as const);
    const g = this.graphs[r]!;
    const before = g.taskCount;
    const k = this.submitted++;
    const options = this.priorities ? { ...task, priority: this.priorities[k]! } : task;
    g.submit(this.codelets[r]![codelet]!, mapped, options);
    this.flops[r]! += g.taskFlops.data[before]!;
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
