/**
 * `locus calibrate --backend webgpu` (docs/webgpu.md): measures the WebGPU devices of a
 * platform into the model store, under the machine name `<platform>-webgpu` (so a thread
 * backend's calibration of the same preset is never mixed with it):
 *
 * - the bus, both ways, for every GPU node: host to device through a staging buffer mapped
 *   for writing (LogicalDevice.upload, as the backend copies); device to host `copyBufferToBuffer` into a staging buffer, then
 *   `mapAsync` and the read of the mapped range (as the backend copies); median of `repeats`
 *   copies per size after one unrecorded copy, then the least-squares line
 *   t = latency + bytes / bandwidth (where its slope is not positive, sizes too small for
 *   the timer's noise, the largest copy's rate and no latency);
 * - the kernels per footprint (float32 tiles, bytes in access order, as a WebGPU run keys its
 *   tasks): the codelets with WGSL (gemm, syrk, trsm; gemm's matmul2d block product at the
 *   `inner` sizes) on the first device, timed from submission to `onSubmittedWorkDone` after
 *   one unrecorded run (the pipeline's compilation), and every tile codelet's CPU
 *   implementation as the main thread runs it in a WebGPU run (kind cpu);
 * - the adapter that ran them (adapter.json in the machine's folder), so a software adapter's
 *   figures are never taken for a GPU's.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Platform } from '../core/platform.ts';
import { LocusError } from '../core/types.ts';
import * as Tasks from '../kernels/tasks.ts';
import { exportCalibratedPlatform } from '../perf/export-platform.ts';
import type { Sample } from '../perf/history.ts';
import type { BusPair } from '../perf/model.ts';
import { fitLinear } from '../perf/regression.ts';
import { ModelStore, machineDir } from '../perf/store.ts';
import type { KernelName } from '../workloads/submitter.ts';
import { createLogicalDevice, type LogicalDevice } from './device.ts';
import { encodeKernel } from './dispatch.ts';
import { gemmWgsl, matmul2dWgsl, syrkWgsl } from './gemm.ts';
import type { WgslKernel } from './kernel.ts';
import { type AdapterSummary, adapterLine } from './load.ts';
import { trsmWgsl } from './trsm.ts';

/** The CPU implementations by name. */
const CPU: Readonly<Record<KernelName, (data: Float32Array[], args: Float64Array) => void>> = { ...Tasks };

/** Copy sizes the bus calibration times by default (bytes). */
export const WEBGPU_BUS_SIZES = [4096, 65536, 1 << 20, 8 << 20] as const;

/** The store's machine name of a platform's WebGPU calibration. */
export function webgpuMachine(platform: Platform): string {
  return `${platform.name}-webgpu`;
}

/** The adapter record of a calibration, as stored. */
export interface AdapterRecord {
  format: 'locus-webgpu-adapter';
  version: 1;
  machine: string;
  adapter: AdapterSummary;
  /** When it was measured (ISO 8601). */
  measuredAt: string;
}

/** The file of a machine's adapter record. */
function adapterFile(dir: string, machine: string): string {
  return join(machineDir(dir, machine), 'adapter.json');
}

/** The adapter a WebGPU calibration ran on, or undefined when there is none. */
export function loadAdapterRecord(dir: string, machine: string): AdapterRecord | undefined {
  let text: string;
  try {
    text = readFileSync(adapterFile(dir, machine), 'utf8');
  } catch {
    return undefined;
  }
  let r: AdapterRecord | undefined;
  try {
    r = JSON.parse(text) as AdapterRecord;
  } catch {
    r = undefined;
  }
  if (
    r === undefined ||
    r === null ||
    r.format !== 'locus-webgpu-adapter' ||
    r.version !== 1 ||
    typeof r.adapter !== 'object'
  )
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `${adapterFile(dir, machine)} is not a locus-webgpu-adapter file of version 1: remove it and calibrate again`,
    );
  return r;
}

