/**
 * WebGPU test helpers: the adapter the tests use (found once; its one-line reason when there
 * is none, for the tests to skip with), and logical devices for a platform's GPU nodes.
 */
import type { Platform } from '../../src/core/platform.ts';
import { createLogicalDevice, type LogicalDevice } from '../../src/webgpu/device.ts';
import { adapterLine, type FoundAdapter, findAdapter } from '../../src/webgpu/load.ts';

/** The adapter, or undefined (then `noAdapter` says why). */
export let adapter: FoundAdapter | undefined;
/** Why WebGPU tests skip (undefined when an adapter was found). */
export let noAdapter: string | undefined;

const found = await findAdapter();
if ('reason' in found) noAdapter = found.reason;
else {
  adapter = found;
  process.stderr.write(`# WebGPU adapter: ${adapterLine(found.info)}\n`);
}

/** One logical device per GPU node of `platform`, capped at the node's capacity (or `cap`). */
export async function devicesFor(platform: Platform, cap?: number): Promise<Map<number, LogicalDevice>> {
  const devices = new Map<number, LogicalDevice>();
  for (const [n, node] of platform.nodes.entries()) {
    if (node.kind !== 'gpu') continue;
    const c = cap ?? (Number.isFinite(node.capacity) ? node.capacity : 256 * 1024 * 1024);
    devices.set(n, await createLogicalDevice(node.name, c));
  }
  return devices;
}

/** y = 2 x on float32 vectors: one invocation per element. */
export const SCALE_WGSL = `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> p: vec4<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < u32(p.x)) { x[id.x] = 2.0 * x[id.x]; }
}`;
