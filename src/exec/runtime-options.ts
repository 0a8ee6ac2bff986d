/**
 * The library API's types (docs/api.md): data, codelets, per-task options and the options of
 * a Runtime.
 */
import type { Distribution } from '../cluster/distribution.ts';
import type { Platform } from '../core/platform.ts';
import type { Scheduler } from '../core/policy.ts';
import type { WorkerKind } from '../core/types.ts';
import type { SchedulerOptions } from '../sched/index.ts';
import type { DType } from './protocol.ts';

/** RuntimeOptions.disk: a disk below host memory (out of core). */
export interface OutOfCoreDisk {
  /** Real mode: the directory holding the disk's file (required there). */
  path?: string | undefined;
  /** Bytes the disk may hold, or a size string ("64GiB"). */
  capacity?: number | string | undefined;
}

/** Out of core, what a real runtime measured (Runtime.outOfCore). */
export interface OutOfCoreStats {
  /** The directory given (RuntimeOptions.disk.path). */
  path: string;
  /** The host memory cap, bytes. */
  hostMem: number;
  /** The most bytes of host buffers (in use and pooled) the runtime held at once. */
  hostPeakBytes: number;
  /** Bytes the disk file took (every datum's region, reserved at registration). */
  diskBytes: number;
  /** Bytes read from and written to the disk during the run (registration excluded). */
  bytesRead: number;
  bytesWritten: number;
  /**
   * Bytes of those reads that the read-ahead asked for (RuntimeOptions.readAhead): inputs of
   * ready tasks the scheduler had not handed out yet, read into spare host memory.
   */
  bytesReadAhead: number;
}

/** An access mode as the API spells it. */
export type Mode = 'R' | 'W' | 'RW';

/** A typed array the runtime can hold data in. */
export type DataArray = Float64Array | Float32Array | Int32Array | Uint8Array;

/** A registered piece of data (StarPU's data handle). */
export interface Data {
  /** Handle id. */
  readonly id: number;
  /** Name used in reports and errors. */
  readonly name: string;
  /** Element type. */
  readonly dtype: DType;
  /** Number of elements. */
  readonly length: number;
}

/** A codelet as declared to the runtime. */
export interface CodeletSpec {
  /** Name (also the key of per-codelet rates in platform files). */
  name: string;
  /**
   * The CPU implementation: an ES module URL (import.meta.resolve or a file:// URL) and the
   * name of its exported function `(data: TypedArray[], args: Float64Array) => void`, which
   * must be synchronous. Without it, tasks of this codelet run nothing (useful for
   * simulations and overhead tests).
   */
  kernel?: { module: string | URL; export: string } | undefined;
  /**
   * The GPU implementation, run on WebGPU devices (`backend: 'webgpu'`): WGSL and how a task
   * dispatches it (GpuImplementation). A codelet may have a CPU implementation, a GPU one, or
   * both; each task runs only on workers whose kind has one.
   */
  gpu?: GpuImplementation | undefined;
  /** Flop count from the task's dims (for reports and the schedulers' estimates). */
  flops?: ((...dims: number[]) => number) | undefined;
  /**
   * Worker kinds that may run it. Default: where it has an implementation; on the threads
   * backend, both kinds run the CPU kernel (GPUs are emulated devices there).
   */
  kinds?: readonly WorkerKind[] | undefined;
  /**
   * Real mode: longest a task of this codelet may run, in seconds or as a duration string
   * ("10s", "500ms"); a task that runs longer fails (its thread is terminated and replaced,
   * its writes undone). Overrides RuntimeOptions.taskTimeLimit; submit's timeLimit overrides it.
   */
  timeLimit?: number | string | undefined;
}

/**
 * A codelet's GPU implementation in WGSL. Its compute entry point is `main`; binding i of
 * group 0 is the task's i-th datum, in access order (a storage buffer: `var<storage, read>`
 * for R, `var<storage, read_write>` for W and RW), and binding n (n = the number of data) holds
 * the parameters, as a `var<uniform>` of at most 4 words or a `var<storage, read>` array.
 * WGSL has no float64: give float64 data to CPU implementations.
 */
export interface GpuImplementation {
  /**
   * The WGSL source (entry point `main`), or a function giving it for a task's data count and
   * arguments (a kernel generated per layout; each distinct source is compiled once).
   */
  wgsl: string | ((dataCount: number, args: Float64Array) => string);
  /**
   * Workgroups to dispatch for a task, from its data's sizes in bytes (access order) and its
   * arguments: a count, or [x, y, z].
   */
  workgroups: (bytes: readonly number[], args: Float64Array) => number | readonly [number, number, number];
  /** The parameter words (u32) at binding n; default: the task's args as float32 values. */
  params?: ((bytes: readonly number[], args: Float64Array) => Uint32Array<ArrayBuffer>) | undefined;
}

