/**
 * The contract every workload generator follows, so the CLI, sweeps and benchmarks can
 * build any task graph from the same size parameters.
 */
import type { TaskGraph } from '../core/graph.ts';
import type { Submitter } from './submitter.ts';

/** Size parameters shared by the generators; each reads those that apply to it. */
export interface WorkloadParams {
  /** Tiles (or blocks) per dimension: N x N tasks for matmul2d, an N x N tile matrix otherwise. */
  tiles?: number;
  /** Edge of a square tile, in elements. */
  tileSize?: number;
  /** Inner dimension of matmul2d's block products. */
  inner?: number;
  /** Element precision: 'single' (4 bytes) or 'double' (8 bytes). */
  precision?: 'single' | 'double';
  /** Iterations of iterated workloads (stencil). */
  iterations?: number;
  /** Seed of randomly generated workloads. */
  seed?: number;
  /** Task Bench: the dependence pattern (trivial, stencil_1d, fft, ...; src/workloads/taskbench). */
  pattern?: string;
  /** Task Bench: points per timestep at most. */
  width?: number;
  /** Task Bench: timesteps. */
  steps?: number;
  /** Task Bench: the kernel (empty, busy_wait, compute_bound, memory_bound, load_imbalance). */
  kernel?: string;
  /** Task Bench: dependencies per point of nearest, spread and random_nearest (default 3). */
  radix?: number;
  /** Task Bench: dependence sets of spread and random_nearest (default 3). */
  period?: number;
  /** Task Bench: bytes of each task's output (default 16). */
  outputBytes?: number;
  /** Task Bench: spread of load_imbalance's iterations around `iterations` (default 0). */
  imbalance?: number;
  /** Task Bench: bytes of each task's scratch memory, which memory_bound streams through (default 0). */
  scratchBytes?: number;
  /** Seed of the initial values of the data of a run that computes (default 1). */
  dataSeed?: number;
  /** Number of tasks of the random workload. */
  tasks?: number;
  /** Number of data of the random workload. */
  data?: number;
  /** Inputs per task of the random workload. */
  degree?: number;
  /** Data every task of the random workload also reads (default 0). */
  shared?: number;
  /** Keep matmul2d's C blocks (write them back) instead of discarding them as seed 000 does. */
  keepOutputs?: boolean;
  /**
   * wontUse hints where StarPU's examples give them (default true): Cholesky's finished tiles
   * (a tile of column k once its last task is submitted), matmul2d's C blocks when kept.
   */
  hints?: boolean;
  /**
   * Cholesky: order of each step's trailing updates: 'columns' (default: for each column n, the
   * SYRK of n then the GEMMs below it, as StarPU's cholesky_implicit example and seed 004's
   * Table 5.2 submit them) or 'rows' (for each row m, the GEMMs of row m then its SYRK).
   */
  order?: 'rows' | 'columns';
  /**
   * Cholesky: the priorities of StarPU's cholesky_implicit example by default (its "-priority
   * 0"): POTRF(k) 2N - 2k, TRSM(m, k) 2N - 2k - m, SYRK(n, k) 2N - 2k - n, GEMM(m, n, k)
   * 2N - 2k - m - n (default false: no priorities).
   */
  starpuPriorities?: boolean;
  /**
   * The node that will hold every handle (host memory, or the disk of a run out of core,
   * kind 'disk'): when given, a workload whose data exceed it is refused before its tasks are
   * generated (the engine would refuse it anyway, later).
   */
  host?: { name: string; capacity: number; kind?: 'host' | 'gpu' | 'disk' };
}

/** A generated task graph and what a report needs to know about it. */
export interface Workload {
  /** Generator name ("cholesky"). */
  readonly name: string;
  /** The graph, all tasks submitted. */
  readonly graph: TaskGraph;
  /** One line describing the instance ("cholesky 20x20 tiles of 1920, single: 1540 tasks, 2.1 GiB"). */
  readonly summary: string;
  /** Bytes of all handles that tasks read (the working set a memory must hold). */
  readonly workingSetBytes: number;
  /** Total flops of all tasks. */
  readonly totalFlops: number;
  /** The parameters used, defaults filled in. */
  readonly params: Required<Pick<WorkloadParams, 'tiles' | 'tileSize' | 'precision'>> & WorkloadParams;
}

/** A validated instance of a workload: its parameters with defaults filled in. */
export interface WorkloadInstance {
  /** The instance after the workload's name ("20x20 tiles of 1920, single"). */
  readonly description: string;
  /** Bytes of every datum it declares (checked against the host memory before submitting). */
  readonly dataBytes: number;
  /** The parameters used, defaults filled in. */
  readonly params: Workload['params'];
}

/**
 * A workload written once against the Submitter: the simulator builds its graph with
 * generate(), a real run submits it to a Runtime (src/exec/run-workload.ts).
 */
export interface WorkloadGenerator<I extends WorkloadInstance = WorkloadInstance> {
  /** Name used on the command line. */
  readonly name: string;
  /** One-line description with its seed reference. */
  readonly description: string;
  /** Validates the parameters and fills in defaults; throws LocusError on parameters out of range. */
  instance(params: WorkloadParams): I;
  /** Declares the instance's data and codelets and submits its tasks, in order. */
  submit(s: Submitter, instance: I): void;
  /** Builds the simulated task graph of an instance; throws LocusError on bad parameters. */
  generate(params: WorkloadParams): Workload;
}
