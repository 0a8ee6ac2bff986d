/**
 * Runs one WGSL kernel on a logical device outside a task graph (kernel tests, calibration):
 * uploads the data, dispatches inside validation and out-of-memory error scopes, reads every
 * datum back. A GPU error rejects with the GPU's message.
 */
/// <reference types="@webgpu/types" />
import type { LogicalDevice } from './device.ts';
import type { WgslKernel } from './kernel.ts';

/** A compiled pipeline and the compilation's error message (undefined when it compiled). */
export interface Compiled {
  pipeline: GPUComputePipeline;
  error: Promise<string | undefined>;
}

/** The pipeline cache of each device, by WGSL source. */
const cache = new WeakMap<GPUDevice, Map<string, Compiled>>();

/**
 * The compute pipeline of WGSL `code` on `device` (compiled once). A source that does not
 * compile keeps its first error message: every later use reports that, not Dawn's "invalid
 * due to a previous error".
 */
export function pipelineOf(device: GPUDevice, code: string): Compiled {
  let bySource = cache.get(device);
  if (bySource === undefined) {
    bySource = new Map();
    cache.set(device, bySource);
  }
  let c = bySource.get(code);
  if (c === undefined) {
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code });
    const pipeline = device.createComputePipeline({
      layout: 'auto',
      compute: { module, entryPoint: 'main' },
    });
    const error = device.popErrorScope().then(
      (e) => (e ? e.message.split('\n')[0] : undefined),
      (e: unknown) => (e as Error).message,
    );
    c = { pipeline, error };
    bySource.set(code, c);
  }
  return c;
}

/**
 * Encodes `kernel` over `buffers` (plus its parameter buffer) and submits it `repeat` times;
 * returns the parameter buffer (destroy it once the work is done) and the compilation's error.
 */
export function encodeKernel(
  device: GPUDevice,
  kernel: WgslKernel,
  buffers: readonly GPUBuffer[],
  args: Float64Array,
  repeat = 1,
): { params: GPUBuffer; compileError: Promise<string | undefined> } {
  const bytes = buffers.map((b) => b.size);
  const params = kernel.params(bytes, args);
  const pbuf = device.createBuffer({
    // A uniform binding takes whole 16-byte blocks.
    size: Math.max(16, Math.ceil(params.byteLength / 16) * 16),
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(pbuf, 0, params);
  const { pipeline, error: compileError } = pipelineOf(device, kernel.source(buffers.length, args));
  const entries: GPUBindGroupEntry[] = buffers.map((buffer, i) => ({ binding: i, resource: { buffer } }));
  entries.push({ binding: buffers.length, resource: { buffer: pbuf } });
  const bind = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
  const enc = device.createCommandEncoder();
  const [x, y, z] = kernel.workgroups(bytes, args);
  for (let r = 0; r < repeat; r++) {
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(x, y, z);
    pass.end();
  }
  device.queue.submit([enc.finish()]);
  return { params: pbuf, compileError };
}

/** Runs `kernel` once on `dev` over copies of `data`; resolves with every datum's new content. */
export async function runWgsl(
  dev: LogicalDevice,
  kernel: WgslKernel,
  data: readonly Float32Array[],
  args: readonly number[],
): Promise<Float32Array[]> {
  const d = dev.device;
  const buffers = data.map((x) => {
    const b = dev.buffer(x.byteLength);
    d.queue.writeBuffer(b, 0, x.buffer, x.byteOffset, x.byteLength);
    return b;
  });
  d.pushErrorScope('out-of-memory');
  d.pushErrorScope('validation');
  const { params: pbuf, compileError } = encodeKernel(d, kernel, buffers, Float64Array.from(args));
  const validation = await d.popErrorScope();
  const oom = await d.popErrorScope();
  const error = (await compileError) ?? (validation ?? oom)?.message.split('\n')[0];
  if (error !== undefined) throw new Error(`WebGPU error in a kernel on ${dev.name}: ${error}`);
  const out: Float32Array[] = [];
  for (const [i, b] of buffers.entries()) {
    const staging = dev.stagingBuffer(b.size);
    const enc = d.createCommandEncoder();
    enc.copyBufferToBuffer(b, 0, staging, 0, b.size);
    d.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    out.push(new Float32Array(staging.getMappedRange().slice(0, data[i]!.byteLength)));
    staging.unmap();
    dev.releaseStaging(staging);
    dev.release(b);
  }
  pbuf.destroy();
  return out;
}
