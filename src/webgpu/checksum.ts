/**
 * The checksum kernel in WGSL (the conformance suite's and property tests' kernel, exact in
 * integer arithmetic, so a GPU run is bit-identical to a sequential CPU run): hashes the task
 * id and every word it reads, then overwrites every word it writes with a mix of that hash,
 * the word's index and (read-write) its old value. Same function as test/helpers/kernels.ts's
 * `checksum`; one invocation (the hash is sequential).
 */
import type { WgslKernel } from './kernel.ts';

/** The checksum's WGSL: data 0..n-1 as u32 arrays, params = [task id, mode of each datum]. */
export function checksumSource(n: number): string {
  const bindings = Array.from(
    { length: n },
    (_, i) => `@group(0) @binding(${i}) var<storage, read_write> d${i}: array<u32>;`,
  ).join('\n');
  const reads = Array.from(
    { length: n },
    (_, i) =>
      `  if ((p[${i + 1}] & 1u) != 0u) { for (var k = 0u; k < arrayLength(&d${i}); k++) { h = (h ^ d${i}[k]) * 0x01000193u; } }`,
  ).join('\n');
  const writes = Array.from(
    { length: n },
    (_, i) =>
      `  if ((p[${i + 1}] & 2u) != 0u) { for (var k = 0u; k < arrayLength(&d${i}); k++) { let old = select(0u, d${i}[k], p[${i + 1}] == 3u); d${i}[k] = ((h + k) * 0x85ebca6bu) ^ old; } }`,
  ).join('\n');
  return `${bindings}
@group(0) @binding(${n}) var<storage, read> p: array<u32>;
@compute @workgroup_size(1)
fn main() {
  var h = p[0] * 0x9e3779b1u;
${reads}
${writes}
}
`;
}

/** The checksum as a WGSL kernel; args = [task id, mode of each access]. */
export const checksumWgsl: WgslKernel = {
  source: checksumSource,
  workgroups: () => [1, 1, 1],
  params: (_bytes, args) => Uint32Array.from(args, (a) => a >>> 0),
};
