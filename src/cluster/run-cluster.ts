/**
 * A real workload run distributed over MPI (`locus run --mode real --cluster mpi` under
 * mpirun): every rank runs the same workload generator into a ClusterSubmitter over its own
 * Runtime, the latest version of every datum is gathered on rank 0, which checks the result
 * against the sequential run (as a single-process run does) and sums every rank's counts.
 */
import { LocusError } from '../core/types.ts';
import {
  REAL_WORKLOAD_NAMES,
  type RealRunOptions,
  type RealRunResult,
  realInstance,
} from '../exec/run-workload.ts';
import { SequentialSubmitter } from '../exec/sequential-submitter.ts';
import { BACKWARD_ERROR_MAX_N, type DataByName, REAL_WORKLOADS } from '../exec/workload-checks.ts';
import { relativeDifference } from '../kernels/residual.ts';
import { formatBytes } from '../workloads/common.ts';
import { WORKLOADS } from '../workloads/index.ts';
import { type Distribution, parseDistribution, squarestGrid } from './distribution.ts';
import { Mpi } from './mpi.ts';
import { ClusterSubmitter, type RankStats } from './submitter.ts';

/** Options of a distributed run: the real run's, and the data distribution. */
export interface ClusterRunOptions extends RealRunOptions {
  /** '2d' (default: the squarest P x Q grid), '2d:PxQ', '1d', or a function of the block coordinates. */
  distribution?: string | Distribution | undefined;
  /** Seconds without MPI progress before the job is aborted (Mpi.init's timeoutS). */
  mpiTimeoutS?: number | undefined;
}

/** The cluster part of the report (rank 0's). */
export interface ClusterSummary {
  /** Number of ranks. */
  ranks: number;
  /** The distribution as given ('2d' gives its grid: '2d:2x2'). */
  distribution: string;
  /** What each rank ran, sent and received. */
  perRank: RankStats[];
  /** Their sums. */
  total: Omit<RankStats, 'rank'>;
}

/** What a distributed run gives back: rank 0's result with the cluster summary; nothing elsewhere. */
export interface ClusterRunResult extends RealRunResult {
  /** This process's rank. */
  rank: number;
  /** On rank 0: every rank's counts. */
  cluster?: ClusterSummary;
}

const STAT_KEYS = [
  'tasks',
  'messagesSent',
  'bytesSent',
  'messagesReceived',
  'bytesReceived',
  'gatherMessages',
  'gatherBytes',
  'handles',
  'peakBytes',
  'finalBytes',
] as const;

/** Runs workload `name` as one rank of an MPI job; rank 0's result holds the check and the counts. */
export async function runClusterWorkload(name: string, o: ClusterRunOptions): Promise<ClusterRunResult> {
  const real = Object.hasOwn(REAL_WORKLOADS, name) ? REAL_WORKLOADS[name] : undefined;
  if (real === undefined) {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `workload '${name}' does not run for real: use one of ${REAL_WORKLOAD_NAMES.join(', ')}`,
    );
  }
  const mpi = Mpi.init({ timeoutS: o.mpiTimeoutS });
  const spec = o.distribution ?? (name === 'jacobi' ? '1d' : '2d');
  const distribution = parseDistribution(spec, mpi.size);
  const described =
    typeof spec === 'function' ? 'function' : spec === '2d' ? `2d:${squarestGrid(mpi.size).join('x')}` : spec;
  const { generator, instance, workload } = realInstance(name, o);
  // Messages of this run never match the application's own (a communicator of their own).
  const comm = mpi.dup();
  const { Runtime } = await import('../exec/runtime.ts');
  // One rank saves the performance models (the others read them).
  const rt = await Runtime.create(mpi.rank === 0 ? o : { ...o, perfModels: 'read' });
  let result: ClusterRunResult;
  try {
    const s = new ClusterSubmitter(rt, mpi, comm, distribution);
    generator.submit(s, instance);
    const report = await rt.wait();
    s.gather();
    await rt.wait();
    await s.flush();
    await rt.sync();
    report.workload = workload;
    const mine = s.stats;
    // The runtime counts the acquires that post this rank's messages as tasks: the report
    // counts the application's tasks this rank ran (the messages are in the cluster summary).
    report.tasks = mine.tasks;
    const stats = await gatherStats(mpi, comm, mine);
    result = { rank: mpi.rank, report, workload };
    if (mpi.rank === 0) {
      const total = Object.fromEntries(
        STAT_KEYS.map((k) => [k, stats.reduce((a, r) => a + r[k], 0)]),
      ) as Omit<RankStats, 'rank'>;
      // Each gather message counts on its sender and on rank 0: once in the total.
      total.gatherMessages = mine.gatherMessages;
      total.gatherBytes = mine.gatherBytes;
      result.cluster = { ranks: mpi.size, distribution: described, perRank: stats, total };
      if (o.check) Object.assign(result, check(name, instance, s, real.backwardError));
    }
  } finally {
    await rt.close();
  }
  mpi.free(comm);
  await mpi.finalize();
  return result;
}

