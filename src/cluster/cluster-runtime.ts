/**
 * A Runtime over MPI (seed 001 section IV, StarPU-MPI's task insertion), for applications:
 * `Runtime.create({ cluster: 'mpi', distribution: '2d' })` under `mpirun` gives each rank one of
 * these. Every rank runs the same program: it declares the same data (with block coordinates,
 * which the distribution maps to their owner rank) and submits the same tasks in the same
 * order. The insertion planner (insert-plan.ts), fed the same calls everywhere, decides without
 * any message which rank runs each task (the owner of the datum it writes) and which messages
 * carry each version of a datum to the ranks that read it; this rank submits only its own
 * tasks to its local Runtime (whose scheduler places them on its CPUs and GPUs) and posts only
 * its own messages, as detached sends and receives ordered with its tasks (data.ts).
 *
 * A rank registers a datum with its Runtime only where it needs it: its owner at declaration
 * (with the array's values), another rank when it first receives a version of it or runs a
 * task on it. `gather()` brings every datum's latest version to one rank, whose arrays then
 * hold the results, as a sequential run's would.
 */
import { AccessMode, LocusError } from '../core/types.ts';
import type { Runtime } from '../exec/runtime.ts';
import type {
  Codelet,
  CodeletSpec,
  Data,
  DataArray,
  DataOptions,
  Mode,
  RuntimeOptions,
  SubmitOptions,
} from '../exec/runtime-options.ts';
import type { Task } from '../exec/task.ts';
import type { RunReport } from '../trace/report.ts';
import { MpiData } from './data.ts';
import { parseDistribution, squarestGrid } from './distribution.ts';
import { InsertionPlanner, type Transfer } from './insert-plan.ts';
import { type Comm, Mpi } from './mpi.ts';

/** Options of a datum of a distributed run. */
export interface ClusterDataOptions extends DataOptions {
  /** Block coordinates [row, column]: the distribution maps them to the datum's owner rank. */
  block?: readonly [number, number] | undefined;
}

/** A datum declared on every rank of a distributed run. */
export interface ClusterData {
  /** Declaration index (the same on every rank). */
  readonly index: number;
  /** Name in reports and errors. */
  readonly name: string;
  /** The rank that owns it (holds its initial values and runs the tasks that write it). */
  readonly owner: number;
}

/** What this rank did in a distributed run. */
export interface ClusterCounts {
  /** Tasks this rank ran (its share of the application's tasks; messages apart). */
  tasks: number;
  /** Messages this rank sent and received, and their bytes (the final gather apart). */
  messagesSent: number;
  bytesSent: number;
  messagesReceived: number;
  bytesReceived: number;
  /** Data registered with this rank's Runtime (owned, received, or written here). */
  registered: number;
}

const MODES: Record<Mode, AccessMode> = { R: AccessMode.R, W: AccessMode.W, RW: AccessMode.RW };

/** One rank of a distributed run: the application's Runtime API, placed by owner computes. */
export class ClusterRuntime {
  /** This process's rank and the job's size. */
  readonly rank: number;
  readonly size: number;
  /** The distribution as a name ('2d:2x2', '1d', 'function'). */
  readonly distribution: string;
  /** This rank's Runtime (its own tasks and the data it registered). */
  readonly local: Runtime;
  /** What this rank ran, sent and received so far. */
  readonly counts: ClusterCounts = {
    tasks: 0,
    messagesSent: 0,
    bytesSent: 0,
    messagesReceived: 0,
    bytesReceived: 0,
    registered: 0,
  };
  private readonly mpi: Mpi;
  private readonly comm: Comm;
  private readonly lib: MpiData;
  private readonly planner: InsertionPlanner;
  private readonly arrays: DataArray[] = [];
  private readonly options: (ClusterDataOptions | undefined)[] = [];
  private readonly handles: (Data | undefined)[] = [];
  private closed = false;

  private constructor(rt: Runtime, mpi: Mpi, comm: Comm, spec: NonNullable<RuntimeOptions['distribution']>) {
    this.local = rt;
    this.mpi = mpi;
    this.comm = comm;
    this.rank = mpi.rank;
    this.size = mpi.size;
    this.lib = new MpiData(rt, mpi);
    this.planner = new InsertionPlanner(mpi.size, parseDistribution(spec, mpi.size));
    this.distribution =
      typeof spec === 'function'
        ? 'function'
        : spec === '2d'
          ? `2d:${squarestGrid(mpi.size).join('x')}`
          : spec;
  }

