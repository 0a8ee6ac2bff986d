/**
 * The Jacobi sweep in WGSL, float32 (the `jacobi` workload's task, src/kernels/tasks.ts's
 * jacobiTask): data [above]?, the block's source row segments, [below]?, its destination
 * segments; args [n (row length), has above, has below, segments]. One invocation per grid
 * point of the block: u'[r][c] = 0.25 (up + down + left + right), border rows and columns
 * copied, as src/kernels/jacobi.ts defines it. The source is generated per layout (which
 * bindings exist); the parameters are a uniform, so a block of 3 segments with both
 * neighbours binds 8 storage buffers, WebGPU's guaranteed minimum.
 */
import type { WgslKernel } from './kernel.ts';

/** The WGSL source for a block of `segs` segments with or without the rows above and below. */
export function jacobiSource(hasAbove: boolean, hasBelow: boolean, segs: number): string {
  const lines: string[] = [];
  let b = 0;
  if (hasAbove) lines.push(`@group(0) @binding(${b++}) var<storage, read> above: array<f32>;`);
  for (let k = 0; k < segs; k++)
    lines.push(`@group(0) @binding(${b++}) var<storage, read> s${k}: array<f32>;`);
  if (hasBelow) lines.push(`@group(0) @binding(${b++}) var<storage, read> below: array<f32>;`);
  for (let k = 0; k < segs; k++)
    lines.push(`@group(0) @binding(${b++}) var<storage, read_write> d${k}: array<f32>;`);
  lines.push(`@group(0) @binding(${b}) var<uniform> prm: vec4<u32>;`);
  const rowsOf = (k: number) => `(arrayLength(&s${k}) / n)`;
  const total = Array.from({ length: segs }, (_, k) => rowsOf(k)).join(' + ');
  // Reads source row r (0 <= r < rows) at column c; writes destination row r.
  const read = Array.from(
    { length: segs },
    (_, k) => `  if (rr < ${rowsOf(k)}) { return s${k}[rr * n + c]; }\n  rr -= ${rowsOf(k)};`,
  ).join('\n');
  const write = Array.from(
    { length: segs },
    (_, k) => `  if (rr < ${rowsOf(k)}) { d${k}[rr * n + c] = v; return; }\n  rr -= ${rowsOf(k)};`,
  ).join('\n');
  return `${lines.join('\n')}

fn src(n: u32, r: u32, c: u32) -> f32 {
  var rr = r;
${read}
  return 0.0;
}

fn dst(n: u32, r: u32, c: u32, v: f32) {
  var rr = r;
${write}
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = prm.x;
  let c = gid.x;
  let r = gid.y;
  let rows = ${total};
  if (c >= n || r >= rows) { return; }
  let top = r == 0u && ${hasAbove ? 'false' : 'true'};
  let bottom = r == rows - 1u && ${hasBelow ? 'false' : 'true'};
  if (top || bottom || n < 3u || c == 0u || c == n - 1u) {
    dst(n, r, c, src(n, r, c));
    return;
  }
  var up: f32;
  var down: f32;
  if (r == 0u) { ${hasAbove ? 'up = above[c];' : 'up = 0.0;'} } else { up = src(n, r - 1u, c); }
  if (r == rows - 1u) { ${hasBelow ? 'down = below[c];' : 'down = 0.0;'} } else { down = src(n, r + 1u, c); }
  dst(n, r, c, 0.25 * (up + down + src(n, r, c - 1u) + src(n, r, c + 1u)));
}
`;
}

/** The Jacobi sweep; args [n, has above, has below, segments]. */
export const jacobiWgsl: WgslKernel = {
  source: (_n, args) => jacobiSource(args[1] !== 0, args[2] !== 0, args[3]! | 0),
  workgroups: (bytes, args) => {
    const n = args[0]! | 0;
    const segs = args[3]! | 0;
    const first = args[1] !== 0 ? 1 : 0;
    let rows = 0;
    for (let k = 0; k < segs; k++) rows += bytes[first + k]! / 4 / n;
    return [Math.ceil(n / 64), rows, 1];
  },
  params: (_bytes, args) => Uint32Array.from([args[0]! | 0, 0, 0, 0]),
};
