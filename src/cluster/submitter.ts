/**
 * The Submitter of a distributed run over MPI: every rank runs the same workload code into
 * one of these. The insertion planner (insert-plan.ts) says which rank runs each task and which
 * messages it needs; this rank submits its own tasks to its Runtime (whose schedulers place
 * them on its workers) and posts its own messages as detached sends and receives (MpiData):
 * a send starts once the tasks submitted before it that write the datum ended, a receive
 * releases the tasks that read the datum once the data arrived.
 *
 * A rank registers (allocates) only the data it needs, as StarPU-MPI's ranks do: the data it
 * owns at their declaration (with their initial values), and the others when it first needs
 * them: the first message it receives of them (a cached copy), or the first task it runs that
 * accesses them (zeros). A cached copy stays registered once its version is overwritten
 * elsewhere: the next version it receives lands in the same memory (the Runtime's unregister
 * keeps a datum's home copy, so freeing it there would give no memory back).
 */
import type { Codelet as ModelCodelet } from '../core/graph.ts';
import type { Runtime } from '../exec/runtime.ts';
import { RuntimeSubmitter } from '../exec/runtime-submitter.ts';
import {
  type DataSpec,
  ELEMENT_BYTES,
  type KernelName,
  type SubmitAccess,
  type Submitter,
  type TaskSpec,
} from '../workloads/submitter.ts';
import { MpiData } from './data.ts';
import type { Distribution } from './distribution.ts';
import { InsertionPlanner, type RankCounts, type Transfer } from './insert-plan.ts';
import type { Comm, Mpi } from './mpi.ts';

/**
 * What one rank did: tasks it ran, messages and bytes it sent and received (gather apart), and
 * the data it registered.
 */
export interface RankStats extends RankCounts {
  /** The rank. */
  rank: number;
  /** Messages and bytes of the final gather to rank 0 (sent, or received on rank 0). */
  gatherMessages: number;
  gatherBytes: number;
  /** Data registered on this rank before the final gather (owned, received, or written here). */
  handles: number;
  /** Peak bytes of the data registered on this rank before the final gather. */
  peakBytes: number;
  /** Bytes of the data registered on this rank at the end (rank 0 gathered every latest version). */
  finalBytes: number;
}

/** Submits a workload as one rank of a distributed run. */
export class ClusterSubmitter implements Submitter {
  /** Kernels run on the values. */
  readonly computes = true;
  /** The rank's runtime submitter (its ids are registration order: see local()). */
  readonly inner: RuntimeSubmitter;
  /** The plan, identical on every rank. */
  readonly planner: InsertionPlanner;
  /** What this rank posted and ran. */
  readonly stats: RankStats;
  private readonly lib: MpiData;
  private readonly rank: number;
  /** The spec of each declared datum (by declaration index), for a registration later. */
  private readonly specs: DataSpec[] = [];
  /** The runtime id of each declared datum registered here (by declaration index). */
  private readonly ids: (number | undefined)[] = [];
  /** Bytes registered now; gathering: the gather's registrations no longer count in the peak. */
  private bytes = 0;
  private gathering = false;

  /** Rank `mpi.rank` of a run whose data `distribution` places; messages go on `comm`. */
  constructor(
    rt: Runtime,
    mpi: Mpi,
    private readonly comm: Comm,
    distribution: Distribution,
  ) {
    this.inner = new RuntimeSubmitter(rt);
    this.lib = new MpiData(rt, mpi);
    this.rank = mpi.rank;
    this.planner = new InsertionPlanner(mpi.size, distribution);
    this.stats = {
      rank: mpi.rank,
      tasks: 0,
      messagesSent: 0,
      bytesSent: 0,
      messagesReceived: 0,
      bytesReceived: 0,
      gatherMessages: 0,
      gatherBytes: 0,
      handles: 0,
      peakBytes: 0,
      finalBytes: 0,
    };
  }

  /** Declares the datum; registers it (with its initial values) on its owner only. */
  data(spec: DataSpec): number {
    const h = this.planner.declare(spec.length * ELEMENT_BYTES[spec.type], spec.block);
    this.specs.push(spec);
    this.ids.push(undefined);
    if (this.planner.owner(h) === this.rank) this.register(h, spec);
    return h;
  }

  /** The runtime id of datum `h` (declaration index) on this rank, or undefined where it was never registered. */
  local(h: number): number | undefined {
    return this.ids[h];
  }

  /**
   * The values of every declared datum in declaration order (undefined where this rank never
   * registered it): after gather() and rt.sync(), rank 0's hold every result.
   */
  get arrays(): (ArrayLike<number> | undefined)[] {
    return this.ids.map((id) => (id === undefined ? undefined : this.inner.arrays[id]));
  }

  /** The name of every declared datum, in declaration order. */
  get names(): string[] {
    return this.specs.map((s) => s.name);
  }

  /** Declares the codelet on this rank's runtime. */
  codelet(codelet: ModelCodelet, kernel?: KernelName): number {
    return this.inner.codelet(codelet, kernel);
  }

  /** Passes the hint to this rank's runtime (nothing where the datum is not registered here). */
  wontUse(data: number): void {
    const id = this.ids[data];
    if (id !== undefined) this.inner.wontUse(id);
  }

  /** Plans the task; posts this rank's messages for it; submits it here if this rank runs it. */
  submit(codelet: number, accesses: readonly SubmitAccess[], task?: TaskSpec): void {
    const plan = this.planner.task(accesses);
    for (const t of plan.transfers) this.post(t, false);
    if (plan.executor === this.rank) {
      this.stats.tasks++;
      this.inner.submit(
        codelet,
        accesses.map(([h, m]) => [this.ensure(h), m] as const),
        task,
      );
    }
  }

  /** Posts this rank's messages of the final gather of every latest version to rank 0. */
  gather(): void {
    this.gathering = true;
    for (const t of this.planner.gather(0)) this.post(t, true);
    this.stats.finalBytes = this.bytes;
  }

  /** Resolves once every message posted so far completed (rejects with the first failure). */
  flush(): Promise<void> {
    return this.lib.flush();
  }

  private post(t: Transfer, gather: boolean): void {
    const s = this.stats;
    if (t.from === this.rank) {
      this.lib.sendDetached(this.inner.handle(this.ensure(t.handle)), t.to, t.tag, this.comm);
      if (gather) {
        s.gatherMessages++;
        s.gatherBytes += t.bytes;
      } else {
        s.messagesSent++;
        s.bytesSent += t.bytes;
      }
    } else if (t.to === this.rank) {
      this.lib.recvDetached(this.inner.handle(this.ensure(t.handle)), t.from, t.tag, this.comm);
      if (gather) {
        s.gatherMessages++;
        s.gatherBytes += t.bytes;
      } else {
        s.messagesReceived++;
        s.bytesReceived += t.bytes;
      }
    }
  }

  /** The runtime id of datum `h` here, registering it (zeros: its values come later) if needed. */
  private ensure(h: number): number {
    const id = this.ids[h];
    if (id !== undefined) return id;
    const { init: _, ...noInit } = this.specs[h]!;
    return this.register(h, noInit);
  }

  /** Registers datum `h` with this rank's runtime and counts its bytes. */
  private register(h: number, spec: DataSpec): number {
    const id = this.inner.data(spec);
    this.ids[h] = id;
    this.bytes += spec.length * ELEMENT_BYTES[spec.type];
    if (!this.gathering) {
      this.stats.handles++;
      this.stats.peakBytes = Math.max(this.stats.peakBytes, this.bytes);
    }
    this.stats.finalBytes = this.bytes;
    return id;
  }
}
