/**
 * The `stencil` workload's kernels in WGSL, float32 (src/kernels/stencil3d.ts defines them):
 * the red-black half sweep of a block of planes, in place (a point's 6 neighbours have the
 * other colour, so no invocation reads what another writes), one invocation per point of the
 * colour; and the copy of a block's boundary planes into its halos. Sources are generated per
 * layout (which of the lower / upper planes, bottom / top halos exist); parameters are a
 * uniform.
 */
import { STENCIL_A, STENCIL_B } from '../kernels/stencil3d.ts';
import type { WgslKernel } from './kernel.ts';

/** WGSL float literal. */
const f32 = (v: number) => (Number.isInteger(v) ? `${v}.0` : `${v}`);

/** The half sweep's source: bindings [lower]?, block, [upper]?, then the uniform. */
export function stencilSource(hasLower: boolean, hasUpper: boolean): string {
  const lines: string[] = [];
  let b = 0;
  if (hasLower) lines.push(`@group(0) @binding(${b++}) var<storage, read> lower: array<f32>;`);
  lines.push(`@group(0) @binding(${b++}) var<storage, read_write> u: array<f32>;`);
  if (hasUpper) lines.push(`@group(0) @binding(${b++}) var<storage, read> upper: array<f32>;`);
  lines.push(`@group(0) @binding(${b}) var<uniform> prm: vec4<u32>; // X, parity, z0`);
  return `${lines.join('\n')}

@compute @workgroup_size(32, 4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let X = prm.x;
  let parity = prm.y;
  let z0 = prm.z;
  let P = X * X;
  let depth = arrayLength(&u) / P;
  // gid.x: the half row of one colour; gid.y: row y + plane z * X.
  let y = gid.y % X;
  let z = gid.y / X;
  if (z >= depth || y == 0u || y + 1u >= X) { return; }
  ${hasLower ? '' : 'if (z == 0u) { return; }'}
  ${hasUpper ? '' : 'if (z + 1u == depth) { return; }'}
  let x = 2u * gid.x + 1u + ((1u + y + z0 + z + parity) & 1u);
  if (x + 1u >= X) { return; }
  let k = x + y * X + z * P;
  var below: f32;
  var above: f32;
  if (z == 0u) { ${hasLower ? 'below = lower[x + y * X];' : 'below = 0.0;'} } else { below = u[k - P]; }
  if (z + 1u == depth) { ${hasUpper ? 'above = upper[x + y * X];' : 'above = 0.0;'} } else { above = u[k + P]; }
  let s = u[k - 1u] + u[k + 1u] + u[k - X] + u[k + X] + below + above;
  u[k] = ${f32(STENCIL_A)} * u[k] + ${f32(STENCIL_B)} * s;
}
`;
}

/** The half sweep; data [lower]?, block, [upper]?; args [X, parity, z0, has lower, has upper]. */
export const stencilWgsl: WgslKernel = {
  source: (_n, args) => stencilSource(args[3] !== 0, args[4] !== 0),
  workgroups: (bytes, args) => {
    const x = args[0]! | 0;
    const depth = bytes[args[3] !== 0 ? 1 : 0]! / 4 / (x * x);
    return [Math.ceil(Math.ceil(x / 2) / 32), Math.ceil((x * depth) / 4), 1];
  },
  params: (_bytes, args) => Uint32Array.from([args[0]! | 0, args[1]! | 0, args[2]! | 0, 0]),
};

/** The halo copy's source: bindings block, [bottom]?, [top]?, then the uniform. */
export function haloSource(hasBottom: boolean, hasTop: boolean): string {
  const lines = ['@group(0) @binding(0) var<storage, read> u: array<f32>;'];
  let b = 1;
  if (hasBottom) lines.push(`@group(0) @binding(${b++}) var<storage, read_write> bottom: array<f32>;`);
  if (hasTop) lines.push(`@group(0) @binding(${b++}) var<storage, read_write> top: array<f32>;`);
  lines.push(`@group(0) @binding(${b}) var<uniform> prm: vec4<u32>; // plane points`);
  return `${lines.join('\n')}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let P = prm.x;
  let i = gid.x;
  if (i >= P) { return; }
  ${hasBottom ? 'bottom[i] = u[i];' : ''}
  ${hasTop ? 'top[i] = u[arrayLength(&u) / P * P - P + i];' : ''}
}
`;
}

/** The halo copy; data block, [bottom]?, [top]?; args [X, has bottom, has top]. */
export const haloWgsl: WgslKernel = {
  source: (_n, args) => haloSource(args[1] !== 0, args[2] !== 0),
  workgroups: (_bytes, args) => [Math.ceil(((args[0]! | 0) * (args[0]! | 0)) / 64), 1, 1],
  params: (_bytes, args) => Uint32Array.from([(args[0]! | 0) * (args[0]! | 0), 0, 0, 0]),
};
