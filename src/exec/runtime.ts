/**
 * The library API (docs/api.md): an application registers data, declares codelets whose CPU
 * kernel lives in a module the worker threads import, and submits tasks with access modes;
 * each submission returns a Task whose promise settles when it finishes, fails or is
 * cancelled. Tasks run while more are submitted (from anywhere: a task's callback included),
 * on one engine that lives as long as the runtime, so data stay on the (emulated) devices
 * between waits: write-back happens on eviction, on acquire, on sync, on unregister and at
 * close. The same program runs simulated by changing `mode`: the simulator replays the
 * platform's rates and no kernel runs.
 *
 * `acquire(d, mode)` (seed 001's non-blocking acquire) resolves once every earlier task that
 * touches d has ended and d's home copy is valid; later tasks that conflict with it wait for
 * `release(d)`. Policies that cannot take tasks while they run (static, SuperMatrix, ...) run
 * the tasks in batches instead: each batch's engine ends with all data home.
 *
 * Task ids the application sees (Task.id, tickets, failures) count every task submitted over
 * the runtime's life. The engine recycles the records of finished tasks (RuntimeOptions
 * .recycle): its ids, the graph's and the tables below (status, promises, callbacks, payloads)
 * then start at the first task kept, `graph.retired` after the application's; the maps
 * keyed by task (held data, tickets, acquires, waits) hold the application's ids.
 *
 * The API's types are in runtime-options.ts, the Task and its errors in task.ts, the engine of
 * a session in session.ts, the performance models in runtime-models.ts. Over 500 lines: the
 * API surface itself (data, codelets, submit, wait, acquire/release, sync, unregister, close)
 * with the argument checks each entry point owes its caller, and the pump that hands tasks to
 * the engine.
 */

import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClusterRuntime } from '../cluster/cluster-runtime.ts';
import { TaskGraph } from '../core/graph.ts';
import { FloatList, growU8, IntList } from '../core/growable.ts';
import { parseRunMode } from '../core/mode-word.ts';
import type { Platform } from '../core/platform.ts';
import type { EvictionPolicy, Scheduler } from '../core/policy.ts';
import { AccessMode, LocusError, type WorkerKind } from '../core/types.ts';
import type { TaskFailure } from '../drive/driver.ts';
import { realMachineName } from '../perf/machine-name.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { parseDuration, parseSize } from '../platform/units.ts';
import type { SchedulerOptions } from '../sched/index.ts';
import { ChromeTrace } from '../trace/chrome.ts';
import { buildReport, type RunReport } from '../trace/report.ts';
import type { LogicalDevice } from '../webgpu/device.ts';
import type { WebGpuKernel } from '../webgpu/kernel.ts';
import { BufferStore } from './buffers.ts';
import type { DiskFiles } from './disk-files.ts';
import { TiledMatrix, type TypedMatrix } from './matrix.ts';
import { outOfCore } from './out-of-core.ts';
import { WorkerPool } from './pool.ts';
import { DTYPES, type DType, type KernelRef } from './protocol.ts';
import { dropFront, dropPayloads, dropStates } from './recycle.ts';
import { RuntimeModels } from './runtime-models.ts';
import { checkRuntimeOptions } from './runtime-option-checks.ts';
import { openSession, type Session, type SessionSetup } from './session.ts';

export { withoutTaskEvents } from '../drive/task-events.ts';

import type {
  Codelet,
  CodeletSpec,
  Data,
  DataArray,
  DataOptions,
  GpuImplementation,
  Mode,
  OutOfCoreStats,
  RuntimeOptions,
  SubmitOptions,
  WaitOptions,
} from './runtime-options.ts';
import {
  ACQUIRED,
  CANCELLED,
  type Deferred,
  deferred,
  FAILED,
  FINISHED,
  PENDING,
  Task,
  TaskCancelledError,
  TaskFailedError,
} from './task.ts';
import { checkRecordSize } from './thread-backend.ts';

export type { TaskFailure } from '../drive/driver.ts';
export type * from './runtime-options.ts';
export { Task, TaskCancelledError, TaskFailedError } from './task.ts';

const MODES: Record<Mode, AccessMode> = { R: AccessMode.R, W: AccessMode.W, RW: AccessMode.RW };

/** Where a registered array's content goes back to (on acquire/release, sync, close). */
interface Mirror {
  handle: number;
  target: DataArray;
}

/** Every object a runtime hands out, with the runtime that owns it. */
const owners = new WeakMap<object, Runtime>();

/** A Locus runtime: data, codelets, tasks, run for real on worker threads or simulated. */
export class Runtime {
  /** The machine it runs on (or simulates). */
  readonly platform: Platform;
  /** 'real' or 'simulated'. */
  readonly mode: 'real' | 'simulated';
  /** The Chrome trace of the runtime's tasks so far, when RuntimeOptions.trace is set. */
  trace: ChromeTrace | undefined;
  private options: RuntimeOptions;
  private readonly store: BufferStore;
  /** Out of core: the host memory cap (bytes). */
  private readonly hostMem: number | undefined;
  /** Out of core: what the read-ahead asked for, over every session. */
  private readonly readAheadStats = { requests: 0, bytes: 0 };
  /** Out of core: copies of acquired data read from the disk, and whether they go back to it. */
  private readonly staged = new Map<number, { view: DataArray; write: boolean }>();
  private readonly names: (string | undefined)[] = [];
  private readonly codelets: { spec: CodeletSpec; kernel: number }[] = [];
  private readonly kernels: KernelRef[] = [];
  private kernelsLoaded = 0;
  private readonly mirrorOf: (Mirror | undefined)[] = [];
  private readonly matrices: TiledMatrix[] = [];
  private readonly graph = new TaskGraph();
  private readonly payloads = {
    kernel: new IntList(),
    argStart: new IntList(),
    args: new FloatList(),
    timeLimit: new FloatList(),
  };
  /** Time limit of every task (RuntimeOptions.taskTimeLimit), seconds; 0: none. */
  private readonly taskTimeLimit: number;
  /** Time limit of each codelet's tasks, seconds (0: none; undefined: the runtime's). */
  private readonly codeletLimit: (number | undefined)[] = [];
  private readonly acquireCodelet: number;
  /** Per task (from the first one kept, graph.retired): its state, promise and callback. */
  private status = new Uint8Array(64);
  private readonly pending: (Deferred | undefined)[] = [];
  private readonly callbacks: (((error?: Error) => void) | undefined)[] = [];
  /** The first task (a graph index) not ended. */
  private lowWater = 0;
  /** Waits until the application's task `upTo` (an application id). */
  private readonly waiters: { upTo: number; resolve: () => void }[] = [];
  /** Failures, with the application's task ids. */
  private readonly failures: TaskFailure[] = [];
  /** Labels of the cancelled tasks, by application id (their state outlives recycling). */
  private readonly cancelledLabels = new Map<number, string>();
  /** Failures a wait() has reported. */
  private readonly reported = new WeakSet<TaskFailure>();
  /** The current engine must end before the next tasks (new policies or models). */
  private retire = false;
  private cancelledSince = 0;
  private readonly callbackErrors: unknown[] = [];
  /** Handle -> the acquire task holding it (or waiting for it), an application id. */
  private readonly held = new Map<number, number>();
  /** Ticket acquires (acquireTicket): acquire task (application id) -> handle. */
  private readonly tickets = new Map<number, number>();
  /** Acquires that got their data and are not released. */
  private holding = 0;
  /** Acquires waiting for their data, by application id. */
  private readonly acquireWaiters = new Map<number, () => void>();
  /** Handles written since their content last went back to the registered arrays. */
  private readonly written = new Set<number>();
  private session: Session | undefined;
  /** The application id of the current session's first task. */
  private sessionFrom = 0;
  private chain: Promise<void> = Promise.resolve();
  private pumpQueued = false;
  private loop: Promise<void> | undefined;
  private closed = false;
  private fatal: Error | undefined;
  /** Whether a promise or callback the application holds has received `fatal`. */
  private fatalDelivered = false;
  private pool: WorkerPool | undefined;
  private readonly models: RuntimeModels;
  /** Which backend runs the tasks. */
  private readonly backendName: 'threads' | 'webgpu' | 'simulated';
  /** The webgpu backend's devices, WGSL kernels by codelet id, and CPU workers. */
  private gpu: SessionSetup['gpu'];
  private readonly gpuKernels: (WebGpuKernel | undefined)[] = [];
  /** The CPU-only twin of a codelet with WGSL, for its tasks on float64 data. */
  private readonly float64Twins = new Map<number, number>();