/** Median of a non-empty list. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** Seconds `fn` takes, median of `repeats` runs after one unrecorded run. */
async function timed(repeats: number, fn: () => Promise<void> | void): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) / 1000);
  }
  return median(times);
}

/** A latency and bandwidth fit of (bytes, seconds) points. */
function busPair(src: string, dst: string, xs: number[], ys: number[], repeats: number): BusPair {
  const fit = fitLinear(xs, ys);
  // A slope that is not positive (sizes too small for the noise): the largest copy's rate, no latency.
  const last = xs.length - 1;
  const bandwidth = fit.a > 0 ? 1 / fit.a : xs[last]! / ys[last]!;
  return { src, dst, bandwidth, latency: fit.a > 0 ? Math.max(0, fit.b) : 0, samples: xs.length * repeats };
}

/** Times host-to-device and device-to-host copies of `dev` (see the file comment). */
export async function calibrateDeviceBus(
  dev: LogicalDevice,
  host: string,
  sizes: readonly number[],
  repeats: number,
): Promise<[BusPair, BusPair]> {
  const d = dev.device;
  const xs: number[] = [];
  const h2d: number[] = [];
  const d2h: number[] = [];
  for (const bytes of sizes) {
    const data = new Uint8Array(bytes).fill(7);
    const buf = dev.buffer(bytes);
    xs.push(bytes);
    h2d.push(
      await timed(repeats, async () => {
        await dev.upload(buf, data);
      }),
    );
    const out = new Uint8Array(bytes);
    d2h.push(
      await timed(repeats, async () => {
        const staging = dev.stagingBuffer(bytes);
        const enc = d.createCommandEncoder();
        enc.copyBufferToBuffer(buf, 0, staging, 0, bytes);
        d.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        out.set(new Uint8Array(staging.getMappedRange(), 0, bytes));
        staging.unmap();
        dev.releaseStaging(staging);
      }),
    );
    if (out[bytes - 1] !== 7)
      throw new Error(`WebGPU calibration: a ${bytes}-byte round trip on ${dev.name} lost its data`);
    dev.release(buf);
  }
  return [busPair(host, dev.name, xs, h2d, repeats), busPair(dev.name, host, xs, d2h, repeats)];
}

/** One kernel to time: codelet, WGSL, data sizes (float32 elements), arguments, flops. */
interface KernelCase {
  codelet: string;
  /** The WGSL implementation (absent: CPU only). */
  gpu?: WgslKernel;
  cpu: KernelName;
  lengths: number[];
  args: number[];
  /** Arguments of the CPU implementation. */
  cpuArgs: number[];
  flops: number;
  /** Well-conditioned inputs (triangular solves, factorisations). */
  diagonal?: number;
}

/** The tile codelets at edge n, and matmul2d's block product of n x inner by inner x n. */
function cases(n: number, inners: readonly number[]): KernelCase[] {
  const t = n * n;
  const out: KernelCase[] = [
    {
      codelet: 'gemm',
      gpu: gemmWgsl,
      cpu: 'gemmTask',
      lengths: [t, t, t],
      args: [0, 1, 1],
      cpuArgs: [n],
      flops: 2 * n ** 3,
    },
    {
      codelet: 'syrk',
      gpu: syrkWgsl,
      cpu: 'syrkTask',
      lengths: [t, t],
      args: [],
      cpuArgs: [n],
      flops: n ** 3,
    },
    {
      codelet: 'trsm',
      gpu: trsmWgsl,
      cpu: 'trsmCholeskyTask',
      lengths: [t, t],
      args: [0],
      cpuArgs: [n],
      flops: n ** 3,
      diagonal: n,
    },
  ];
  for (const k of inners)
    out.push({
      codelet: 'gemm',
      gpu: matmul2dWgsl,
      cpu: 'matmul2dTask',
      lengths: [n * k, k * n, t],
      args: [n, k],
      cpuArgs: [n, k],
      flops: 2 * n * n * k,
    });
  return out;
}

