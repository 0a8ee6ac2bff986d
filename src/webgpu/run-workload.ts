/**
 * `locus run --mode real --backend webgpu` (docs/webgpu.md): a workload's generator submits
 * to a WebGpuSubmitter, which builds the task graph and the host arrays; the engine runs it
 * over the WebGPU backend, one logical device per GPU node of the platform (capped at the
 * node's memory), the CPU workers running the kernels without WGSL (POTRF, GETRF, Jacobi) on
 * the main thread. Float32 only (WGSL has no float64). With `check`, the same generator runs
 * through the SequentialSubmitter and the residual is the relative difference; the report
 * names the adapter.
 */

import { Engine } from '../core/engine.ts';
import type { Codelet } from '../core/graph.ts';
import { TaskGraph } from '../core/graph.ts';
import { FloatList, IntList } from '../core/growable.ts';
import { PlatformModel } from '../core/model.ts';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import { Driver } from '../drive/driver.ts';
import { createEviction } from '../evict/index.ts';
import type { DataArray } from '../exec/runtime.ts';
import { initialArray } from '../exec/runtime-submitter.ts';
import { SequentialSubmitter } from '../exec/sequential-submitter.ts';
import { withoutTaskEvents } from '../exec/session.ts';
import { REAL_WORKLOADS } from '../exec/workload-checks.ts';
import { relativeDifference } from '../kernels/residual.ts';
import { createScheduler } from '../sched/index.ts';
import { ChromeTrace } from '../trace/chrome.ts';
import { buildReport, type RunReport } from '../trace/report.ts';
import { RunStats } from '../trace/stats.ts';
import { WORKLOADS } from '../workloads/index.ts';
import {
  type DataSpec,
  ELEMENT_BYTES,
  type KernelName,
  type SubmitAccess,
  type Submitter,
  type TaskSpec,
} from '../workloads/submitter.ts';
import { WebGpuBackend } from './backend.ts';
import { createLogicalDevice, type LogicalDevice } from './device.ts';
import type { WebGpuKernel } from './kernel.ts';
import { type AdapterSummary, adapterLine } from './load.ts';
import { hasWgsl, tileKernel } from './tile-kernels.ts';

/**
 * The workloads `--backend webgpu` runs: those that run for real on threads, and seed 000's
 * matmul2d and seed 001's stencil, whose kernels have WGSL (and CPU references).
 */
export const WEBGPU_WORKLOADS: readonly string[] = [...Object.keys(REAL_WORKLOADS), 'matmul2d', 'stencil'];

/** Builds the task graph, the host arrays and the kernels of a workload. */
export class WebGpuSubmitter implements Submitter {
  /** Kernels run on the values. */
  readonly computes = true;
  /** The graph. */
  readonly graph = new TaskGraph();
  /** Each datum's array (its home replica: results land in it). */
  readonly arrays: DataArray[] = [];
  /** Each datum's name. */
  readonly names: string[] = [];
  /** Kernels, by id. */
  readonly kernels: WebGpuKernel[] = [];
  /** Kernel id and arguments of each task. */
  readonly payloads = { kernel: new IntList(), argStart: new IntList(), args: new FloatList() };
  private readonly byBuffer = new WeakMap<ArrayBuffer, DataArray>();
  private readonly codelets = new Map<string, { graph: number; kernel: number }>();
  private readonly ids: { graph: number; kernel: number }[] = [];

  constructor() {
    this.payloads.argStart.push(0);
  }

  /** Makes the datum's array (initial values or zeros) and its handle. */
  data(spec: DataSpec): number {
    let array = initialArray(spec);
    // The array's buffer is the home replica: a view into a larger buffer is copied.
    if (array.byteOffset !== 0 || array.byteLength !== array.buffer.byteLength) array = array.slice();
    this.byBuffer.set(array.buffer as ArrayBuffer, array);
    this.graph.addHandle(spec.length * ELEMENT_BYTES[spec.type], spec);
    this.names.push(spec.name);
    return this.arrays.push(array) - 1;
  }

  /** One graph codelet per (codelet, kernel); CPU-only where the kernel has no WGSL. */
  codelet(codelet: Codelet, kernel?: KernelName): number {
    if (kernel === undefined)
      throw new LocusError('LOCUS_GRAPH_INVALID', `codelet ${codelet.name} has no kernel to run`);
    const key = `${codelet.name}/${kernel}`;
    let c = this.codelets.get(key);
    if (c === undefined) {
      const kinds = hasWgsl(kernel) ? codelet.kinds : codelet.kinds.filter((k) => k === 'cpu');
      c = {
        graph: this.graph.addCodelet({ ...codelet, kinds }),
        kernel: this.kernels.push(tileKernel(kernel, (data) => data.map((b) => this.byBuffer.get(b)!))) - 1,
      };
      this.codelets.set(key, c);
    }
    return this.ids.push(c) - 1;
  }

  /** Adds the task to the graph with its kernel and arguments. */
  submit(codelet: number, accesses: readonly SubmitAccess[], task: TaskSpec = {}): void {
    const c = this.ids[codelet]!;
    this.graph.submit(c.graph, accesses, task);
    this.payloads.kernel.push(c.kernel);
    for (const a of task.args ?? []) this.payloads.args.push(a);
    this.payloads.argStart.push(this.payloads.args.length);
  }
}