  private constructor(
    options: RuntimeOptions,
    platform: Platform,
    backend: 'threads' | 'webgpu' | 'simulated',
    disk?: DiskFiles,
    hostMem?: number,
  ) {
    this.store = new BufferStore(disk, hostMem);
    this.hostMem = hostMem;
    this.options = options;
    this.platform = platform;
    this.backendName = backend;
    this.mode = backend === 'simulated' ? 'simulated' : 'real';
    // A WebGPU machine's models are its own (what `locus calibrate --backend webgpu` measures):
    // real GPUs' times never mix with emulated devices' on the same platform.
    this.models = new RuntimeModels(
      platform,
      this.mode === 'real',
      (m) => this.warn(m),
      backend === 'webgpu' ? `${platform.name}-webgpu` : realMachineName(platform.name),
      backend === 'webgpu' ? `${platform.name}-webgpu` : platform.name,
    );
    this.taskTimeLimit = timeLimitOf(options.taskTimeLimit, 'taskTimeLimit') ?? 0;
    this.payloads.argStart.push(0);
    this.acquireCodelet = this.graph.addCodelet({ name: 'acquire', kinds: ['cpu'] });
  }

  /**
   * Creates a runtime on the backend `options.backend` names: worker threads ('threads', the
   * default), worker threads and WebGPU devices ('webgpu'), or the simulator ('simulated').
   * A real runtime starts one worker thread per CPU worker (per worker on 'threads', whose GPUs
   * are emulated) and, on 'webgpu', one logical device per GPU memory node. With
   * `cluster: 'mpi'` (under mpirun) it returns this rank's ClusterRuntime instead.
   */
  static create(options: RuntimeOptions & { cluster: 'mpi' }): Promise<ClusterRuntime>;
  static create(options?: RuntimeOptions): Promise<Runtime>;
  static async create(options: RuntimeOptions = {}): Promise<Runtime | ClusterRuntime> {
    if (options.cluster !== undefined) {
      // One rank of a distributed run (under mpirun): its own Runtime, placed by the planner.
      const { ClusterRuntime } = await import('../cluster/cluster-runtime.ts');
      return ClusterRuntime.create(options);
    }
    if (options.distribution !== undefined || options.mpiTimeoutS !== undefined) {
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        "distribution and mpiTimeoutS apply to a distributed run: add cluster: 'mpi' (and run under mpirun)",
      );
    }
    checkRuntimeOptions(options);
    const mode = parseRunMode(
      options.mode ?? (options.backend === 'simulated' ? 'simulated' : 'real'),
      'mode',
    );
    const backend = options.backend ?? (mode === 'simulated' ? 'simulated' : 'threads');
    if (backend !== 'threads' && backend !== 'webgpu' && backend !== 'simulated') {
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `backend must be 'threads', 'webgpu' or 'simulated' (got '${String(backend)}')`,
      );
    }
    if ((backend === 'simulated') !== (mode === 'simulated')) {
      throw new LocusError(
        'LOCUS_OPTION_CONFLICT',
        `mode '${mode}' and backend '${backend}' disagree: a simulated runtime has backend 'simulated' (give one of the two)`,
      );
    }
    const gpuMem = typeof options.gpuMemory === 'string' ? parseSize(options.gpuMemory) : options.gpuMemory;
    const resolved =
      typeof options.platform === 'object'
        ? options.platform
        : resolvePlatform(options.platform ?? 'local', {
            cpus: options.cpus ?? (options.platform === undefined ? availableParallelism() : undefined),
            gpus: options.gpus,
            gpuMem,
          });
    // Out of core: host memory capped, a disk attached (and, in real mode, its file made).
    const ooc = outOfCore(options, resolved, mode === 'real');
    const platform = ooc.platform;
    try {
      return await Runtime.open({ ...options, mode, backend }, platform, backend, ooc.disk, ooc.hostMem);
    } catch (e) {
      ooc.disk?.removeSync();
      throw e;
    }
  }

  /** Create's second half: the runtime on its resolved platform, threads and devices started. */
  private static async open(
    options: RuntimeOptions & { mode: 'real' | 'simulated' },
    platform: Platform,
    backend: 'threads' | 'webgpu' | 'simulated',
    disk: DiskFiles | undefined,
    hostMem: number | undefined,
  ): Promise<Runtime> {
    const mode = options.mode;
    // The options as the sessions read them: the mode the backend implies.
    const rt = new Runtime(options, platform, backend, disk, hostMem);
    if (mode === 'real') {
      if (platform.workers.length > 256) {
        throw new LocusError(
          'LOCUS_PLATFORM_INVALID',
          `platform ${platform.name} has ${platform.workers.length} workers: a real run starts one thread each (at most 256); use a platform with fewer workers`,
        );
      }
      if (backend === 'webgpu') await rt.openDevices();
      rt.pool = new WorkerPool(rt.gpu ? rt.gpu.cpuWorkers.length : platform.workers.length, true);
    }
    options.signal?.addEventListener('abort', () => rt.abort(), { once: true });
    return rt;
  }

  /** The webgpu backend: a logical device per GPU memory node, capped at its memory. */
  private async openDevices(): Promise<void> {
    const { createLogicalDevice } = await import('../webgpu/device.ts');
    const p = this.platform;
    const devices = new Map<number, LogicalDevice>();
    try {
      for (const [n, node] of p.nodes.entries())
        if (node.kind === 'gpu') devices.set(n, await createLogicalDevice(node.name, node.capacity));
    } catch (e) {
      for (const d of devices.values()) d.dispose();
      throw e;
    }
    const cpuWorkers = p.workers.flatMap((w, i) => (p.nodes[w.node]!.kind === 'gpu' ? [] : [i]));
    const codeletOf = this.graph.taskCodelet;
    this.gpu = {
      devices,
      cpuWorkers,
      kernelOf: (task) => this.gpuKernels[codeletOf.data[task]!],
    };
  }

  // ---------------------------------------------------------------- data

  /**
   * Registers `array`: tasks then read and write a runtime copy, whose content goes back into
   * `array` when the application acquires and releases it, calls sync() or unregister(), and
   * at close(). An array that views a whole SharedArrayBuffer is used in place instead (no
   * copy; a second registration while the first holds is refused): it is then the home copy
   * itself, and holds the results at those same points (in between, it may hold a mix of old
   * and new values).
   */
  data(array: DataArray, options: DataOptions = {}): Data {
    const dtype = dtypeOf(array);
    const holder = this.store.holderOf(array);
    if (holder !== undefined && this.names[holder] !== undefined)
      throw new LocusError(
        'LOCUS_DATA_INVALID',
        `data(): this array's SharedArrayBuffer is already registered in place as ${this.names[holder]}: register it once (or unregister ${this.names[holder]} first)`,
      );
    const id = this.addHandle(dtype, array.length, array, options.name, options.discard);
    this.mirrorOf[id] = { handle: id, target: array };
    return this.describe(id);
  }

  /** Registers runtime-owned data of `length` zero elements (read it with acquire). */
  scratch(dtype: DType, length: number, options: DataOptions = {}): Data {
    if (!DTYPES.includes(dtype))
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `unknown dtype '${dtype}': use one of ${DTYPES.join(', ')}`,
      );
    return this.describe(
      this.addHandle(DTYPES.indexOf(dtype), length, undefined, options.name, options.discard),
    );
  }

  /**
   * Registers a column-major `rows` x `cols` matrix cut into `tile` x `tile` tiles (the last
   * row and column of tiles may be smaller), each a handle whose content goes back into
   * `array` as for data().
   */
  matrix(
    array: Float64Array | Float32Array,
    rows: number,
    cols: number,
    tile: number,
    name = 'A',
  ): TiledMatrix {
    const m = new TiledMatrix(array, rows, cols, tile, name, (dtype, length, init, tileName) =>
      this.describe(this.addHandle(dtype, length, init, tileName)),
    );
    this.matrices.push(m);
    return m;
  }

  /**
   * The runtime's home copy of `d`: up to date while `d` is acquired, after sync() and close().
   * Out of core the home copy is on the disk: only an acquired datum can be read (its copy).
   */
  read(d: Data): DataArray {
    this.checkData(d, 'read');
    if (this.store.disk === undefined) return this.store.view(this.store.home[d.id]!);
    const staged = this.staged.get(d.id);
    if (staged === undefined)
      throw new LocusError(
        'LOCUS_STATE_INVALID',
        `read: out of core, ${d.name}'s home copy is on the disk: acquire it first (or read its registered array after sync())`,
      );
    return staged.view;
  }

  /** Out of core (real mode): the host memory cap, the most host buffers held, the disk's traffic. */
  get outOfCore(): OutOfCoreStats | undefined {
    const disk = this.store.disk;
    if (disk === undefined) return undefined;
    return {
      path: disk.path,
      hostMem: this.hostMem ?? this.platform.nodes[this.platform.homeNode]!.capacity,
      hostPeakBytes: this.store.hostPeak,
      diskBytes: disk.reserved,
      bytesRead: disk.bytesRead,
      bytesWritten: disk.bytesWritten,
      bytesReadAhead: this.readAheadStats.bytes,
    };
  }

  private addHandle(
    dtype: number,
    length: number,
    init: ArrayLike<number> | undefined,
    name?: string,
    discard?: boolean,
  ): number {
    this.checkOpen();
    if (!Number.isInteger(length) || length < 1) {
      throw new LocusError('LOCUS_DATA_INVALID', `data length must be a positive integer (got ${length})`);
    }
    const id = this.store.addHandle(dtype, length, init, name ?? `data${this.store.handleCount}`);
    const label = name ?? `data${id}`;
    this.names.push(label);
    const g = this.graph.addHandle(Math.max(1, this.store.handleBytes[id]!), {
      name: label,
      ...(discard ? { discard: true } : {}),
    });
    if (g !== id) throw new Error(`handle ids diverged (${g} vs ${id})`);
    return id;
  }

  private describe(id: number): Data {
    const dtype = DTYPES[this.store.handleDtype[id]!]!;
    const length = this.store.handleBytes[id]! / bytesOf(dtype);
    const d: Data = Object.freeze({ id, name: this.names[id]!, dtype, length });
    owners.set(d, this);
    return d;
  }

  /** Throws unless `d` is live data of this runtime. */
  private checkData(d: Data, what: string): void {
    const owner = owners.get(d as object);
    if (owner !== this) {
      throw new LocusError(
        'LOCUS_DATA_INVALID',
        owner === undefined
          ? `${what}: ${String((d as Partial<Data>)?.name ?? d)} is not data registered with a Runtime (use rt.data, rt.scratch or rt.matrix)`
          : `${what}: ${d.name} belongs to another Runtime: register it with this one`,
      );
    }
    if (this.names[d.id] === undefined)
      throw new LocusError('LOCUS_DATA_INVALID', `${what}: ${d.name} was unregistered`);
  }

  // ---------------------------------------------------------------- codelets and tasks

  /** Declares a codelet. */
  codelet(spec: CodeletSpec): Codelet {
    this.checkOpen();
    if (!spec.name) throw new LocusError('LOCUS_GRAPH_INVALID', 'a codelet needs a name');
    let kernel = -1;
    if (spec.kernel) {
      if (this.mode === 'real' && !spec.kernel.export)
        throw new LocusError('LOCUS_GRAPH_INVALID', `codelet ${spec.name}: kernel.export is empty`);
      const module = kernelModule(spec.name, spec.kernel.module);
      kernel = this.kernels.findIndex((k) => k.module === module && k.export === spec.kernel!.export);
      if (kernel < 0) kernel = this.kernels.push({ module, export: spec.kernel.export }) - 1;
    }
    const gpu = spec.gpu === undefined ? undefined : gpuKernelOf(spec.name, spec.gpu);
    const kinds = this.codeletKinds(spec);
    const limit = timeLimitOf(spec.timeLimit, `codelet ${spec.name}: timeLimit`);
    const gid = this.graph.addCodelet({ name: spec.name, kinds, flops: spec.flops });
    this.gpuKernels[gid] = gpu;
    this.codelets[gid] = { spec, kernel };
    this.codeletLimit[gid] = limit;
    const c: Codelet = Object.freeze({ id: gid, name: spec.name });
    owners.set(c, this);
    return c;
  }

  /**
   * The worker kinds a codelet runs on: its own `kinds`, else where it has an implementation
   * (the threads backend runs CPU kernels on its emulated GPUs too). Refused in one line when
   * no worker of the machine can run it.
   */
  private codeletKinds(spec: CodeletSpec): readonly WorkerKind[] {
    const name = spec.name;
    if (this.backendName === 'threads' && spec.gpu !== undefined && spec.kernel === undefined) {
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `codelet ${name} has only a GPU implementation (WGSL), which the threads backend cannot run: give it a CPU kernel, or create the runtime with backend: 'webgpu'`,
      );
    }
    let kinds: readonly WorkerKind[];
    if (spec.kinds !== undefined && this.backendName === 'webgpu')
      // Real GPUs run WGSL only, CPUs CPU kernels only: the kinds it has an implementation for.
      kinds = spec.kinds.filter((k) =>
        k === 'gpu' ? spec.gpu !== undefined : spec.kernel !== undefined || spec.gpu === undefined,
      );
    else if (spec.kinds !== undefined) kinds = spec.kinds;
    else if (spec.gpu === undefined || this.backendName === 'threads') kinds = ['cpu', 'gpu'];
    else kinds = spec.kernel === undefined ? ['gpu'] : ['cpu', 'gpu'];
    if (
      this.backendName === 'webgpu' &&
      spec.kernel !== undefined &&
      spec.gpu === undefined &&
      spec.kinds === undefined
    )
      kinds = ['cpu'];
    const here = new Set(this.platform.workers.map((w) => w.kind));
    if (!kinds.some((k) => here.has(k))) {
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `codelet ${name} runs on ${kinds.join(' or ')} workers, and this machine has ${[...here].join(' and ')} workers only: give it an implementation for them, or use a platform with ${kinds.join(' or ')} workers`,
      );
    }
    return kinds;
  }

  /**
   * On WebGPU, the codelet a task with float64 data runs as: WGSL has no float64, so such a task
   * of a codelet with WGSL runs on the CPUs only (a twin codelet of the same name, kinds cpu;
   * said once per codelet), and one whose codelet has no CPU kernel is refused in one line.
   */
  private float64Twin(gid: number, list: readonly (readonly [number, AccessMode])[], label: string): number {
    if (!list.some(([h]) => this.store.handleDtype[h] === 0)) return gid;
    const c = this.codelets[gid]!;
    if (c.kernel < 0)
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `task ${label} accesses float64 data, which WGSL cannot compute on, and codelet ${c.spec.name} has no CPU kernel: give it one, or use float32 data`,
      );
    let twin = this.float64Twins.get(gid);
    if (twin === undefined) {
      const g = this.graph.codelets[gid]!;
      twin = this.graph.addCodelet({ name: g.name, kinds: ['cpu'], flops: g.flops });
      this.codelets[twin] = c;
      this.codeletLimit[twin] = this.codeletLimit[gid];
      this.float64Twins.set(gid, twin);
      this.warn(`codelet ${c.spec.name}: its tasks on float64 data run on CPUs only (WGSL has no float64)`);
    }
    return twin;
  }

  /** Submits a task; it runs as soon as its data allow, while the application goes on. */
  submit(codelet: Codelet, accesses: readonly (readonly [Data, Mode])[], options: SubmitOptions = {}): Task {
    this.checkOpen();
    if (owners.get(codelet as object) !== this || this.codelets[codelet.id] === undefined) {
      throw new LocusError(
        'LOCUS_GRAPH_INVALID',
        `codelet ${String((codelet as Partial<Codelet>)?.name)} was not declared on this Runtime: declare it with rt.codelet`,
      );
    }
    const label = options.name ?? codelet.name;
    const list: [number, AccessMode][] = [];
    if (!Array.isArray(accesses)) throw badAccesses(label, accesses);
    for (const access of accesses as readonly unknown[]) {
      if (!Array.isArray(access) || access.length !== 2) throw badAccesses(label, access);
      const [d, mode] = access as unknown as readonly [Data, Mode];
      const m = MODES[mode];
      if (m === undefined)
        throw new LocusError(
          'LOCUS_GRAPH_INVALID',
          `task ${label}: access mode must be R, W or RW (got '${String(mode)}')`,
        );
      this.checkData(d, `task ${label}`);
      if (list.some(([h]) => h === d.id)) {
        throw new LocusError(
          'LOCUS_GRAPH_INVALID',
          `task ${label} lists ${d.name} twice: give each datum once, with mode RW if it is read and written`,
        );
      }
      list.push([d.id, m]);
    }
    const args = options.args ?? [];
    checkRecordSize(list.length, args.length, label);
    // (No message is built for the common case of no limit: submit is a hot path.)
    const limit =
      (options.timeLimit === undefined
        ? undefined
        : timeLimitOf(options.timeLimit, `task ${label}: timeLimit`)) ??
      this.codeletLimit[codelet.id] ??
      this.taskTimeLimit;
    const gid =
      this.gpuKernels[codelet.id] && this.gpu ? this.float64Twin(codelet.id, list, label) : codelet.id;
    const id = this.graph.submit(gid, list, {
      priority: options.priority,
      dims: options.dims,
      flops: options.flops,
      name: options.name,
      affinity: options.affinity,
      phase: options.phase,
    });
    this.recordPayload(this.codelets[codelet.id]!.kernel, args, limit);
    // A discarded datum's task writes never come home (DataOptions.discard): nothing to copy back.
    const discard = this.graph.handleDiscard.data;
    for (const [h, m] of list) if (m & AccessMode.W && discard[h] === 0) this.written.add(h);
    if (options.onDone) this.callbacks[id] = options.onDone;
    this.schedulePump();
    return new Task(id + this.graph.retired, this.graph.taskLabel(id), this);
  }

  private recordPayload(kernel: number, args: readonly number[], timeLimit = 0): void {
    const p = this.payloads;
    p.kernel.push(kernel);
    p.timeLimit.push(timeLimit);
    for (const a of args) p.args.push(a);
    p.argStart.push(p.args.length);
    if (this.status.length < this.graph.taskCount)
      this.status = growU8(this.status, 2 * this.graph.taskCount);
  }

  /** Tasks submitted and not ended yet (acquires being held count as ended). */
  get pendingTasks(): number {
    let n = 0;
    for (let t = this.lowWater; t < this.graph.taskCount; t++) if (this.status[t] === PENDING) n++;
    return n;
  }

  /** The promise behind Task.done (`id`: the application's). */
  taskPromise(id: number): Promise<void> {
    const s = this.stateOf(id);
    if (s === FINISHED || s === ACQUIRED) return Promise.resolve();
    if (s === FAILED) return Promise.reject(this.failureError(id));
    if (s === CANCELLED)
      return Promise.reject(
        new TaskCancelledError(this.cancelledLabels.get(id) ?? this.graph.taskLabel(id - this.graph.retired)),
      );
    if (this.fatal) {
      this.fatalDelivered = true;
      return Promise.reject(this.fatal);
    }
    const t = id - this.graph.retired;
    let d = this.pending[t];
    if (d === undefined) {
      d = deferred();
      this.pending[t] = d;
    }
    return d.promise;
  }

  /**
   * The state of the application's task `id`: from the status table, or, for a recycled task
   * (which had ended), finished unless it is among the failures or the cancelled tasks.
   */
  private stateOf(id: number): number {
    const t = id - this.graph.retired;
    if (t >= 0) return this.status[t]!;
    if (this.cancelledLabels.has(id)) return CANCELLED;
    return this.failures.some((f) => f.task === id) ? FAILED : FINISHED;
  }

  /** The state behind Task.state (`id`: the application's). */
  taskState(id: number): 'pending' | 'finished' | 'failed' | 'cancelled' {
    const s = this.stateOf(id);
    return s === FAILED || (s === PENDING && this.fatal)
      ? 'failed'
      : s === CANCELLED
        ? 'cancelled'
        : s === PENDING
          ? 'pending'
          : 'finished';
  }

  /** The error of the application's failed task `id`. */
  private failureError(id: number): Error {
    const t = id - this.graph.retired;
    const f = this.failures.find((x) => x.task === id) ?? {
      task: id,
      label: this.graph.taskNames[t] ?? `#${id}`,
      codelet: t >= 0 ? this.graph.codelets[this.graph.taskCodelet.data[t]!]!.name : 'unknown',
      message: 'unknown error',
    };
    return new TaskFailedError([f], 0);
  }

  // ---------------------------------------------------------------- waiting

  /**
   * Waits until every task submitted so far has ended, and resolves with the report of the
   * runtime's work so far. Data stay where they are (devices included): read results with
   * acquire(), sync() or close(). Rejects with TaskFailedError if tasks failed since the last
   * wait (the others ran; those depending on them were cancelled).
   */
  async wait(options: WaitOptions = {}): Promise<RunReport> {
    this.checkOpen();
    if (options.sync) {
      // Every task first (failures reported as without sync), then the data home.
      const report = await this.wait();
      await this.sync();
      return report;
    }
    const upTo = this.graph.taskCount + this.graph.retired;
    this.schedulePump();
    await this.chain;
    await this.untilEnded(upTo);
    const report = this.report();
    this.saveSamples();
    if (this.callbackErrors.length > 0) {
      const e = this.callbackErrors.splice(0)[0];
      throw e instanceof Error ? e : new Error(String(e));
    }
    const failed = this.failures.filter((f) => f.task < upTo && !this.reported.has(f));
    const cancelled = this.cancelledSince;
    this.cancelledSince = 0;
    if (failed.length > 0) {
      for (const f of failed) this.reported.add(f);
      // Reported: tasks submitted from now on no longer inherit these failures.
      this.session?.engine.acknowledgeFailures(Math.max(0, upTo - this.graph.retired));
      throw new TaskFailedError(failed, cancelled, report);
    }
    return report;
  }

  /**
   * Waits for the tasks submitted before it that touch `d`, makes its home copy valid and
   * resolves with it (seed 001's non-blocking acquire); until `release(d)`, later tasks that
   * would modify it (or, for 'RW', access it at all) wait.
   */
  async acquire(d: Data, mode: 'R' | 'RW' = 'R'): Promise<DataArray> {
    const m = await this.hold(d, mode);
    if (this.store.disk !== undefined) return this.stage(d.id, m);
    return this.store.view(this.store.home[d.id]!);
  }

  /** acquire() but for the array it resolves with: d is held, its home copy valid. */
  private async hold(d: Data, mode: 'R' | 'RW'): Promise<AccessMode> {
    this.checkOpen();
    this.checkData(d, 'acquire');
    const m = MODES[mode];
    if (m !== AccessMode.R && m !== AccessMode.RW)
      throw new LocusError('LOCUS_OPTION_INVALID', `acquire mode must be R or RW (got '${mode}')`);
    if (this.held.has(d.id))
      throw new LocusError('LOCUS_STATE_INVALID', `${d.name} is already acquired: release it first`);
    const task = this.graph.submit(this.acquireCodelet, [[d.id, m]], {
      app: true,
      name: `acquire(${d.name})`,
    });
    this.recordPayload(-1, []);
    const id = task + this.graph.retired;
    this.held.set(d.id, id);
    if (m & AccessMode.W) this.written.add(d.id);
    const got = new Promise<void>((resolve) => this.acquireWaiters.set(id, resolve));
    this.schedulePump();
    await got;
    this.throwFatal();
    return m;
  }

  /**
   * Out of core: h's home copy (on the disk, valid there) into its registered array: read
   * straight into it, or for a matrix tile through one datum's buffer.
   */
  private async loadBack(h: number): Promise<void> {
    const t = this.mirrorOf[h]?.target;
    if (t !== undefined && t.byteLength === this.store.handleBytes[h]) {
      await this.store.disk!.read(h, new Uint8Array(t.buffer, t.byteOffset, t.byteLength));
      return;
    }
    if (this.matrices.length === 0) return;
    await this.stage(h, AccessMode.R);
    this.copyBack([h]);
    this.unstage(h);
  }

  /**
   * Out of core: reads h's home copy (valid on the disk: it is acquired) into a new array the
   * application holds until release, which writes it back when acquired for writing.
   */
  private async stage(h: number, mode: AccessMode): Promise<DataArray> {
    const Ctor = [Float64Array, Float32Array, Int32Array, Uint8Array][this.store.handleDtype[h]!]!;
    const view = new Ctor(this.store.handleBytes[h]! / Ctor.BYTES_PER_ELEMENT);
    await this.store.disk!.read(h, new Uint8Array(view.buffer));
    this.staged.set(h, { view, write: (mode & AccessMode.W) !== 0 });
    return view;
  }

  /**
   * Out of core: ends h's staged copy; one acquired for writing goes back to the disk, ahead of
   * any later read of h (the disk's operations on a handle run in order).
   */
  private unstage(h: number): void {
    const staged = this.staged.get(h);
    if (staged === undefined) return;
    this.staged.delete(h);
    if (!staged.write) return;
    const v = staged.view;
    this.store.disk!.write(h, new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).catch((e: unknown) => {
      this.setFatal(e);
    });
  }

  /**
   * A non-blocking acquire of `d` that may overlap other acquisitions of it (the cluster layer
   * posts one per MPI send or receive): ordered with tasks as acquire() is; `data` resolves with
   * the home copy; end it with releaseTicket(ticket).
   */
  acquireTicket(d: Data, mode: 'R' | 'RW'): { ticket: number; data: Promise<DataArray> } {
    this.checkOpen();
    this.checkData(d, 'acquire');
    const m = MODES[mode];
    if (m !== AccessMode.R && m !== AccessMode.RW)
      throw new LocusError('LOCUS_OPTION_INVALID', `acquire mode must be R or RW (got '${mode}')`);
    const task = this.graph.submit(this.acquireCodelet, [[d.id, m]], {
      app: true,
      name: `acquire(${d.name})`,
    });
    this.recordPayload(-1, []);
    const ticket = task + this.graph.retired;
    this.tickets.set(ticket, d.id);
    if (m & AccessMode.W) this.written.add(d.id);
    const got = new Promise<void>((resolve) => this.acquireWaiters.set(ticket, resolve));
    this.schedulePump();
    const data = got.then(() => {
      this.throwFatal();
      if (this.store.disk !== undefined) return this.stage(d.id, m);
      return this.store.view(this.store.home[d.id]!);
    });
    return { ticket, data };
  }

  /** Ends an acquireTicket() once its data came: as release(), for that acquisition only. */
  releaseTicket(ticket: number): void {
    const h = this.tickets.get(ticket);
    if (h === undefined || this.stateOf(ticket) !== ACQUIRED)
      throw new LocusError('LOCUS_STATE_INVALID', `acquire ticket ${ticket} is not held`);
    this.tickets.delete(ticket);
    this.holding--;
    this.copyBack([h]);
    this.unstage(h);
    const s = this.session!;
    s.engine.release(ticket - this.graph.retired, s.backend.now());
    s.driver.execute();
    this.ensureLoop();
  }

  /** Ends an acquire: `d`'s content goes back to its registered array; held tasks may run. */
  release(d: Data): void {
    this.checkData(d, 'release');
    const task = this.held.get(d.id);
    if (task === undefined || this.stateOf(task) !== ACQUIRED)
      throw new LocusError('LOCUS_STATE_INVALID', `${d.name} is not acquired`);
    this.held.delete(d.id);
    this.holding--;
    this.copyBack([d.id]);
    this.unstage(d.id);
    const s = this.session!;
    s.engine.release(task - this.graph.retired, s.backend.now());
    s.driver.execute();
    this.ensureLoop();
  }

  /**
   * Brings the latest value of every datum tasks wrote home and into the registered arrays,
   * keeping the device copies (valid until a task writes them again).
   */
  async sync(): Promise<void> {
    this.checkOpen();
    let handles = [...this.written].filter((h) => this.names[h] !== undefined && !this.held.has(h));
    if (handles.length === 0) return;
    // Nothing running or acquired: a datum whose home copy is valid needs no acquisition (no
    // task in the graph), only its copy into the registered array.
    const s = this.session;
    if (this.store.disk !== undefined) {
      // Out of core: one datum at a time (acquired, read from the disk into its array).
      for (const h of handles) {
        const d = this.describe(h);
        await this.hold(d, 'R');
        try {
          await this.loadBack(h);
        } finally {
          this.release(d);
        }
        this.written.delete(h);
      }
      return;
    }
    if (s !== undefined && this.lowWater >= this.graph.taskCount && this.holding === 0 && !this.fatal) {
      const home = this.platform.homeNode;
      const atHome: number[] = [];
      const away: number[] = [];
      for (const h of handles) (s.engine.isValidOn(h, home) ? atHome : away).push(h);
      this.copyBack(atHome);
      for (const h of atHome) this.written.delete(h);
      handles = away;
      if (handles.length === 0) return;
    }
    const datas = handles.map((h) => this.describe(h));
    await Promise.all(datas.map((d) => this.acquire(d, 'R')));
    for (const d of datas) this.release(d);
    for (const h of handles) this.written.delete(h);
  }

  /**
   * Tells the runtime that `d` will not be used for a while (StarPU's starpu_data_wont_use):
   * once the tasks submitted so far that access it have ended, its modified device copy is
   * written back home at once and its device copies are evicted before any other data. Values
   * are unchanged; a later task may still use `d` (it is then reloaded if it was evicted).
   */
  wontUse(d: Data): void {
    this.checkOpen();
    this.checkData(d, 'wontUse');
    this.graph.wontUse(d.id);
    this.schedulePump();
  }

  /**
   * Brings `d` home and into its registered array, frees its device copies and forgets it:
   * later use of `d` is an error.
   */
  async unregister(d: Data): Promise<void> {
    this.checkData(d, 'unregister');
    await this.acquire(d, 'R');
    this.release(d);
    const s = this.session!;
    s.engine.dropReplicas(d.id, s.backend.now());
    s.driver.execute();
    this.written.delete(d.id);
    this.store.forget(d.id);
    this.names[d.id] = undefined;
  }

  /**
   * Changes the scheduling and eviction policies: the current engine finishes what it has
   * (its data go home) and the next tasks run on a new one.
   */
  setPolicies(scheduler: string | Scheduler, eviction = 'lru', schedulerOptions?: SchedulerOptions): void {
    checkRuntimeOptions({ scheduler, eviction, schedulerOptions });
    this.options = { ...this.options, scheduler, eviction, schedulerOptions };
    this.retire = true;
  }

  /** Changes how the next engine uses and updates the performance models (RuntimeOptions.perfModels). */
  setPerfModels(mode: 'update' | 'read' | 'off'): void {
    this.options = { ...this.options, perfModels: mode };
    this.retire = true;
  }

  /**
   * Waits for every task, writes every datum home and into the registered arrays, saves the
   * performance models and stops the worker threads. Later calls are errors.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.fatal) {
        for (const [h] of this.held) this.release(this.describe(h));
        for (const [t] of this.tickets) if (this.stateOf(t) === ACQUIRED) this.releaseTicket(t);
        this.schedulePump();
        await this.chain;
        await this.untilEnded(this.graph.taskCount + this.graph.retired);
        this.closed = true;
        await this.withThreads(() => this.endSession());
        this.copyBack([...this.written]);
        this.written.clear();
        this.saveSamples();
      }
    } finally {
      this.closed = true;
      await this.pool?.close();
      for (const d of this.gpu?.devices.values() ?? []) d.dispose();
      // Out of core: the disk's folder goes, after a failure too.
      await this.store.disk?.remove();
    }
    // A runtime error no promise or callback of the application received: close() reports it.
    if (!this.fatalDelivered) this.throwFatal();
  }

  // ---------------------------------------------------------------- the engine's life

  private checkOpen(): void {
    this.throwFatal();
    if (this.closed) throw new LocusError('LOCUS_STATE_INVALID', 'this runtime is closed: create a new one');
  }

  /** Throws the fatal error, if any. */
  private throwFatal(): void {
    if (!this.fatal) return;
    this.fatalDelivered = true;
    throw this.fatal;
  }

  /**
   * Waits until every task before the application's task `upTo` has ended; throws the fatal
   * error if there is one.
   */
  private async untilEnded(upTo: number): Promise<void> {
    this.throwFatal();
    if (this.lowWater + this.graph.retired < upTo)
      await new Promise<void>((resolve) => this.waiters.push({ upTo, resolve }));
    this.throwFatal();
  }

  private abort(): void {
    this.setFatal(new LocusError('LOCUS_INTERRUPTED', 'interrupted'));
  }

  /**
   * A fatal error (the engine refused tasks, a simulation stalled, an abort): the runtime stops
   * its threads, and every promise and callback it handed out settles with the error: waits
   * and acquires rethrow it, pending tasks' promises reject with it and their onDone callbacks
   * get it.
   */
  private setFatal(e: unknown): void {
    if (this.fatal) return;
    const fatal = e instanceof Error ? e : new Error(String(e));
    this.fatal = fatal;
    void this.pool?.close();
    this.session?.backend.ring();
    for (let t = this.lowWater; t < this.graph.taskCount; t++) {
      if (this.status[t] !== PENDING) continue;
      const d = this.pending[t];
      const cb = this.callbacks[t];
      this.pending[t] = undefined;
      this.callbacks[t] = undefined;
      if (d !== undefined) {
        this.fatalDelivered = true;
        d.reject(fatal);
      }
      if (cb !== undefined) {
        this.fatalDelivered = true;
        try {
          cb(fatal);
        } catch {
          // The runtime is already failed: the callback's own error has nowhere to go.
        }
      }
    }
    for (const w of this.waiters.splice(0)) w.resolve();
    for (const [, resolve] of this.acquireWaiters) resolve();
    this.acquireWaiters.clear();
  }

  private schedulePump(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    this.chain = this.chain
      .then(() => this.withThreads(() => this.pump()))
      .catch((e: unknown) => this.setFatal(e));
  }

  /** Runs `f` with the worker threads keeping the process alive (idle, they do not). */
  private async withThreads<T>(f: () => Promise<T>): Promise<T> {
    const release = this.pool?.hold();
    try {
      return await f();
    } finally {
      release?.();
    }
  }

  /** Hands the tasks submitted since the last pump to the engine (loading new kernels first). */
  private async pump(): Promise<void> {
    this.pumpQueued = false;
    if (this.fatal) return;
    const g = this.graph;
    if (
      this.session &&
      (this.retire ||
        (!this.session.dynamic && this.session.engine.submittedTasks + g.retired > this.sessionFrom))
    ) {
      if (g.taskCount === this.session.engine.submittedTasks) return;
      // A new engine for the new tasks (new policies, or a batch of a static policy).
      await this.untilEnded(this.session.engine.submittedTasks + g.retired);
      await this.endSession();
    }
    if (this.kernels.length > this.kernelsLoaded) {
      const from = this.kernelsLoaded;
      this.kernelsLoaded = this.kernels.length;
      if (this.pool) {
        // Into the running backend (its threads resume after the load), else into the pool.
        const errors = this.session
          ? await this.session.backend.loadKernels(this.kernels, from)
          : await this.pool.load(this.kernels, from);
        for (const [k, message] of errors) {
          const names = this.codelets.filter((c) => c?.kernel === k).map((c) => c.spec.name);
          this.warn(`codelet ${names.join(', ')}: its kernel failed to load (${message}); its tasks fail`);
        }
      }
    }
    if (!this.session) this.openSession();
    const s = this.session!;
    if (
      g.taskCount > s.engine.submittedTasks ||
      g.handleCount > s.engine.knownHandleCount ||
      g.hintCount > s.engine.knownHintCount
    ) {
      s.engine.submitted(s.backend.now());
      s.driver.execute();
    }
    this.ensureLoop();
  }

  private openSession(): void {
    const real = this.mode === 'real';
    const g = this.graph;
    const onProgress = this.options.onProgress;
    const from = this.graph.taskCount > 0 ? this.lowWater : 0;
    this.session = openSession({
      graph: this.graph,
      platform: this.platform,
      options: this.options,
      model: this.models.durationModel(this.graph, this.options),
      recordSamples: real && this.perfModels === 'update',
      payloads: this.payloads,
      pool: this.pool,
      store: this.store,
      trace: (engine) => {
        if (this.options.trace && !this.trace) this.trace = new ChromeTrace(engine);
        return this.trace;
      },
      from,
      recycle: this.options.recycle ?? true,
      readAhead: this.readAheadStats,
      warn: (m) => this.warn(m),
      ...(this.gpu ? { gpu: this.gpu } : {}),
      hooks: {
        ended: (task, error) => this.ended(task, error === undefined ? FINISHED : FAILED),
        cancelled: (task) => {
          this.cancelledSince++;
          this.ended(task, CANCELLED);
        },
        acquired: (task) => {
          this.holding++;
          this.ended(task, ACQUIRED);
          const id = task + this.graph.retired;
          const w = this.acquireWaiters.get(id);
          this.acquireWaiters.delete(id);
          w?.();
        },
        progress: onProgress && ((done, total) => onProgress(done + g.retired, total + g.retired)),
      },
    });
    this.sessionFrom = from + g.retired;
    this.retire = false;
  }

  /** A task (a graph index) ended, or an acquire got its data: settle its promise, call back, wake waits. */
  private ended(task: number, state: number): void {
    this.status[task] = state;
    const id = task + this.graph.retired;
    if (state === FAILED) {
      const f = this.session?.driver.failures.at(-1);
      if (f && f.task === id) this.failures.push(this.withDataNames(f, task));
    } else if (state === CANCELLED) this.cancelledLabels.set(id, this.graph.taskLabel(task));
    const d = this.pending[task];
    const cb = this.callbacks[task];
    if (d !== undefined || cb !== undefined) {
      const error =
        state === FAILED
          ? this.failureError(id)
          : state === CANCELLED
            ? new TaskCancelledError(this.cancelledLabels.get(id)!)
            : undefined;
      if (d !== undefined) {
        this.pending[task] = undefined;
        if (error) d.reject(error);
        else d.resolve();
      }
      if (cb !== undefined) {
        this.callbacks[task] = undefined;
        try {
          cb(error);
        } catch (e) {
          this.callbackErrors.push(e);
        }
      }
    }
    if (task !== this.lowWater) return;
    const n = this.graph.taskCount;
    let lw = this.lowWater;
    while (lw < n && this.status[lw] !== PENDING) lw++;
    this.lowWater = lw;
    const upTo = lw + this.graph.retired;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i]!.upTo <= upTo) this.waiters.splice(i, 1)[0]!.resolve();
    }
  }

  /**
   * Recycles the records of the finished tasks at the front (Engine.compact), where the
   * engine may: the backend, the driver and this runtime's tables follow the shift. Called
   * between the driver's events, when no command is pending.
   */
  private compact(s: Session): void {
    if (s.backend.rebase === undefined) return;
    const k = s.engine.compact();
    if (k === 0) return;
    s.backend.rebase(k);
    s.driver.rebase(k);
    dropStates(this.status, k, this.graph.taskCount + k);
    dropFront(this.pending, k);
    dropFront(this.callbacks, k);
    dropPayloads(this.payloads, k);
    this.lowWater -= k;
  }

  /**
   * `f` (of `task`, a graph index) with "access #i" (a checkAccesses failure) replaced by the
   * name of the task's i-th datum.
   */
  private withDataNames(f: TaskFailure, task: number): TaskFailure {
    if (!f.message.includes('access #')) return f;
    const accesses = this.graph.accesses(task);
    const message = f.message.replace(/access #(\d+)/g, (whole, i: string) => {
      const h = accesses[Number(i)]?.[0];
      return h === undefined ? whole : `datum ${this.graph.handleNames[h] ?? `#${h}`}`;
    });
    return { ...f, message };
  }

  /** Runs the driver loop while tasks are pending (one loop at a time). */
  private ensureLoop(): void {
    if (this.loop || !this.session || this.fatal) return;
    const s = this.session;
    // Acquires that hold their data count as ended: only the application can end them.
    const busy = () => s.engine.finishedTasks + this.holding < s.engine.submittedTasks;
    if (!busy()) return;
    this.loop = this.withThreads(async () => {
      if (s.backend.mode === 'simulated') {
        // Virtual time: run to the end of what is submitted, or until only held data block.
        await Promise.resolve();
        s.driver.execute();
        for (this.compact(s); busy(); this.compact(s)) {
          if (s.backend.poll(s.driver) === 0) {
            if (this.holding > 0) break;
            throw new Error(
              `simulation stalled with ${s.engine.submittedTasks - s.engine.finishedTasks} tasks not ended`,
            );
          }
        }
      } else {
        await s.driver.run(() => {
          this.compact(s);
          return !busy() || this.fatal !== undefined;
        }, this.options.signal);
      }
    })
      .catch((e: unknown) => this.setFatal(e))
      .finally(() => {
        this.loop = undefined;
        if (s === this.session && busy()) this.ensureLoop();
      });
  }

  /** Closes the current engine: every task ended, every datum home; the backend stops. */
  private async endSession(): Promise<void> {
    const s = this.session;
    if (!s) return;
    if (this.loop) await this.loop;
    this.throwFatal();
    s.engine.close(s.backend.now());
    s.driver.execute();
    if (s.backend.mode === 'simulated') {
      while (!s.engine.isFinished) {
        if (s.backend.poll(s.driver) === 0) throw new Error('simulation stalled while writing data home');
      }
    } else {
      await s.driver.run(() => s.engine.isFinished || this.fatal !== undefined, this.options.signal);
      this.throwFatal();
      await s.backend.stop();
    }
    if (this.store.disk !== undefined) {
      // Out of core: every datum is home on the disk; one at a time into the registered arrays.
      for (const h of [...this.written]) await this.loadBack(h);
    } else this.copyBack([...this.written]);
    this.saveSamples();
    this.session = undefined;
  }

  /** The report of everything run so far on the current engine. */
  private report(): RunReport {
    if (!this.session) this.openSession();
    const s = this.session!;
    const adapter = this.gpu?.devices.values().next().value?.adapter;
    const report = buildReport(s.engine, s.stats, {
      mode: this.mode,
      workload: `${s.engine.submittedTasks + this.graph.retired - this.sessionFrom} tasks`,
      seed: this.options.seed ?? 1,
      makespanS: s.driver.makespan,
      endS: s.backend.now(),
      wallS: (performance.now() - s.wall0) / 1000,
    });
    return adapter === undefined ? report : { ...report, adapter };
  }

  /** Saves the measurements recorded since the last save into the model store. */
  private saveSamples(): void {
    const r = this.session?.recorder;
    if (r && r.samples.length > 0) this.models.save(r.samples.splice(0), this.options);
  }

  /** Whether and how this runtime uses performance models. */
  private get perfModels(): 'update' | 'read' | 'off' {
    return this.models.mode(this.options);
  }

  /** A warning that does not stop the run (RuntimeOptions.onWarning). */
  private warn(message: string): void {
    if (this.options.onWarning) this.options.onWarning(message);
    else process.stderr.write(`locus: warning: ${message}\n`);
  }

  /**
   * Copies the home copies of `handles` back into the registered arrays and matrices (out of
   * core: their staged copies, the data being acquired).
   */
  private copyBack(handles: readonly number[]): void {
    const disk = this.store.disk !== undefined;
    if (disk) handles = handles.filter((h) => this.staged.has(h));
    const home = (h: number): DataArray =>
      disk ? this.staged.get(h)!.view : this.store.view(this.store.home[h]!);
    for (const h of handles) {
      const m = this.mirrorOf[h];
      if (m && !this.store.inPlace(h, m.target)) m.target.set(home(h) as never);
    }
    if (this.matrices.length > 0 && handles.length > 0) {
      const set = new Set(handles);
      for (const m of this.matrices) m.copyOut(set, home);
    }
  }
}

