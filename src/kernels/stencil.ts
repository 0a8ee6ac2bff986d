/**
 * One Jacobi sweep of the 7-point stencil of the stencil workload on a block of planes:
 * dst(x, y, z) = alpha * src(x, y, z) + beta * (src(x-1, y, z) + src(x+1, y, z)
 * + src(x, y-1, z) + src(x, y+1, z) + src(x, y, z-1) + src(x, y, z+1)).
 * A block holds nz planes of nx * ny points, plane-major: point (x, y, z) at
 * x + nx * (y + ny * z). Points outside the block in x and y are zero (Dirichlet boundary);
 * below plane 0 and above plane nz-1 lie the neighbours' halo planes, or zeros. Each row is
 * swept once with the x neighbours carried in locals. 8 flops per point.
 */
import { checkLength, checkSize, type Tile } from './types.ts';

/** Flops per point of one stencil update (6 additions, 2 multiplications). */
export const STENCIL7_FLOPS_PER_POINT = 8;

let zero64 = new Float64Array(0);
let zero32 = new Float32Array(0);

/** A zero plane of at least `length` elements of t's element type (cached per type, per thread). */
function zeroPlane(t: Tile, length: number): Tile {
  if (t instanceof Float64Array) {
    if (zero64.length < length) zero64 = new Float64Array(length);
    return zero64;
  }
  if (zero32.length < length) zero32 = new Float32Array(length);
  return zero32;
}

/**
 * Updates plane z of the block into dst[dOff .. dOff + nx*ny): the shared body of
 * stencil7 and stencilInPlace. lo / hi are the planes below and above (with offsets).
 */
function sweepPlane(
  src: Tile,
  z: number,
  nx: number,
  ny: number,
  lo: Tile,
  loOff: number,
  hi: Tile,
  hiOff: number,
  zero: Tile,
  alpha: number,
  beta: number,
  dst: Tile,
  dOff: number,
): void {
  const base = z * nx * ny;
  for (let y = 0; y < ny; y++) {
    const row = base + y * nx;
    const ym = y > 0 ? src : zero;
    const ymOff = y > 0 ? row - nx : 0;
    const yp = y < ny - 1 ? src : zero;
    const ypOff = y < ny - 1 ? row + nx : 0;
    const lr = loOff + y * nx;
    const hr = hiOff + y * nx;
    const dr = dOff + y * nx;
    let left = 0;
    let cur = src[row];
    for (let x = 0; x < nx - 1; x++) {
      const right = src[row + x + 1];
      dst[dr + x] =
        alpha * cur + beta * (left + right + ym[ymOff + x] + yp[ypOff + x] + lo[lr + x] + hi[hr + x]);
      left = cur;
      cur = right;
    }
    const x = nx - 1;
    dst[dr + x] = alpha * cur + beta * (left + ym[ymOff + x] + yp[ypOff + x] + lo[lr + x] + hi[hr + x]);
  }
}

/** Argument checks shared by the two entry points; returns the plane size nx * ny. */
function checkStencil(
  kernel: string,
  block: Tile,
  nx: number,
  ny: number,
  nz: number,
  below: Tile | null,
  above: Tile | null,
): number {
  checkSize(kernel, 'nx', nx);
  checkSize(kernel, 'ny', ny);
  checkSize(kernel, 'nz', nz);
  const nxy = nx * ny;
  checkLength(kernel, 'block', block, nxy * nz);
  if (below !== null) checkLength(kernel, 'below', below, nxy);
  if (above !== null) checkLength(kernel, 'above', above, nxy);
  return nxy;
}

/**
 * One Jacobi update of the 7-point stencil from `src` into `dst` (both nx * ny * nz points,
 * plane-major, distinct arrays): dst = alpha * src + beta * (sum of the 6 neighbours), with
 * zero boundaries in x and y, `below` (nx * ny points, or null for zeros) under plane 0 and
 * `above` over plane nz-1. Accepts float64 or float32 blocks (one type per call).
 */
export function stencil7(
  src: Tile,
  dst: Tile,
  nx: number,
  ny: number,
  nz: number,
  below: Tile | null,
  above: Tile | null,
  alpha: number,
  beta: number,
): void {
  const nxy = checkStencil('stencil7', src, nx, ny, nz, below, above);
  checkLength('stencil7', 'dst', dst, nxy * nz);
  if (nxy === 0) return;
  const zero = zeroPlane(src, nxy);
  for (let z = 0; z < nz; z++) {
    const lo = z > 0 ? src : (below ?? zero);
    const hi = z < nz - 1 ? src : (above ?? zero);
    const loOff = z > 0 ? (z - 1) * nxy : 0;
    const hiOff = z < nz - 1 ? (z + 1) * nxy : 0;
    sweepPlane(src, z, nx, ny, lo, loOff, hi, hiOff, zero, alpha, beta, dst, z * nxy);
  }
}

/**
 * The same update as stencil7, written back into `block` itself, with a scratch of only two
 * planes (at least 2 * nx * ny elements, same type as block): new plane z is kept in the
 * scratch until plane z+1 has been computed from the old plane z, then copied back.
 */
export function stencilInPlace(
  block: Tile,
  scratch: Tile,
  nx: number,
  ny: number,
  nz: number,
  below: Tile | null,
  above: Tile | null,
  alpha: number,
  beta: number,
): void {
  const nxy = checkStencil('stencilInPlace', block, nx, ny, nz, below, above);
  checkLength('stencilInPlace', 'scratch', scratch, 2 * nxy);
  if (nxy === 0 || nz === 0) return;
  const zero = zeroPlane(block, nxy);
  for (let z = 0; z < nz; z++) {
    const lo = z > 0 ? block : (below ?? zero);
    const hi = z < nz - 1 ? block : (above ?? zero);
    const loOff = z > 0 ? (z - 1) * nxy : 0;
    const hiOff = z < nz - 1 ? (z + 1) * nxy : 0;
    sweepPlane(block, z, nx, ny, lo, loOff, hi, hiOff, zero, alpha, beta, scratch, (z & 1) * nxy);
    if (z > 0) block.set(scratch.subarray(((z - 1) & 1) * nxy, ((z - 1) & 1) * nxy + nxy), (z - 1) * nxy);
  }
  const last = ((nz - 1) & 1) * nxy;
  block.set(scratch.subarray(last, last + nxy), (nz - 1) * nxy);
}