/** Options of a WebGPU workload run. */
export interface WebGpuRunOptions {
  tiles: number;
  tileSize: number;
  /** matmul2d's inner dimension, the stencil's grid depth (the generators' defaults when absent). */
  inner?: number | undefined;
  /** Must be single (or absent): WGSL computes in float32. */
  precision?: 'single' | 'double' | undefined;
  iterations?: number | undefined;
  check?: boolean | undefined;
  dataSeed?: number | undefined;
  /** The platform: its GPU nodes become logical devices capped at their memory. */
  platform: Platform;
  scheduler: string;
  eviction: string;
  seed?: number | undefined;
  /** Record a Chrome trace of the run (tasks, copies with their queueing), as real runs do. */
  trace?: boolean | undefined;
}

/** What a WebGPU workload run gives back. */
export interface WebGpuRunResult {
  /** The report, with the adapter that ran it. */
  report: RunReport & { adapter: AdapterSummary };
  residual?: number;
  workload: string;
  /** The Chrome trace (JSON), when asked for. */
  trace?: unknown;
}

/** Runs workload `name` over WebGPU devices. */
export async function runWebGpuWorkload(name: string, o: WebGpuRunOptions): Promise<WebGpuRunResult> {
  if (!WEBGPU_WORKLOADS.includes(name))
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      `workload '${name}' does not run with --backend webgpu (it runs ${WEBGPU_WORKLOADS.join(', ')})`,
    );
  if (o.precision === 'double') {
    throw new LocusError(
      'LOCUS_OPTION_CONFLICT',
      '--backend webgpu computes in float32 (WGSL has no float64): use --precision single or leave it out',
    );
  }
  if (o.tileSize % 4 !== 0) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--backend webgpu: --tile-size must be a multiple of 4 (the WGSL kernels load vec4 columns; got ${o.tileSize})`,
    );
  }
  if (name === 'matmul2d' && o.inner !== undefined && o.inner % 4 !== 0) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--backend webgpu: --inner must be a multiple of 4 for matmul2d (the WGSL kernel loads vec4 columns; got ${o.inner})`,
    );
  }
  const generator = WORKLOADS[name]!;
  const instance = generator.instance({
    tiles: o.tiles,
    tileSize: o.tileSize,
    inner: o.inner,
    precision: 'single',
    iterations: o.iterations,
    dataSeed: o.dataSeed,
    // A checked matmul2d keeps its C blocks (discarded ones never come home to compare).
    ...(name === 'matmul2d' && o.check ? { keepOutputs: true } : {}),
  });
  const workload = `${name} ${instance.description}`;
  const s = new WebGpuSubmitter();
  generator.submit(s, instance);
  const p = o.platform;
  if (!p.workers.some((w) => w.kind === 'cpu') && s.kernels.some((k) => k.gpu === undefined)) {
    throw new LocusError(
      'LOCUS_WORKER_MISSING',
      `${workload} has CPU-only kernels (${s.kernels
        .filter((k) => k.gpu === undefined)
        .map((k) => k.name)
        .join(', ')}) and the platform no CPU worker: pass --cpus 1 or more`,
    );
  }
  const devices = new Map<number, LogicalDevice>();
  const wall0 = performance.now();
  try {
    for (const [n, node] of p.nodes.entries()) {
      if (node.kind !== 'gpu') continue;
      if (!Number.isFinite(node.capacity))
        throw new LocusError(
          'LOCUS_PLATFORM_INVALID',
          `GPU node ${node.name} needs a memory size (--gpu-mem)`,
        );
      devices.set(n, await createLogicalDevice(node.name, node.capacity));
    }
    const first = devices.values().next().value;
    if (first === undefined)
      throw new LocusError('LOCUS_WORKER_MISSING', '--backend webgpu needs GPUs: pass --gpus 1 or more');
    const initial = s.arrays.map((a) => a.buffer as ArrayBuffer);
    const backend = new WebGpuBackend({
      platform: p,
      devices,
      kernels: s.kernels,
      payloads: s.payloads,
      initial,
    });
    const engine = new Engine({
      graph: s.graph,
      platform: p,
      scheduler: createScheduler(o.scheduler),
      eviction: createEviction(o.eviction),
      model: new PlatformModel(p, s.graph),
      seed: o.seed ?? 1,
      issueAhead: true,
      gpuPipeline: 4,
    });
    backend.attach(engine);
    const stats = new RunStats(engine);
    engine.observe(stats);
    // As in worker-thread runs: the trace takes task times from the driver (measured), not
    // from the engine's events, and copy start times from the backend.
    const trace = o.trace ? new ChromeTrace(engine) : undefined;
    if (trace) engine.observe(withoutTaskEvents(trace));
    const driver = new Driver(engine, backend, {
      timedObservers: trace ? [trace] : [],
      copyObservers: trace ? [trace] : [],
    });
    engine.open(backend.now());
    engine.submitted(backend.now());
    engine.close(backend.now());
    await driver.run(() => engine.isFinished);
    if (driver.failures.length > 0) {
      const f = driver.failures[0]!;
      throw new LocusError('LOCUS_TASK_FAILED', `task ${f.label} (${f.codelet}) failed: ${f.message}`);
    }
    const report = {
      ...buildReport(engine, stats, {
        mode: 'real',
        workload,
        seed: o.seed ?? 1,
        makespanS: driver.makespan,
        endS: backend.now(),
        wallS: (performance.now() - wall0) / 1000,
      }),
      adapter: first.adapter,
    };
    const traced = trace ? { trace: trace.toJSON() } : {};
    if (!o.check) return { report, workload, ...traced };
    const sequential = new SequentialSubmitter();
    generator.submit(sequential, instance);
    return { report, workload, residual: relativeDifference(s.arrays, sequential.arrays), ...traced };
  } finally {
    for (const d of devices.values()) d.dispose();
  }
}

/** The adapter line a text report ends with. */
export function adapterReportLine(a: AdapterSummary): string {
  return `adapter: ${adapterLine(a)}${a.description ? ` - ${a.description}` : ''}`;
}
