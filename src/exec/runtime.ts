/**
 * The library API (docs/api.md): an application registers data, declares codelets whose CPU
 * kernel lives in a module the worker threads import, submits tasks with access modes, and
 * awaits completion; its arrays then hold the results. The same program runs simulated by
 * changing `mode`: the simulator replays the platform's rates and no kernel runs.
 *
 * Submissions accumulate until `wait()` (or `acquire()`), which builds their task graph
 * (dependencies inferred from the access order, as in StarPU's sequential consistency) and
 * runs it on the engine through the real driver or the simulator; each such run is a batch.
 * `acquire(h, mode)` waits for the tasks submitted before it, makes h's home copy valid and
 * holds off later tasks that conflict with it (and the tasks that depend on those) until
 * `release(h)`, as seed 001's acquire/release does.
 */
import { availableParallelism } from 'node:os';
import type { EngineObserver } from '../core/engine.ts';
import { TaskGraph } from '../core/graph.ts';
import { type DurationModel, PlatformModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import type { Scheduler } from '../core/policy.ts';
import { AccessMode, LocusError, type WorkerKind } from '../core/types.ts';
import { createEviction } from '../evict/index.ts';
import type { HistoryModel } from '../perf/history.ts';
import { type BusPair, CalibratedModel } from '../perf/model.ts';
import { SampleRecorder } from '../perf/recorder.ts';
import { ModelStore, machineDir } from '../perf/store.ts';
import { resolvePlatform } from '../platform/presets.ts';
import { parseSize } from '../platform/units.ts';
import { createScheduler, type SchedulerOptions } from '../sched/index.ts';
import { Simulator } from '../sim/simulator.ts';
import { ChromeTrace } from '../trace/chrome.ts';
import { buildReport, type RunReport } from '../trace/report.ts';
import { RunStats } from '../trace/stats.ts';
import { BufferStore } from './buffers.ts';
import { runReal, type TaskFailure, withoutTaskEvents } from './driver.ts';
import { TiledMatrix, type TypedMatrix } from './matrix.ts';
import { WorkerPool } from './pool.ts';
import { DTYPES, type DType, type KernelRef } from './protocol.ts';

/** An access mode as the API spells it. */
export type Mode = 'R' | 'W' | 'RW';

const MODES: Record<Mode, AccessMode> = { R: AccessMode.R, W: AccessMode.W, RW: AccessMode.RW };

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
   * name of its exported function `(data: TypedArray[], args: Float64Array) => void`. Without
   * it, tasks of this codelet run nothing (useful for simulations and overhead tests).
   */
  kernel?: { module: string | URL; export: string };
  /** Flop count from the task's dims (for reports and the schedulers' estimates). */
  flops?: (...dims: number[]) => number;
  /** Worker kinds that may run it (default both: emulated devices run the CPU kernel). */
  kinds?: readonly WorkerKind[];
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
  args?: readonly number[];
  /** Sizes passed to the codelet's flops function. */
  dims?: readonly number[];
  /** Flop count (overrides the codelet's function). */
  flops?: number;
  /** Priority (larger runs first under priority-aware schedulers). */
  priority?: number;
  /** Name in reports, traces and errors. */
  name?: string;
}