/** Random float32 data, with `diagonal` added to the first datum's diagonal when given. */
function inputs(c: KernelCase, n: number): Float32Array[] {
  let s = 12345;
  const rnd = () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  };
  const data = c.lengths.map((l) => Float32Array.from({ length: l }, rnd));
  if (c.diagonal !== undefined) for (let j = 0; j < n; j++) data[0]![j + j * n]! += c.diagonal;
  return data;
}

/** Times a WGSL kernel on `dev` (submission to completion); data stay on the device. */
async function timeGpu(dev: LogicalDevice, c: KernelCase, n: number, repeats: number): Promise<number> {
  const d = dev.device;
  const gpu = c.gpu!;
  const buffers = inputs(c, n).map((x) => {
    const b = dev.buffer(x.byteLength);
    d.queue.writeBuffer(b, 0, x.buffer as ArrayBuffer, x.byteOffset, x.byteLength);
    return b;
  });
  const args = Float64Array.from(c.args);
  try {
    d.pushErrorScope('validation');
    const seconds = await timed(repeats, async () => {
      const { params, compileError } = encodeKernel(d, gpu, buffers, args);
      await d.queue.onSubmittedWorkDone();
      params.destroy();
      const e = await compileError;
      if (e !== undefined) throw new Error(`WebGPU calibration: ${c.codelet} does not compile: ${e}`);
    });
    const err = await d.popErrorScope();
    if (err) throw new Error(`WebGPU calibration: ${c.codelet} on ${dev.name}: ${err.message}`);
    return seconds;
  } finally {
    for (const b of buffers) dev.release(b);
  }
}

/** Times a kernel's CPU implementation (the main thread of a WebGPU run), on float32 data. */
async function timeCpu(c: KernelCase, n: number, repeats: number): Promise<number> {
  const fresh = inputs(c, n);
  const data = fresh.map((x) => x.slice());
  const args = Float64Array.from(c.cpuArgs);
  return timed(repeats, () => {
    for (let i = 0; i < data.length; i++) data[i]!.set(fresh[i]!);
    CPU[c.cpu](data, args);
  });
}

/** CPU-only codelets of a WebGPU run (POTRF, GETRF) at edge n. */
function cpuOnly(n: number): KernelCase[] {
  const t = n * n;
  const base = { lengths: [t], args: [], cpuArgs: [n], diagonal: n };
  return [
    { ...base, codelet: 'potrf', cpu: 'potrfTask', flops: n ** 3 / 3 },
    { ...base, codelet: 'getrf', cpu: 'getrfTask', flops: (2 * n ** 3) / 3 },
  ];
}

/** What `locus calibrate --backend webgpu` does. */
export interface WebGpuCalibrateOptions {
  platform: Platform;
  /** Tile edges of the kernels (multiples of 4). */
  tileSizes: number[];
  /** matmul2d inner dimensions timed at each tile edge (multiples of 4; default none). */
  inners?: number[];
  /** Timed runs per kernel and per copy size (medians are recorded). */
  repeats: number;
  /** Copy sizes of the bus calibration (default WEBGPU_BUS_SIZES). */
  busSizes?: readonly number[];
  /** The model folder. */
  dir: string;
  log?: (line: string) => void;
}

/** What a WebGPU calibration measured. */
export interface WebGpuCalibration {
  machine: string;
  adapter: AdapterSummary;
  bus: BusPair[];
  samples: Sample[];
}

