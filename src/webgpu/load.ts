/**
 * Loading WebGPU (docs/webgpu.md): the optional `webgpu` package (Dawn's Node bindings) is
 * imported lazily, so Locus installs and runs without it; findAdapter() asks it for a real
 * adapter (never Dawn's `null` backend) and describes it, software adapters (lavapipe)
 * included, so that no result from a CPU adapter passes for a GPU's.
 */
/// <reference types="@webgpu/types" />
import { LocusError } from '../core/types.ts';

/** What the `webgpu` package exports. */
interface WebGpuModule {
  create(options: string[]): GPU;
  globals: Record<string, unknown>;
}

/** The adapter a run used, recorded with every result. */
export interface AdapterSummary {
  /** Vendor ("nvidia", "mesa"). */
  vendor: string;
  /** Architecture ("ampere", "software"). */
  architecture: string;
  /** Device ("llvmpipe-..."). */
  device: string;
  /** Driver's description. */
  description: string;
  /** A software (CPU) adapter: lavapipe, SwiftShader, or one the browser calls a fallback. */
  software: boolean;
}

/** A found adapter and its summary. */
export interface FoundAdapter {
  adapter: GPUAdapter;
  info: AdapterSummary;
}

let gpu: GPU | undefined;

/** Loads `webgpu` once; a one-line LocusError when it is not installed. */
export async function loadGpu(): Promise<GPU> {
  if (gpu !== undefined) return gpu;
  let mod: WebGpuModule;
  try {
    // A specifier in a variable: type-checks and bundles without the optional package.
    const name = 'webgpu';
    mod = (await import(name)) as WebGpuModule;
  } catch (e) {
    throw new LocusError(
      'LOCUS_OPTIONAL_PACKAGE_MISSING',
      `the WebGPU backend needs the optional package 'webgpu' (npm install webgpu): ${(e as Error).message.split('\n')[0]}`,
    );
  }
  // GPUBufferUsage, GPUMapMode and the other constants WebGPU code reads as globals.
  for (const [k, v] of Object.entries(mod.globals)) {
    if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
  }
  gpu = mod.create([]);
  return gpu;
}

/** Summarises an adapter's info. */
export function summarize(adapter: GPUAdapter): AdapterSummary {
  const i = adapter.info;
  const architecture = i.architecture ?? '';
  const description = i.description ?? '';
  const device = i.device ?? '';
  const software =
    i.isFallbackAdapter === true ||
    architecture === 'software' ||
    /llvmpipe|lavapipe|swiftshader/i.test(`${device} ${description}`);
  return { vendor: i.vendor ?? '', architecture, device, description, software };
}

/** The adapter in one line ("mesa software llvmpipe-... (software adapter)"). */
export function adapterLine(a: AdapterSummary): string {
  const what = [a.vendor, a.architecture, a.device].filter((s) => s !== '').join(' ');
  return `${what || 'unnamed adapter'}${a.software ? ' (software adapter: CPU, not a GPU)' : ''}`;
}

/**
 * Finds a WebGPU adapter: the found adapter, or the one-line reason there is none (the
 * package is missing, or no Vulkan/Metal/D3D driver offers an adapter).
 */
export async function findAdapter(
  power: GPUPowerPreference = 'high-performance',
): Promise<FoundAdapter | { reason: string }> {
  let g: GPU;
  try {
    g = await loadGpu();
  } catch (e) {
    return { reason: (e as Error).message };
  }
  const adapter = await g.requestAdapter({ powerPreference: power });
  if (adapter === null) {
    return {
      reason:
        'no WebGPU adapter found: install a Vulkan driver (on Debian: apt-get install -t bookworm-backports mesa-vulkan-drivers libvulkan1 gives the lavapipe CPU adapter)',
    };
  }
  return { adapter, info: summarize(adapter) };
}