/** How a Runtime runs. */
export interface RuntimeOptions {
  /** 'real' (default): worker threads run the kernels; 'simulated': the platform is simulated. */
  mode?: 'real' | 'simulated';
  /** A preset name, a platform file path, or a Platform (default 'local': this machine). */
  platform?: string | Platform;
  /** CPU workers of a preset (default: the preset's; 'local': one per core). */
  cpus?: number;
  /** GPUs of a preset; on 'local', emulated devices (default 0). */
  gpus?: number;
  /** Memory of every GPU / emulated device, bytes or a size string ("8MiB"). */
  gpuMemory?: number | string;
  /** Scheduling policy name (default 'eager', like simulate() and `locus run`) or object. */
  scheduler?: string | Scheduler;
  /** Options of the named scheduler. */
  schedulerOptions?: SchedulerOptions;
  /** Eviction policy name (default 'lru'). */
  eviction?: string;
  /** Seed of the run's random choices (default 1). */
  seed?: number;
  /** Real mode: hold copies to/from emulated devices back to the platform's link speed. */
  throttle?: boolean;
  /** Tasks each worker holds at once (real mode default 4; simulated: the engine's defaults). */
  pipeline?: number;
  /** Tasks a GPU pops ahead of its pipeline (the scheduler's or engine's default otherwise). */
  lookahead?: number;
  /** Set bottom-level priorities on each batch (for dmdas, prio, darts tie-breaks). */
  priorities?: 'bottom-level';
  /** Record a Chrome trace of each batch (Runtime.trace). */
  trace?: boolean;
  /** Progress of a batch: tasks done out of its total. */
  onProgress?: (done: number, total: number) => void;
  /** Aborts the current batch (Ctrl-C): worker threads are stopped and wait() rejects. */
  signal?: AbortSignal;
  /**
   * Performance models (src/perf): 'update' (real mode's default) estimates durations from
   * the calibrated models when there are any and saves every real run's measurements into
   * them; 'read' only uses them (the simulated mode's default); 'off' uses the platform's rates.
   */
  perfModels?: 'update' | 'read' | 'off';
  /** The model folder (default: LOCUS_PERFMODEL_DIR, else ~/.locus/perfmodels). */
  perfModelDir?: string;
  /**
   * Calibration mode (StarPU_CALIBRATE): dm* schedulers send each task to a worker kind whose
   * model for it has fewer than `minSamples` measurements.
   */
  calibrate?: boolean;
  /** Measurements that make a model calibrated (default 10). */
  minSamples?: number;
}

