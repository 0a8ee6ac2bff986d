/**
 * A logical WebGPU device (docs/webgpu.md): one GPUDevice with a memory cap, so several
 * logical devices can share one adapter (seed 000's two GPUs of 500 MiB on any GPU). Its
 * buffer pool reuses freed buffers of the same size and never holds more than the cap (pooled
 * buffers count: they occupy the GPU's memory); its staging rings hand out mappable buffers
 * for device-to-host copies and for uploads. A lost device is remembered with its reason.
 */
/// <reference types="@webgpu/types" />
import { fmtBytes } from '../core/format-bytes.ts';
import { LocusError } from '../core/types.ts';
import { type AdapterSummary, findAdapter } from './load.ts';

/** Rounds a byte size up to WebGPU's copy alignment (4 bytes). */
export function aligned(bytes: number): number {
  return Math.max(4, Math.ceil(bytes / 4) * 4);
}

/** Free upload staging buffers kept per size (more in flight are made, then destroyed). */
const UPLOAD_RING_DEPTH = 8;

/** One logical device on an adapter. */
export class LogicalDevice {
  /** Bytes the device's buffers occupy (live and pooled). */
  allocated = 0;
  /** Why the device was lost (undefined while it works). */
  lost: string | undefined;
  private readonly free = new Map<number, GPUBuffer[]>();
  private readonly staging = new Map<number, GPUBuffer[]>();
  /** Upload staging buffers, mapped for writing and free, by size. */
  private readonly writeStaging = new Map<number, GPUBuffer[]>();
  private disposed = false;
  /** Called once if the device is lost while in use (the backend ends the run). */
  onLost: ((message: string) => void) | undefined;

  /**
   * @param name the memory node's name ("gpu0")
   * @param device its GPUDevice
   * @param cap its memory cap in bytes
   * @param adapter the adapter it runs on
   */
  constructor(
    readonly name: string,
    readonly device: GPUDevice,
    readonly cap: number,
    readonly adapter: AdapterSummary,
  ) {
    void device.lost.then((info) => {
      if (this.disposed) return;
      this.lost = `WebGPU device ${name} was lost (${info.reason}): ${info.message || 'no message'}`;
      this.onLost?.(this.lost);
    });
  }

  /** A storage buffer of `bytes` (aligned) from the pool; throws a LocusError past the cap. */
  buffer(bytes: number): GPUBuffer {
    const size = aligned(bytes);
    const pooled = this.free.get(size)?.pop();
    if (pooled !== undefined) return pooled;
    this.makeRoom(size);
    this.allocated += size;
    return this.device.createBuffer({
      size,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
  }

  /** Returns a buffer to the pool. */
  release(buf: GPUBuffer): void {
    const list = this.free.get(buf.size);
    if (list === undefined) this.free.set(buf.size, [buf]);
    else list.push(buf);
  }

  /** A mappable staging buffer for reading `bytes` back (from the ring of free ones). */
  stagingBuffer(bytes: number): GPUBuffer {
    const size = aligned(bytes);
    const pooled = this.staging.get(size)?.pop();
    if (pooled !== undefined) return pooled;
    return this.device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /** Returns an unmapped staging buffer to the ring. */
  releaseStaging(buf: GPUBuffer): void {
    const list = this.staging.get(buf.size);
    if (list === undefined) this.staging.set(buf.size, [buf]);
    else list.push(buf);
  }

  /**
   * Copies `view` into `buf` (its bytes past the view zeroed) through a staging buffer mapped
   * for writing: one CPU copy, from any source (shared memory included), then a GPU copy queued
   * after the work submitted before it. Settles when the GPU copy is done (the staging buffer
   * is mapped again then, and back in the ring: at most UPLOAD_RING_DEPTH kept per size).
   * `queue.writeBuffer` would need a plain (not shared) buffer, so a copy first, and copies the
   * bytes again inside Dawn, into fresh memory: see docs/webgpu.md, "Copies", for what each
   * costs the main thread.
   */
  upload(buf: GPUBuffer, view: Uint8Array): Promise<void> {
    const size = buf.size;
    const staging =
      this.writeStaging.get(size)?.pop() ??
      this.device.createBuffer({
        size,
        usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC,
        mappedAtCreation: true,
      });
    const range = new Uint8Array(staging.getMappedRange(), 0, size);
    const n = Math.min(view.byteLength, size);
    range.set(n === view.byteLength ? view : view.subarray(0, n));
    if (n < size) range.fill(0, n);
    staging.unmap();
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(staging, 0, buf, 0, size);
    this.device.queue.submit([enc.finish()]);
    // Mapping waits for the copy out of the staging buffer: its settling is the upload's end.
    return staging.mapAsync(GPUMapMode.WRITE).then(
      () => {
        const ring = this.writeStaging.get(size);
        if (ring === undefined) this.writeStaging.set(size, [staging]);
        else if (ring.length < UPLOAD_RING_DEPTH) ring.push(staging);
        else staging.destroy();
      },
      (e: unknown) => {
        staging.destroy();
        throw e;
      },
    );
  }

  /** Destroys pooled buffers until `size` more bytes fit the cap; throws if they cannot. */
  private makeRoom(size: number): void {
    for (const [s, list] of this.free) {
      while (this.allocated + size > this.cap && list.length > 0) {
        list.pop()!.destroy();
        this.allocated -= s;
      }
    }
    if (this.allocated + size > this.cap) {
      throw new LocusError(
        'LOCUS_GPU_MEMORY_TOO_SMALL',
        `WebGPU device ${this.name}: ${fmtBytes(size)} more would exceed its cap of ${fmtBytes(this.cap)} (${fmtBytes(this.allocated)} in use); raise the device's memory`,
      );
    }
  }

  /** Destroys the device (a later loss is not reported). */
  dispose(): void {
    this.disposed = true;
    this.device.destroy();
  }
}

/**
 * Creates a logical device: a fresh adapter (WebGPU consumes an adapter with its first device,
 * so each logical device asks for its own; on one machine they are the same physical GPU)
 * and a GPUDevice with the adapter's largest storage limits.
 */
export async function createLogicalDevice(
  name: string,
  cap: number,
  power: GPUPowerPreference = 'high-performance',
): Promise<LogicalDevice> {
  const found = await findAdapter(power);
  if ('reason' in found)
    throw new LocusError('LOCUS_WORKER_MISSING', `WebGPU device ${name}: ${found.reason}`);
  const adapter = found.adapter;
  const l = adapter.limits;
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize,
      maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
      maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
    },
  });
  return new LogicalDevice(name, device, cap, found.info);
}