/**
 * A time limit in seconds: a positive number of seconds or a duration string ("10s", "500ms");
 * undefined when not given. `what` names it in the error.
 */
function timeLimitOf(value: number | string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  let s: number;
  try {
    s = parseDuration(value, what);
  } catch (e) {
    if (!(e instanceof LocusError)) throw e;
    s = Number.NaN;
  }
  if (!(s > 0 && Number.isFinite(s)))
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `${what} must be a positive duration such as 10, "10s" or "500ms" (got ${String(value)})`,
    );
  return s;
}

/** The one-line error for accesses that are not a list of [data, mode] pairs. */
function badAccesses(label: string, got: unknown): LocusError {
  const shown = Array.isArray(got)
    ? `a list of ${got.length}`
    : typeof got === 'object'
      ? 'an object'
      : String(got);
  return new LocusError(
    'LOCUS_GRAPH_INVALID',
    `task ${label}: accesses must be a list of [data, mode] pairs such as [[x, 'R'], [y, 'RW']] (got ${shown} where a pair was expected)`,
  );
}

/**
 * A kernel module as the worker threads import it: a URL or a package name as given, an
 * absolute path as its file URL; a relative path is refused at declaration (the threads would
 * resolve it against Locus's own files, not the program's).
 */
function kernelModule(codelet: string, module: string | URL): string {
  if (module instanceof URL) return module.href;
  if (typeof module !== 'string' || module === '')
    throw new LocusError(
      'LOCUS_GRAPH_INVALID',
      `codelet ${codelet}: kernel.module must be a URL or a module name`,
    );
  if (isAbsolute(module)) return pathToFileURL(module).href;
  if (module.startsWith('./') || module.startsWith('../') || module === '.' || module === '..')
    throw new LocusError(
      'LOCUS_GRAPH_INVALID',
      `codelet ${codelet}: kernel.module '${module}' is a relative path, which the worker threads cannot resolve from your program: give new URL('${module}', import.meta.url) or an absolute path`,
    );
  return module;
}