/** A batch in which some tasks failed: names them; dependent tasks were cancelled. */
export class TaskFailedError extends LocusError {
  constructor(
    readonly failures: readonly TaskFailure[],
    readonly cancelled: number,
    readonly report: RunReport,
  ) {
    const f = failures[0]!;
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more failed tasks)` : '';
    super(
      `task ${f.label} (codelet ${f.codelet}) failed: ${f.message}${more}; ${cancelled} dependent task${cancelled === 1 ? '' : 's'} cancelled`,
    );
    this.name = 'TaskFailedError';
  }
}

interface Pending {
  codelet: number;
  accesses: [number, AccessMode][];
  args: readonly number[] | undefined;
  dims: readonly number[] | undefined;
  flops: number | undefined;
  priority: number;
  name: string | undefined;
}

/** Where a registered array's content goes back to after each batch. */
interface Mirror {
  handle: number;
  target: DataArray;
}

/** A Locus runtime: data, codelets, task submission, and batches run real or simulated. */
export class Runtime {
  /** The machine it runs on (or simulates). */
  readonly platform: Platform;
  /** 'real' or 'simulated'. */
  readonly mode: 'real' | 'simulated';
  /** The last batch's Chrome trace, when RuntimeOptions.trace is set. */
  trace: ChromeTrace | undefined;
  private options: RuntimeOptions;
  private readonly store = new BufferStore();
  private readonly names: string[] = [];
  private readonly codelets: { spec: CodeletSpec; kernel: number }[] = [];
  private readonly kernels: KernelRef[] = [];
  private pending: Pending[] = [];
  private readonly mirrors: Mirror[] = [];
  private readonly mirrorOf: (Mirror | undefined)[] = [];
  private readonly matrices: TiledMatrix[] = [];
  private readonly acquired = new Map<number, AccessMode>();
  private releaseWaiters: (() => void)[] = [];
  private pool: WorkerPool | undefined;
  private history: HistoryModel | undefined;
  private bus: BusPair[] | undefined;
  private closed = false;
  private running: Promise<RunReport> | undefined;

  private constructor(options: RuntimeOptions, platform: Platform) {
    this.options = options;
    this.platform = platform;
    this.mode = options.mode ?? 'real';
  }

  /** Creates a runtime; in real mode, starts one worker thread per platform worker. */
  static async create(options: RuntimeOptions = {}): Promise<Runtime> {
    const mode = options.mode ?? 'real';
    if (mode !== 'real' && mode !== 'simulated') {
      throw new LocusError(`mode must be 'real' or 'simulated' (got '${String(mode)}')`);
    }
    const gpuMem = typeof options.gpuMemory === 'string' ? parseSize(options.gpuMemory) : options.gpuMemory;
    const platform =
      typeof options.platform === 'object'
        ? options.platform
        : resolvePlatform(options.platform ?? 'local', {
            cpus: options.cpus ?? (options.platform === undefined ? availableParallelism() : undefined),
            gpus: options.gpus,
            gpuMem,
          });
    const rt = new Runtime(options, platform);
    if (mode === 'real') {
      if (platform.workers.length > 256) {
        throw new LocusError(
          `platform ${platform.name} has ${platform.workers.length} workers: a real run starts one thread each (at most 256); use --cpus or a smaller platform`,
        );
      }
      rt.pool = new WorkerPool(platform.workers.length);
    }
    return rt;
  }

  // ---------------------------------------------------------------- data

  /**
   * Registers `array`: tasks then read and write a runtime copy, and after each batch the
   * results are copied back into `array`.
   */
  data(array: DataArray, options: { name?: string } = {}): Data {
    const dtype = dtypeOf(array);
    const id = this.addHandle(dtype, array.length, array, options.name);
    const m = { handle: id, target: array };
    this.mirrors.push(m);
    this.mirrorOf[id] = m;
    return this.describe(id);
  }

  /** Registers runtime-owned data of `length` zero elements (read it with `read`). */
  scratch(dtype: DType, length: number, options: { name?: string } = {}): Data {
    if (!DTYPES.includes(dtype))
      throw new LocusError(`unknown dtype '${dtype}': use one of ${DTYPES.join(', ')}`);
    return this.describe(this.addHandle(DTYPES.indexOf(dtype), length, undefined, options.name));
  }

  /**
   * Registers a column-major `rows` x `cols` matrix cut into `tile` x `tile` tiles (the last
   * row and column of tiles may be smaller), each a handle; after each batch the tiles are
   * copied back into `array`.
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

  /** The runtime's copy of `d` (valid between batches, or while acquired). */
  read(d: Data): DataArray {
    return this.store.view(this.store.home[d.id]!);
  }

  private addHandle(
    dtype: number,
    length: number,
    init: ArrayLike<number> | undefined,
    name?: string,
  ): number {
    if (this.closed) throw new LocusError('this runtime is closed');
    if (!Number.isInteger(length) || length < 1) {
      throw new LocusError(`data length must be a positive integer (got ${length})`);
    }
    const id = this.store.addHandle(dtype, length, init);
    this.names.push(name ?? `data${id}`);
    return id;
  }

  private describe(id: number): Data {
    const dtype = DTYPES[this.store.handleDtype[id]!]!;
    const length = this.store.buffers[this.store.home[id]!]!.byteLength / bytesOf(dtype);
    return { id, name: this.names[id]!, dtype, length };
  }

  // ---------------------------------------------------------------- codelets and tasks

  /** Declares a codelet. */
  codelet(spec: CodeletSpec): Codelet {
    if (!spec.name) throw new LocusError('a codelet needs a name');
    let kernel = -1;
    if (spec.kernel) {
      const module = spec.kernel.module instanceof URL ? spec.kernel.module.href : spec.kernel.module;
      kernel = this.kernels.findIndex((k) => k.module === module && k.export === spec.kernel!.export);
      if (kernel < 0) kernel = this.kernels.push({ module, export: spec.kernel.export }) - 1;
    }
    this.codelets.push({ spec, kernel });
    return { id: this.codelets.length - 1, name: spec.name };
  }

  /** Submits a task; returns its index in the current batch. */
  submit(
    codelet: Codelet,
    accesses: readonly (readonly [Data, Mode])[],
    options: SubmitOptions = {},
  ): number {
    if (this.closed) throw new LocusError('this runtime is closed');
    if (this.codelets[codelet.id] === undefined) throw new LocusError(`unknown codelet ${codelet.name}`);
    const list: [number, AccessMode][] = [];
    for (const [d, mode] of accesses) {
      const m = MODES[mode];
      if (m === undefined) throw new LocusError(`access mode must be R, W or RW (got '${String(mode)}')`);
      if (this.names[d.id] === undefined) throw new LocusError(`unknown data ${d.name}`);
      if (list.some(([h]) => h === d.id)) {
        throw new LocusError(
          `task ${options.name ?? codelet.name} lists ${d.name} twice: give each datum once, with mode RW if it is read and written`,
        );
      }
      list.push([d.id, m]);
    }
    this.pending.push({
      codelet: codelet.id,
      accesses: list,
      args: options.args,
      dims: options.dims,
      flops: options.flops,
      priority: options.priority ?? 0,
      name: options.name,
    });
    return this.pending.length - 1;
  }

  /** Tasks submitted and not run yet. */
  get pendingTasks(): number {
    return this.pending.length;
  }

  // ---------------------------------------------------------------- running

  /**
   * Runs every submitted task and resolves with the report of the last batch, once all data
   * is home and copied back to the registered arrays. Tasks held by an acquired handle run
   * after its release. Rejects with TaskFailedError if a task failed (the others ran).
   */
  async wait(): Promise<RunReport> {
    let report: RunReport | undefined;
    for (;;) {
      const r = await this.runBatch();
      if (r) report = r;
      if (this.pending.length === 0) break;
      // Everything left is held by an acquired handle: wait for a release.
      await new Promise<void>((resolve) => this.releaseWaiters.push(resolve));
    }
    return report ?? this.emptyReport();
  }

  /**
   * Waits for the tasks submitted so far that touch `d` (in practice: all of them), makes
   * its home copy valid and returns it; until `release(d)`, later tasks that would modify it
   * (or, for 'RW', access it at all) are held.
   */
  async acquire(d: Data, mode: 'R' | 'RW' = 'R'): Promise<DataArray> {
    const m = MODES[mode];
    if (m !== AccessMode.R && m !== AccessMode.RW)
      throw new LocusError(`acquire mode must be R or RW (got '${mode}')`);
    if (this.acquired.has(d.id)) throw new LocusError(`${d.name} is already acquired: release it first`);
    await this.runBatch();
    this.acquired.set(d.id, m);
    return this.read(d);
  }

  /** Ends an acquire: held tasks may run at the next batch. */
  release(d: Data): void {
    if (!this.acquired.delete(d.id)) throw new LocusError(`${d.name} is not acquired`);
    // The holder may have changed the data: the user's array (or matrix) gets it now.
    this.copyBack(new Set([d.id]));
    for (const w of this.releaseWaiters.splice(0)) w();
  }

  /**
   * Changes the scheduling and eviction policies of the next batches (to compare policies on
   * the same data and threads).
   */
  setPolicies(scheduler: string | Scheduler, eviction = 'lru', schedulerOptions?: SchedulerOptions): void {
    this.options = { ...this.options, scheduler, eviction, schedulerOptions };
  }

  /** Changes how the next batches use and update the performance models (RuntimeOptions.perfModels). */
  setPerfModels(mode: 'update' | 'read' | 'off'): void {
    this.options = { ...this.options, perfModels: mode };
  }

  /** Stops the worker threads. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.close();
  }

  /** Runs the pending tasks not held by an acquire; undefined when there were none. */
  private async runBatch(): Promise<RunReport | undefined> {
    if (this.running) await this.running.catch(() => undefined);
    const { now, held } = this.splitHeld();
    if (now.length === 0) return undefined;
    this.pending = held;
    const p = this.runTasks(now);
    this.running = p;
    try {
      return await p;
    } finally {
      this.running = undefined;
    }
  }

  /** Splits the pending tasks: those that may run now, and those an acquired handle holds. */
  private splitHeld(): { now: Pending[]; held: Pending[] } {
    if (this.acquired.size === 0) return { now: this.pending, held: [] };
    const blocked = new Map(this.acquired); // handle -> mode that conflicts: R blocks writers, RW everyone
    const now: Pending[] = [];
    const held: Pending[] = [];
    for (const t of this.pending) {
      const conflict = t.accesses.some(([h, m]) => {
        const b = blocked.get(h);
        return b !== undefined && (b === AccessMode.RW || (m & AccessMode.W) !== 0);
      });
      if (conflict) {
        held.push(t);
        // Later tasks touching anything a held task touches must wait for it.
        for (const [h] of t.accesses) blocked.set(h, AccessMode.RW);
      } else {
        now.push(t);
      }
    }
    return { now, held };
  }

  private buildGraph(tasks: Pending[]): {
    graph: TaskGraph;
    taskKernel: Int32Array;
    argStart: Int32Array;
    args: Float64Array;
    written: Set<number>;
  } {
    const g = new TaskGraph();
    for (const c of this.codelets) {
      g.addCodelet({ name: c.spec.name, kinds: c.spec.kinds ?? ['cpu', 'gpu'], flops: c.spec.flops });
    }
    for (let h = 0; h < this.store.handleCount; h++) {
      g.addHandle(Math.max(1, this.store.buffers[this.store.home[h]!]!.byteLength), { name: this.names[h] });
    }
    const taskKernel = new Int32Array(tasks.length);
    const argStart = new Int32Array(tasks.length + 1);
    let nArgs = 0;
    for (const t of tasks) nArgs += t.args?.length ?? 0;
    const args = new Float64Array(nArgs);
    const written = new Set<number>();
    let k = 0;
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      g.submit(t.codelet, t.accesses, {
        priority: t.priority,
        dims: t.dims,
        flops: t.flops,
        name: t.name,
      });
      for (const [h, m] of t.accesses) if (m & AccessMode.W) written.add(h);
      taskKernel[i] = this.codelets[t.codelet]!.kernel;
      argStart[i] = k;
      if (t.args) for (const a of t.args) args[k++] = a;
    }
    argStart[tasks.length] = k;
    if (this.options.priorities === 'bottom-level') g.setBottomLevelPriorities();
    return { graph: g, taskKernel, argStart, args, written };
  }

  private scheduler(): Scheduler {
    const s = this.options.scheduler;
    return typeof s === 'object' ? s : createScheduler(s ?? 'eager', this.options.schedulerOptions);
  }

  /** The models' folder, opened on first use. */
  private modelStore(): ModelStore {
    return new ModelStore(
      machineDir(this.options.perfModelDir ?? ModelStore.defaultDir(), this.platform.name),
    );
  }

  /** Whether and how this runtime uses performance models. */
  private get perfModels(): 'update' | 'read' | 'off' {
    return this.options.perfModels ?? (this.mode === 'real' ? 'update' : 'read');
  }

  /** The duration model of a batch: calibrated models when there are any, else the platform's rates. */
  private durationModel(graph: TaskGraph): DurationModel {
    if (this.perfModels === 'off') return new PlatformModel(this.platform, graph);
    if (this.history === undefined) {
      const store = this.modelStore();
      this.history = store.loadHistory();
      this.bus = store.loadBus(this.platform.name)?.pairs;
    }
    if (this.history.codelets().length === 0 && !this.options.calibrate && this.bus === undefined) {
      return new PlatformModel(this.platform, graph);
    }
    return new CalibratedModel(this.platform, graph, this.history, this.bus, {
      minSamples: this.options.minSamples,
    });
  }

  private async runTasks(tasks: Pending[]): Promise<RunReport> {
    const { graph, taskKernel, argStart, args, written } = this.buildGraph(tasks);
    const platform = this.platform;
    const model = this.durationModel(graph);
    const seed = this.options.seed ?? 1;
    const wall0 = performance.now();
    const workload = `${graph.taskCount} tasks`;
    if (this.options.signal?.aborted) throw new LocusError('interrupted');
    if (this.mode === 'simulated') {
      const sim = new Simulator({
        graph,
        platform,
        scheduler: this.scheduler(),
        eviction: createEviction(this.options.eviction ?? 'lru'),
        model,
        seed,
        gpuPipeline: this.options.pipeline,
        cpuPipeline: this.options.pipeline,
        gpuLookahead: this.options.lookahead,
        onProgress: this.options.onProgress,
      });
      const stats = new RunStats(sim.engine);
      sim.engine.observe(stats);
      this.trace = this.options.trace ? new ChromeTrace(sim.engine) : undefined;
      if (this.trace) sim.engine.observe(this.trace);
      const r = sim.run();
      return buildReport(sim.engine, stats, {
        mode: 'simulated',
        workload,
        seed,
        makespanS: r.makespanS,
        endS: r.endS,
        wallS: (performance.now() - wall0) / 1000,
      });
    }
    const pool = this.pool!;
    if (pool.isClosed)
      throw new LocusError('this runtime was stopped (interrupted or closed): create a new one');
    await pool.load(this.kernels);
    let stats: RunStats | undefined;
    const recorder =
      this.perfModels === 'update'
        ? new SampleRecorder(graph, platform, (t) => taskKernel[t]! >= 0)
        : undefined;
    const result = await runReal({
      graph,
      platform,
      scheduler: this.scheduler(),
      eviction: createEviction(this.options.eviction ?? 'lru'),
      model,
      seed,
      taskKernel,
      argStart,
      args,
      pool,
      store: this.store,
      throttle: this.options.throttle,
      cpuPipeline: this.options.pipeline,
      gpuPipeline: this.options.pipeline,
      gpuLookahead: this.options.lookahead,
      onProgress: this.options.onProgress,
      signal: this.options.signal,
      calibrate: this.options.calibrate,
      observe: (engine) => {
        stats = new RunStats(engine);
        const observers: EngineObserver[] = [stats];
        if (recorder) observers.push(recorder);
        this.trace = this.options.trace ? new ChromeTrace(engine) : undefined;
        if (this.trace) observers.push(this.trace);
        return { engine: observers.map(withoutTaskEvents), tasks: observers };
      },
    });
    this.copyBack(written);
    if (recorder && recorder.samples.length > 0) {
      for (const sample of recorder.samples) this.history!.record(sample);
      this.modelStore().saveSamples(recorder.samples);
    }
    const report = buildReport(result.engine, stats!, {
      mode: 'real',
      workload,
      seed,
      makespanS: result.makespanS,
      endS: result.endS,
      wallS: (performance.now() - wall0) / 1000,
    });
    if (result.failures.length > 0) throw new TaskFailedError(result.failures, result.cancelled, report);
    return report;
  }

  /** Copies the written handles' home copies back into the registered arrays. */
  private copyBack(written: Set<number>): void {
    for (const h of written) {
      const m = this.mirrorOf[h];
      if (m) m.target.set(this.read({ id: h } as Data) as never);
    }
    for (const m of this.matrices) m.copyOut(written, (id) => this.read({ id } as Data));
  }

  private emptyReport(): RunReport {
    const g = new TaskGraph();
    const sim = new Simulator({
      graph: g,
      platform: this.platform,
      scheduler: createScheduler('eager'),
      eviction: createEviction('lru'),
      model: new PlatformModel(this.platform, g),
    });
    const stats = new RunStats(sim.engine);
    sim.run();
    return buildReport(sim.engine, stats, {
      mode: this.mode,
      workload: '0 tasks',
      seed: this.options.seed ?? 1,
      makespanS: 0,
      endS: 0,
      wallS: 0,
    });
  }
}

function dtypeOf(a: DataArray): number {
  if (a instanceof Float64Array) return 0;
  if (a instanceof Float32Array) return 1;
  if (a instanceof Int32Array) return 2;
  if (a instanceof Uint8Array) return 3;
  throw new LocusError('data must be a Float64Array, Float32Array, Int32Array or Uint8Array');
}

function bytesOf(d: DType): number {
  return d === 'float64' ? 8 : d === 'uint8' ? 1 : 4;
}

export type { TypedMatrix };
