/**
 * The Submitter of a distributed run over MPI: every rank runs the same workload code into
 * one of these. Data are registered on every rank (initial values only on their owner, zeros
 * elsewhere); the insertion planner (insert-plan.ts) says which rank runs each task and which
 * messages it needs; this rank submits its own tasks to its Runtime (whose schedulers place
 * them on its workers) and posts its own messages as detached sends and receives (MpiData):
 * a send starts once the tasks submitted before it that write the datum ended, a receive
 * releases the tasks that read the datum once the data arrived.
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

/** What one rank did: tasks it ran, messages and bytes it sent and received (gather apart). */
export interface RankStats extends RankCounts {
  /** The rank. */
  rank: number;
  /** Messages and bytes of the final gather to rank 0 (sent, or received on rank 0). */
  gatherMessages: number;
  gatherBytes: number;
}

/** Submits a workload as one rank of a distributed run. */
export class ClusterSubmitter implements Submitter {
  /** Kernels run on the values. */
  readonly computes = true;
  /** The rank's runtime submitter: after gather() and rt.sync(), rank 0's arrays hold every result. */
  readonly inner: RuntimeSubmitter;
  /** The plan, identical on every rank. */
  readonly planner: InsertionPlanner;
  /** What this rank posted and ran. */
  readonly stats: RankStats;
  private readonly lib: MpiData;
  private readonly rank: number;

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
    };
  }

  /** Registers the datum (its initial values on its owner only). */
  data(spec: DataSpec): number {
    const h = this.planner.declare(spec.length * ELEMENT_BYTES[spec.type], spec.block);
    const { init: _, ...noInit } = spec;
    const id = this.inner.data(this.planner.owner(h) === this.rank ? spec : noInit);
    return id;
  }

  /** Declares the codelet on this rank's runtime. */
  codelet(codelet: ModelCodelet, kernel?: KernelName): number {
    return this.inner.codelet(codelet, kernel);
  }

  /** Passes the hint to this rank's runtime. */
  wontUse(data: number): void {
    this.inner.wontUse(data);
  }

  /** Plans the task; posts this rank's messages for it; submits it here if this rank runs it. */
  submit(codelet: number, accesses: readonly SubmitAccess[], task?: TaskSpec): void {
    const plan = this.planner.task(accesses);
    for (const t of plan.transfers) this.post(t, false);
    if (plan.executor === this.rank) {
      this.stats.tasks++;
      this.inner.submit(codelet, accesses, task);
    }
  }

  /** Posts this rank's messages of the final gather of every latest version to rank 0. */
  gather(): void {
    for (const t of this.planner.gather(0)) this.post(t, true);
  }

  /** Resolves once every message posted so far completed (rejects with the first failure). */
  flush(): Promise<void> {
    return this.lib.flush();
  }

  private post(t: Transfer, gather: boolean): void {
    const s = this.stats;
    if (t.from === this.rank) {
      this.lib.sendDetached(this.inner.handle(t.handle), t.to, t.tag, this.comm);
      if (gather) {
        s.gatherMessages++;
        s.gatherBytes += t.bytes;
      } else {
        s.messagesSent++;
        s.bytesSent += t.bytes;
      }
    } else if (t.to === this.rank) {
      this.lib.recvDetached(this.inner.handle(t.handle), t.from, t.tag, this.comm);
      if (gather) {
        s.gatherMessages++;
        s.gatherBytes += t.bytes;
      } else {
        s.messagesReceived++;
        s.bytesReceived += t.bytes;
      }
    }
  }
}