/** Every rank's counts on rank 0 (others get their own only). */
async function gatherStats(mpi: Mpi, comm: number, mine: RankStats): Promise<RankStats[]> {
  const pack = (s: RankStats) => Float64Array.from(STAT_KEYS.map((k) => s[k]));
  const unpack = (rank: number, a: Float64Array): RankStats =>
    ({ rank, ...Object.fromEntries(STAT_KEYS.map((k, i) => [k, a[i]!])) }) as RankStats;
  // Data tags start at 0 too, but every data message of this rank completed before (flush).
  const tag = 0;
  if (mpi.rank !== 0) {
    await mpi.isend(pack(mine), 0, tag, comm).done;
    return [mine];
  }
  const out = [mine];
  for (let r = 1; r < mpi.size; r++) {
    const buf = new Float64Array(STAT_KEYS.length);
    await mpi.irecv(buf, r, tag, comm).done;
    out.push(unpack(r, buf));
  }
  return out;
}

/** Rank 0's check against the sequential run: residual and backward error, as runWorkload gives. */
function check(
  name: string,
  instance: ReturnType<(typeof WORKLOADS)[string]['instance']>,
  s: ClusterSubmitter,
  backward: (typeof REAL_WORKLOADS)[string]['backwardError'],
): { residual: number; backwardError?: number } {
  const generator = WORKLOADS[name]!;
  const sequential = new SequentialSubmitter(backward !== undefined);
  generator.submit(sequential, instance);
  const arrays = gathered(s);
  const residual = relativeDifference(arrays, sequential.arrays);
  const { tiles, tileSize } = instance.params as { tiles: number; tileSize: number };
  if (!backward || tiles * tileSize > BACKWARD_ERROR_MAX_N) return { residual };
  return {
    residual,
    backwardError: backward(instance, byName(sequential.names, sequential.initial), byName(s.names, arrays)),
  };
}

/** Rank 0's value of every datum in declaration order, after the gather (each registered there). */
function gathered(s: ClusterSubmitter): ArrayLike<number>[] {
  const names = s.names;
  return s.arrays.map((a, h) => {
    if (a === undefined) throw new Error(`cluster: ${names[h]} did not reach rank 0 in the gather`);
    return a;
  });
}

/** Looks data up by name. */
function byName(names: readonly string[], arrays: readonly ArrayLike<number>[]): DataByName {
  const index = new Map(names.map((n, i) => [n, i]));
  return (n) => {
    const i = index.get(n);
    return i === undefined ? undefined : (arrays[i] as ReturnType<DataByName>);
  };
}

/** One line for the text report: ranks, distribution, tasks per rank, messages and bytes. */
export function formatClusterSummary(c: ClusterSummary): string {
  const t = c.total;
  return (
    `cluster: ${c.ranks} ranks, distribution ${c.distribution}, tasks per rank ${c.perRank.map((r) => r.tasks).join('/')}, ` +
    `${t.messagesSent} messages (${formatBytes(t.bytesSent)}), gather ${t.gatherMessages} messages (${formatBytes(t.gatherBytes)}), ` +
    `data per rank ${c.perRank.map((r) => formatBytes(r.peakBytes)).join('/')} (before the gather)`
  );
}