function dtypeOf(a: DataArray): number {
  if (a instanceof Float64Array) return 0;
  if (a instanceof Float32Array) return 1;
  if (a instanceof Int32Array) return 2;
  if (a instanceof Uint8Array) return 3;
  throw new LocusError(
    'LOCUS_DATA_INVALID',
    'data must be a Float64Array, Float32Array, Int32Array or Uint8Array',
  );
}

function bytesOf(d: DType): number {
  return d === 'float64' ? 8 : d === 'uint8' ? 1 : 4;
}

export type { EvictionPolicy, TypedMatrix };

/**
 * The WebGPU backend's kernel of a codelet's GPU implementation, checked at declaration: WGSL
 * source, workgroups (a count or [x, y, z]) and parameter words (the args as float32 values
 * by default).
 */
function gpuKernelOf(name: string, g: GpuImplementation): WebGpuKernel {
  if (
    typeof g !== 'object' ||
    g === null ||
    !((typeof g.wgsl === 'string' && g.wgsl.trim() !== '') || typeof g.wgsl === 'function')
  )
    throw new LocusError(
      'LOCUS_GRAPH_INVALID',
      `codelet ${name}: gpu.wgsl must be WGSL source text (or a function (dataCount, args) => source)`,
    );
  if (typeof g.workgroups !== 'function')
    throw new LocusError(
      'LOCUS_GRAPH_INVALID',
      `codelet ${name}: gpu.workgroups must be a function (bytes, args) => count or [x, y, z]`,
    );
  if (g.params !== undefined && typeof g.params !== 'function')
    throw new LocusError(
      'LOCUS_GRAPH_INVALID',
      `codelet ${name}: gpu.params must be a function (bytes, args) => Uint32Array`,
    );
  const wgsl = g.wgsl;
  const workgroups = g.workgroups;
  return {
    name,
    gpu: {
      source: typeof wgsl === 'string' ? () => wgsl : wgsl,
      workgroups: (bytes, args) => {
        const w = workgroups(bytes, args);
        return typeof w === 'number' ? [w, 1, 1] : w;
      },
      params: g.params ?? ((_bytes, args) => new Uint32Array(Float32Array.from(args).buffer)),
    },
  };
}