/** Calibrates the bus and the kernels of the platform's WebGPU devices into the store. */
export async function calibrateWebGpu(o: WebGpuCalibrateOptions): Promise<WebGpuCalibration> {
  const log = o.log ?? (() => {});
  for (const n of [...o.tileSizes, ...(o.inners ?? [])])
    if (n % 4 !== 0)
      throw new LocusError(
        'LOCUS_OPTION_INVALID',
        `--backend webgpu: calibrated sizes must be multiples of 4 (the WGSL kernels load vec4 columns; got ${n})`,
      );
  const p = o.platform;
  const machine = webgpuMachine(p);
  const store = new ModelStore(machineDir(o.dir, machine));
  store.loadHistory();
  store.loadBus(machine);
  const host = p.nodes.find((n) => n.kind !== 'gpu');
  const gpus = p.nodes.filter((n) => n.kind === 'gpu');
  if (gpus.length === 0 || host === undefined)
    throw new LocusError(
      'LOCUS_WORKER_MISSING',
      '--backend webgpu calibration needs GPUs: pass --gpus 1 or more',
    );
  const devices: LogicalDevice[] = [];
  try {
    for (const g of gpus) {
      if (!Number.isFinite(g.capacity))
        throw new LocusError('LOCUS_PLATFORM_INVALID', `GPU node ${g.name} needs a memory size (--gpu-mem)`);
      devices.push(await createLogicalDevice(g.name, g.capacity));
    }
    const adapter = devices[0]!.adapter;
    const bus: BusPair[] = [];
    for (const dev of devices) {
      const pairs = await calibrateDeviceBus(dev, host.name, o.busSizes ?? WEBGPU_BUS_SIZES, o.repeats);
      for (const q of pairs) {
        log(
          `bus ${q.src} -> ${q.dst}: ${(q.bandwidth / 1e9).toFixed(3)} GB/s, latency ${(q.latency * 1e6).toFixed(1)} us`,
        );
        bus.push(q);
      }
    }
    const samples: Sample[] = [];
    const record = (c: KernelCase, kind: 'cpu' | 'gpu', seconds: number) => {
      const footprint = c.lengths.map((l) => l * 4).join(',');
      samples.push({ codelet: c.codelet, kind, footprint, size: c.flops, seconds });
      log(
        `${c.codelet} [${footprint}] on ${kind}: ${(seconds * 1e3).toFixed(3)} ms, ${(c.flops / seconds / 1e9).toFixed(3)} GFlop/s`,
      );
    };
    for (const n of o.tileSizes) {
      for (const c of cases(n, o.inners ?? [])) {
        record(c, 'gpu', await timeGpu(devices[0]!, c, n, o.repeats));
        record(c, 'cpu', await timeCpu(c, n, o.repeats));
      }
      for (const c of cpuOnly(n)) record(c, 'cpu', await timeCpu(c, n, o.repeats));
    }
    // One sample per (codelet, kind, footprint) and calibration: the median of the timed runs.
    store.saveSamples(samples);
    store.saveBus(machine, bus);
    mkdirSync(machineDir(o.dir, machine), { recursive: true });
    const rec: AdapterRecord = {
      format: 'locus-webgpu-adapter',
      version: 1,
      machine,
      adapter,
      measuredAt: new Date().toISOString(),
    };
    writeFileSync(adapterFile(o.dir, machine), `${JSON.stringify(rec, null, 2)}\n`);
    return { machine, adapter, bus, samples };
  } finally {
    for (const d of devices) d.dispose();
  }
}

/**
 * `locus platform export --backend webgpu`: the platform file of `platform` with the WebGPU
 * calibration of `dir`: every worker's codelets as one `duration` rule per measured
 * footprint of its kind, then, as the catch-all, the rate of the codelet's largest measured
 * task (gemm's is also the worker's `rate`); every host-device link's latency and bandwidth
 * from the calibrated bus; the adapter in the description. The platform keeps its name with
 * `-webgpu-calibrated` appended.
 */
export function exportWebGpuPlatform(platform: Platform, dir: string): string {
  const machine = webgpuMachine(platform);
  const rec = loadAdapterRecord(dir, machine);
  const missing = `no WebGPU calibration of ${platform.name} in ${dir}: run \`locus calibrate --backend webgpu\` with the same machine options first`;
  if (rec === undefined) throw new LocusError('LOCUS_MODEL_UNCALIBRATED', missing);
  const a = rec.adapter;
  return exportCalibratedPlatform(platform, dir, {
    machine,
    name: `${platform.name}-webgpu-calibrated`,
    description: `WebGPU calibration of ${rec.measuredAt} on ${adapterLine(a)}${a.description ? ` - ${a.description}` : ''}`,
    busRequired: missing,
  });
}