/** Options of a datum (Runtime.data, Runtime.scratch). */
export interface DataOptions {
  /** Name in reports, traces and errors. */
  name?: string | undefined;
  /**
   * A scratch output whose content is discarded after each task that writes it, never written
   * back home (seed 000's matrix product discards its C blocks so): its array keeps its
   * initial content. Default false.
   */
  discard?: boolean | undefined;
}

/** A declared codelet. */
export interface Codelet {
  /** Codelet id. */
  readonly id: number;
  /** Its name. */
  readonly name: string;
}

/** Per-task options. */
export interface SubmitOptions {
  /** Numeric arguments handed to the kernel (tile sizes, scalars). */
  args?: readonly number[] | undefined;
  /** Sizes passed to the codelet's flops function. */
  dims?: readonly number[] | undefined;
  /** Flop count (overrides the codelet's function). */
  flops?: number | undefined;
  /** Priority (larger runs first under priority-aware schedulers). */
  priority?: number | undefined;
  /** Name in reports, traces and errors. */
  name?: string | undefined;
  /** The part of the data the task belongs to (a block), for owner-computes placement (`static`). */
  affinity?: number | undefined;
  /** The iteration the task belongs to, for the report's per-iteration bytes. */
  phase?: number | undefined;
  /** Real mode: this task's time limit (seconds or "10s"), overriding its codelet's (CodeletSpec.timeLimit). */
  timeLimit?: number | string | undefined;
  /**
   * Called once when the task ends: with no argument when it finished, with the error when it
   * failed or was cancelled. It may submit more tasks. An exception it throws is reported by
   * the next wait().
   */
  onDone?: ((error?: Error) => void) | undefined;
}

/** Options of Runtime.wait(). */
export interface WaitOptions {
  /**
   * Also bring every datum tasks wrote home and into the registered arrays, as sync() does
   * (without it, your arrays keep their old values until sync(), acquire() or close()).
   */
  sync?: boolean | undefined;
}