  /**
   * Starts MPI (the process must run under mpirun, or alone as a job of one rank) and this
   * rank's Runtime with `options` (its cluster fields apart). Rank 0 updates the performance
   * models; the other ranks read them, so that ranks on one host never write the same files.
   */
  static async create(options: RuntimeOptions): Promise<ClusterRuntime> {
    const { cluster, distribution = '2d', mpiTimeoutS, ...rest } = options;
    if (cluster !== 'mpi')
      throw new LocusError('LOCUS_OPTION_INVALID', `cluster must be 'mpi' (got '${String(cluster)}')`);
    if (rest.backend === 'simulated' || rest.mode === 'simulated')
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        "cluster 'mpi' runs for real on every rank: for a simulated cluster use a platform with a cluster section (locus run --cluster sim)",
      );
    const mpi = Mpi.init(mpiTimeoutS !== undefined ? { timeoutS: mpiTimeoutS } : {});
    // Check the distribution before anything starts: a bad one is one line on every rank.
    parseDistribution(distribution, mpi.size);
    const { Runtime } = await import('../exec/runtime.ts');
    const rt = await Runtime.create(
      mpi.rank === 0 || rest.perfModels === 'off' ? rest : { ...rest, perfModels: 'read' },
    );
    // The run's messages never match the application's own: a communicator of their own.
    return new ClusterRuntime(rt, mpi, mpi.dup(), distribution);
  }

  /**
   * Declares a datum, on every rank, with the array this rank keeps it in (the same length and
   * type everywhere). Its owner registers it at once with the array's values; another rank
   * registers its array only when it needs the datum, and its values then come from the owner.
   */
  data(array: DataArray, options: ClusterDataOptions = {}): ClusterData {
    const index = this.planner.declare(array.byteLength, options.block);
    this.arrays.push(array);
    this.options.push(options);
    this.handles.push(undefined);
    const owner = this.planner.owner(index);
    if (owner === this.rank) this.ensure(index);
    return { index, name: options.name ?? `data${index}`, owner };
  }

  /** Declares a codelet on this rank's Runtime (every rank declares the same ones). */
  codelet(spec: CodeletSpec): Codelet {
    return this.local.codelet(spec);
  }

  /**
   * Submits a task on every rank: the rank that owns the datum it writes runs it (returns its
   * Task there, undefined elsewhere); the ranks holding the versions it reads send them first.
   */
  submit(
    codelet: Codelet,
    accesses: readonly (readonly [ClusterData, Mode])[],
    options: SubmitOptions = {},
  ): Task | undefined {
    if (this.closed) throw new LocusError('LOCUS_STATE_INVALID', 'submit after close()');
    const plan = this.planner.task(
      accesses.map(([d, m]) => {
        const mode = MODES[m];
        if (mode === undefined)
          throw new LocusError(
            'LOCUS_OPTION_INVALID',
            `access mode must be 'R', 'W' or 'RW' (got '${String(m)}')`,
          );
        if (d === null || typeof d !== 'object' || !(d.index >= 0 && d.index < this.arrays.length))
          throw new LocusError(
            'LOCUS_OPTION_INVALID',
            'an access names a datum this ClusterRuntime did not declare',
          );
        return [d.index, mode] as const;
      }),
    );
    for (const t of plan.transfers) this.post(t, false);
    if (plan.executor !== this.rank) return undefined;
    this.counts.tasks++;
    return this.local.submit(
      codelet,
      accesses.map(([d, m]) => [this.ensure(d.index), m] as const),
      options,
    );
  }

  /**
   * Waits until every task this rank runs has ended and every message it posted completed;
   * resolves with this rank's run report. Rejects with the first failure (a task, a message).
   */
  async wait(): Promise<RunReport> {
    const report = await this.local.wait();
    await this.lib.flush();
    return report;
  }

  /**
   * Brings every datum's latest version to rank `root` (default 0) and waits: there, every
   * declared array then holds its final values. Every rank calls it (the messages pair up).
   */
  async gather(root = 0): Promise<void> {
    if (!(Number.isInteger(root) && root >= 0 && root < this.size))
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `gather: root must be a rank from 0 to ${this.size - 1} (got ${root})`,
      );
    for (const t of this.planner.gather(root)) this.post(t, true);
    await this.wait();
    await this.local.sync();
  }

  /** This rank's array of `d` (its latest values after wait() and local.sync() where it ran the writer). */
  array(d: ClusterData): DataArray {
    return this.arrays[d.index]!;
  }

  /** Closes this rank's Runtime and MPI (after wait() or gather(); every rank calls it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.local.close();
    } finally {
      this.mpi.free(this.comm);
      await this.mpi.finalize();
    }
  }

  private post(t: Transfer, gather: boolean): void {
    const c = this.counts;
    if (t.from === this.rank) {
      this.lib.sendDetached(this.ensure(t.handle), t.to, t.tag, this.comm);
      if (!gather) {
        c.messagesSent++;
        c.bytesSent += t.bytes;
      }
    } else if (t.to === this.rank) {
      this.lib.recvDetached(this.ensure(t.handle), t.from, t.tag, this.comm);
      if (!gather) {
        c.messagesReceived++;
        c.bytesReceived += t.bytes;
      }
    }
  }

  /** The local handle of datum `index`, registering this rank's array for it if needed. */
  private ensure(index: number): Data {
    const h = this.handles[index];
    if (h !== undefined) return h;
    const o = this.options[index]!;
    const d = this.local.data(this.arrays[index]!, { name: o.name, discard: o.discard });
    this.handles[index] = d;
    this.counts.registered++;
    return d;
  }
}