/** How a Runtime runs. */
export interface RuntimeOptions {
  /**
   * 'mpi': run distributed, one rank per process of an `mpirun` job (Runtime.create then
   * returns a ClusterRuntime: every rank runs the same program; the owner of the datum a task
   * writes runs it; src/cluster/cluster-runtime.ts). Default: one process.
   */
  cluster?: 'mpi' | undefined;
  /**
   * With cluster 'mpi': which rank owns each datum, from its block coordinates: '2d' (block
   * cyclic over the squarest grid, the default), '2d:PxQ', '1d' (cyclic over block rows), or a
   * function of { index, block } returning a rank.
   */
  distribution?: string | Distribution | undefined;
  /** With cluster 'mpi': seconds without any message completing before the job is aborted (default 120; 0: never). */
  mpiTimeoutS?: number | undefined;
  /**
   * Where tasks run: 'threads' (the default for real mode): CPU kernels on worker threads, GPUs
   * as emulated device memories; 'webgpu': CPU kernels on worker threads and GPU workers on
   * real WebGPU devices (one logical device per GPU of the platform, capped at its memory;
   * needs the optional `webgpu` package and a driver); 'simulated': the platform simulated in
   * virtual time, nothing runs (the same as mode 'simulated').
   */
  backend?: 'threads' | 'webgpu' | 'simulated' | undefined;
  /** 'real' (default): the kernels run; 'simulated' (or its short form 'sim'): the platform is simulated. */
  mode?: 'real' | 'simulated' | 'sim' | undefined;
  /** A preset name, a platform file path, or a Platform (default 'local': this machine). */
  platform?: string | Platform | undefined;
  /** CPU workers of a preset (default: the preset's; 'local': one per core). */
  cpus?: number | undefined;
  /** GPUs of a preset; on 'local', emulated devices (default 0). */
  gpus?: number | undefined;
  /** Memory of every GPU / emulated device, bytes or a size string ("8MiB"). */
  gpuMemory?: number | string | undefined;
  /**
   * Out of core (with `disk`): host memory's capacity, bytes or a size string ("1MiB"). The
   * runtime's copies of data in RAM (host replicas, in use and pooled) stay within it; the
   * application's own arrays are not counted (docs/api.md, out of core).
   */
  hostMem?: number | string | undefined;
  /**
   * Out of core: a disk below host memory, every datum's home. Real mode: `path` is a directory
   * in which the runtime makes a folder of its own for one file (removed at close, also after
   * a failure and when the process exits); `capacity` caps the bytes it may take there (default:
   * the file system's free space). Simulated mode: a disk at the NVMe figures of
   * DISK_PRESETS.nvme, `capacity` default 2 TB, `path` unused.
   */
  disk?: OutOfCoreDisk | undefined;
  /**
   * Out of core, real mode: read ahead from the disk the inputs of the ready tasks the scheduler
   * has not handed out yet, highest priority first, into the host memory no popped task waits
   * for, evicting only data none of the popped or looked-at tasks accesses
   * (src/exec/read-ahead.ts). Default false: the engine's pipelines already read the popped
   * tasks' inputs ahead, and the read-ahead beyond them showed no consistent gain (measured in
   * docs/results.md).
   */
  readAhead?: boolean | undefined;
  /**
   * Scheduling policy name or object. Default: 'lws' on real backends (threads, webgpu: StarPU's
   * default, locality work stealing), 'eager' simulated (as simulate() and `locus run`).
   */
  scheduler?: string | Scheduler | undefined;
  /** Options of the named scheduler. */
  schedulerOptions?: SchedulerOptions | undefined;
  /** Eviction policy name (default 'lru'). */
  eviction?: string | undefined;
  /** Seed of the run's random choices (default 1). */
  seed?: number | undefined;
  /**
   * Real mode, worker-thread tasks (CPUs and emulated devices): check every kernel's accesses.
   * Before a kernel runs, its W data are filled with a poison pattern, and its R data copied;
   * after it, a task whose kernel changed an R datum, or left any element of a W datum
   * unwritten, fails naming the task and the datum. Slower (every datum is copied or scanned):
   * for testing kernels. (Not `check`: runWorkload's `check` compares with a sequential run.)
   */
  checkAccesses?: boolean | undefined;
  /** Real mode: hold copies to/from emulated devices back to the platform's link speed. */
  throttle?: boolean | undefined;
  /**
   * Real mode: time limit of every task (seconds or "10s") unless its codelet or submit()
   * gives one; a task that runs longer fails. Default: none. (A simulation runs no kernel:
   * limits are checked there but have no effect.)
   */
  taskTimeLimit?: number | string | undefined;
  /** Tasks each worker holds at once (real mode default 4; simulated: the engine's defaults). */
  pipeline?: number | undefined;
  /** Tasks a GPU pops ahead of its pipeline (the scheduler's or engine's default otherwise). */
  lookahead?: number | undefined;
  /** Evict clean replicas before modified ones (default true; see EngineOptions.cleanFirst). */
  cleanFirst?: boolean | undefined;
  /** Percent of a GPU's replicas kept clean by early write-backs (default 0: off; see EngineOptions.minClean). */
  minClean?: number | undefined;
  /** Percent clean once those write-backs stop (default minClean; see EngineOptions.targetClean). */
  targetClean?: number | undefined;
  /** Set bottom-level priorities on each batch (for dmdas, prio, darts tie-breaks). */
  priorities?: 'bottom-level' | undefined;
  /** Record a Chrome trace (Runtime.trace). */
  trace?: boolean | undefined;
  /**
   * Recycle finished tasks' records (default true), so that a long session runs in bounded
   * memory: task ids stay valid (docs/api.md, "Long sessions"); false keeps every record.
   */
  recycle?: boolean | undefined;
  /** Progress: tasks ended out of those submitted. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** Aborts the runtime (Ctrl-C): worker threads are stopped and pending waits reject. */
  signal?: AbortSignal | undefined;
  /**
   * Performance models (src/perf): 'update' (real mode's default) estimates durations from
   * the calibrated models when there are any and saves every real run's measurements into
   * them; 'read' only uses them (the simulated mode's default); 'off' uses the platform's rates.
   */
  perfModels?: 'update' | 'read' | 'off' | undefined;
  /** The model folder (default: LOCUS_PERFMODEL_DIR, else ~/.locus/perfmodels). */
  perfModelDir?: string | undefined;
  /**
   * Calibration mode (StarPU's STARPU_CALIBRATE): dm* schedulers send each task to a worker kind whose
   * model for it has fewer than `minSamples` measurements.
   */
  calibrate?: boolean | undefined;
  /** Measurements that make a model calibrated (default 10). */
  minSamples?: number | undefined;
  /**
   * Receives one-line warnings that do not stop a run (performance models that could not be
   * read or saved, a kernel that failed to load); default: written to stderr as
   * "locus: warning: ...".
   */
  onWarning?: ((message: string) => void) | undefined;
}
