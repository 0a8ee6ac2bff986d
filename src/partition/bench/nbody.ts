/**
 * N-body with a cut-off distance in the manner of SOTL (seed 003 section V): particles in a
 * square box divided into `nb x nb` bins whose side is the cut-off. Every kernel's work-group is
 * a bin and reaches the particles of its bins through the start offsets, as the seed says of
 * SOTL ("all kernels access particles within bins through indirect accesses"): the kernels then
 * share one index space, the force kernel's ratios applied to the others keep the particles
 * where the force kernel left them, and only halos move. Every iteration
 * - `bin`: the new bin of each particle of the old bins `[lo, hi)` (through the old offsets),
 * - `count`, `scan`, `scatter`: a counting sort into bins (work-groups are bins). Since a
 *   particle moves less than one bin per step, the particles landing in bin `b` come from the
 *   old 3 x 3 bins around `b`, reached through the old start offsets: a monotone indirection,
 *   so each bin-range of the sort reads only its neighbourhood (and scans only those 9 bins),
 * - `force`: each particle of bin `b` against the particles of the 3 x 3 bins around `b`
 *   within the cut-off (a work-group per bin; the declared region is the contiguous span of bins
 *   `b - nb - 1 .. b + nb + 1` through the new start offsets, which holds those 9 bins; the
 *   kernel, like a cell-list code, visits only the 9),
 * - `move`: velocities and positions of the particles of the new bins `[lo, hi)` (through the new
 *   offsets), walls reflect,
 * - `restart`: the new offsets become the old ones.
 * Three particles in four fill the whole box (SOTL simulates a box full of particles) and one in
 * four starts in a corner blob half the box's side, where the density is 1.75 times the mean;
 * all drift, so the load per bin (and per sub-range) changes from one iteration to the next,
 * which is what the adaptive strategies must follow. The seed's f_d^k is the mean time per
 * work-group of a device's own sub-range, and the LP assumes it holds for the bins it gives the
 * device next; a force kernel's work per bin grows as the square of the density, so the blob's
 * bins cost about 3 times the others. An earlier start (half the particles in a blob of 0.35
 * times the side: 4.6 times the mean density, 21 times the work per bin) was beyond what that
 * linear extrapolation follows: the ratios swung, and no strategy balanced the devices, against
 * the seed's Figure 3. With every particle in a blob, three quarters of the bins were empty and
 * a device given only empty bins measured nothing at all.
 */
import { Rng } from '../../core/rng.ts';
import {
  affine,
  indirect,
  type KernelSequence,
  type Memory,
  type PartitionKernel,
  prefix,
} from '../kernel.ts';

/** The N-body sequence: `n` particles, `nb x nb` bins, seeded start. */
export function nbodySequence(n: number, nb: number, seed: number): KernelSequence {
  const B = nb * nb;
  const side = 1; // bin side = cut-off
  const L = nb * side;
  const dt = 0.05;
  const vmax = (0.9 * side) / dt;
  const rng = new Rng(seed);
  const rand = () => rng.int(1 << 24) / (1 << 24);
  const binOf = (x: number, y: number) =>
    Math.min(nb - 1, Math.floor(y / side)) * nb + Math.min(nb - 1, Math.floor(x / side));
  // Start: three particles in four anywhere in the box, the others in a corner blob; all
  // drift towards the opposite corner; sorted by bin.
  const raw: { x: number; y: number; vx: number; vy: number; b: number }[] = [];
  for (let i = 0; i < n; i++) {
    const spread = i % 4 !== 0 ? 1 : 0.5;
    const x = rand() * L * spread;
    const y = rand() * L * spread;
    raw.push({
      x,
      y,
      vx: (0.3 + 0.4 * rand()) * vmax * 0.5,
      vy: (0.2 + 0.5 * rand()) * vmax * 0.5,
      b: binOf(x, y),
    });
  }
  raw.sort((p, q) => p.b - q.b);
  const pos = new Float64Array(2 * n);
  const vel = new Float64Array(2 * n);
  const start = new Int32Array(B + 1);
  raw.forEach((p, i) => {
    pos[2 * i] = p.x;
    pos[2 * i + 1] = p.y;
    vel[2 * i] = p.vx;
    vel[2 * i + 1] = p.vy;
    start[p.b + 1]!++;
  });
  for (let b = 0; b < B; b++) start[b + 1] = start[b + 1]! + start[b]!;
  const lo3 = (b: number) => Math.max(0, b - nb - 1);
  const hi3 = (b: number) => Math.min(B, b + nb + 2);
  // The 3 x 3 bins around b as (at most) three runs of particles, one per bin row, in increasing
  // order: [first, last) pairs into `seg`, returns how many. The declared regions are the
  // contiguous span [lo3(b), hi3(b)) of bins, a superset (a region may over-approximate).
  const seg = new Int32Array(6);
  const around = (s: ArrayLike<number>, b: number): number => {
    const r = Math.floor(b / nb);
    const c = b - r * nb;
    const c0 = Math.max(0, c - 1);
    const c1 = Math.min(nb, c + 2);
    let k = 0;
    for (let rr = Math.max(0, r - 1); rr <= Math.min(nb - 1, r + 1); rr++) {
      seg[k++] = s[rr * nb + c0]!;
      seg[k++] = s[rr * nb + c1]!;
    }
    return k;
  };
  /** Particles in the 3 x 3 neighbourhoods of bins [lo, hi) (each bin's own count). */
  const scanned = (s: ArrayLike<number>, lo: number, hi: number): number => {
    let w = 0;
    for (let b = lo; b < hi; b++) {
      const runs = around(s, b);
      for (let g = 0; g < runs; g += 2) w += seg[g + 1]! - seg[g]!;
    }
    return w;
  };
  const near = (idx: string, scale = 1) => indirect(idx, 1, -(nb + 1), nb + 1, scale);

  const kernels: PartitionKernel[] = [
    {
      name: 'bin',
      codelet: 'nbody-bin',
      workGroups: B,
      accesses: [
        { buffer: 'start', read: [affine(1, 0, 1)] },
        { buffer: 'pos', read: [indirect('start', 1, 0, 0, 2)] },
        { buffer: 'bin', write: [indirect('start', 1, 0, 0)] },
      ],
      run(m: Memory, lo: number, hi: number) {
        const s = m.start!;
        const p = m.pos!;
        const bin = m.bin!;
        for (let i = s[lo]!; i < s[hi]!; i++) bin[i] = binOf(p[2 * i]!, p[2 * i + 1]!);
      },
      work: (m, lo, hi) => m.start![hi]! - m.start![lo]!,
    },
    {
      name: 'count',
      codelet: 'nbody-count',
      workGroups: B,
      accesses: [
        { buffer: 'start', read: [affine(1, -(nb + 1), nb + 2)] },
        { buffer: 'bin', read: [near('start')] },
        { buffer: 'count', write: [affine(1, 0, 0)] },
      ],
      run(m: Memory, lo: number, hi: number) {
        const s = m.start!;
        const bin = m.bin!;
        const c = m.count!;
        for (let b = lo; b < hi; b++) {
          let k = 0;
          const runs = around(s, b);
          for (let g = 0; g < runs; g += 2) for (let i = seg[g]!; i < seg[g + 1]!; i++) if (bin[i] === b) k++;
          c[b] = k;
        }
      },
      work(m: Memory, lo: number, hi: number) {
        return scanned(m.start!, lo, hi);
      },
    },
    {
      name: 'scan',
      codelet: 'nbody-scan',
      workGroups: B,
      accesses: [
        { buffer: 'count', read: [prefix(1, 0)] },
        { buffer: 'nstart', write: [affine(1, 1, 1)] },
      ],
      run(m: Memory, lo: number, hi: number) {
        const c = m.count!;
        const ns = m.nstart!;
        for (let b = lo; b < hi; b++) {
          let s = 0;
          for (let j = 0; j <= b; j++) s += c[j]!;
          ns[b + 1] = s;
        }
      },
      work: (_m, lo, hi) => (hi * (hi + 1)) / 2 - (lo * (lo + 1)) / 2,
    },
    {
      name: 'scatter',
      codelet: 'nbody-scatter',
      workGroups: B,
      accesses: [
        { buffer: 'nstart', read: [affine(1, 0, 0)] },
        { buffer: 'start', read: [affine(1, -(nb + 1), nb + 2)] },
        { buffer: 'bin', read: [near('start')] },
        { buffer: 'pos', read: [near('start', 2)] },
        { buffer: 'vel', read: [near('start', 2)] },
        { buffer: 'npos', write: [indirect('nstart', 1, 0, 0, 2)] },
        { buffer: 'nvel', write: [indirect('nstart', 1, 0, 0, 2)] },
      ],
      run(m: Memory, lo: number, hi: number) {
        const {
          nstart: ns,
          start: s,
          bin,
          pos: p,
          vel: v,
          npos: np,
          nvel: nv,
        } = m as Record<string, Float64Array>;
        for (let b = lo; b < hi; b++) {
          let dst = ns![b]!;
          const runs = around(s!, b);
          for (let g = 0; g < runs; g += 2)
            for (let i = seg[g]!; i < seg[g + 1]!; i++) {
              if (bin![i] !== b) continue;
              np![2 * dst] = p![2 * i]!;
              np![2 * dst + 1] = p![2 * i + 1]!;
              nv![2 * dst] = v![2 * i]!;
              nv![2 * dst + 1] = v![2 * i + 1]!;
              dst++;
            }
        }
      },
      work(m: Memory, lo: number, hi: number) {
        const s = m.start!;
        const bin = m.bin!;
        const w = scanned(s, lo, hi);
        let moved = 0;
        for (let i = s[lo3(lo)]!; i < s[hi3(hi - 1)]!; i++) if (bin[i]! >= lo && bin[i]! < hi) moved++;
        // 4-byte words: one bin index per particle scanned, and the 64 bytes (position and
        // velocity, read and written, as SOTL's float4) of each particle it moves, 16 words.
        return w + 16 * moved;
      },
    },
    {
      name: 'force',
      codelet: 'nbody-force',
      workGroups: B,
      accesses: [
        { buffer: 'nstart', read: [affine(1, -(nb + 1), nb + 2)] },
        { buffer: 'npos', read: [near('nstart', 2)] },
        { buffer: 'acc', write: [indirect('nstart', 1, 0, 0, 2)] },
      ],
      run(m: Memory, lo: number, hi: number) {
        const ns = m.nstart!;
        const p = m.npos!;
        const a = m.acc!;
        for (let b = lo; b < hi; b++) {
          const runs = around(ns, b);
          for (let i = ns[b]!; i < ns[b + 1]!; i++) {
            const xi = p[2 * i]!;
            const yi = p[2 * i + 1]!;
            let fx = 0;
            let fy = 0;
            for (let g = 0; g < runs; g += 2)
              for (let j = seg[g]!; j < seg[g + 1]!; j++) {
                if (j === i) continue;
                const dx = xi - p[2 * j]!;
                const dy = yi - p[2 * j + 1]!;
                const r2 = dx * dx + dy * dy;
                if (r2 >= side * side || r2 === 0) continue;
                const f = (side - Math.sqrt(r2)) / (r2 + 0.01);
                fx += f * dx;
                fy += f * dy;
              }
            a[2 * i] = fx;
            a[2 * i + 1] = fy;
          }
        }
      },
      work(m: Memory, lo: number, hi: number) {
        const ns = m.nstart!;
        let pairs = 0;
        for (let b = lo; b < hi; b++) pairs += (ns[b + 1]! - ns[b]!) * scanned(ns, b, b + 1);
        return pairs;
      },
    },
    {
      name: 'move',
      codelet: 'nbody-move',
      workGroups: B,
      accesses: [
        { buffer: 'nstart', read: [affine(1, 0, 1)] },
        { buffer: 'npos', read: [indirect('nstart', 1, 0, 0, 2)] },
        { buffer: 'nvel', read: [indirect('nstart', 1, 0, 0, 2)] },
        { buffer: 'acc', read: [indirect('nstart', 1, 0, 0, 2)] },
        { buffer: 'pos', write: [indirect('nstart', 1, 0, 0, 2)] },
        { buffer: 'vel', write: [indirect('nstart', 1, 0, 0, 2)] },
      ],
      run(m: Memory, lo: number, hi: number) {
        const { npos: np, nvel: nv, acc: a, pos: p, vel: v } = m as Record<string, Float64Array>;
        const ns = m.nstart!;
        for (let i = ns[lo]!; i < ns[hi]!; i++) {
          for (let c = 0; c < 2; c++) {
            const k = 2 * i + c;
            let vk = nv![k]! + a![k]! * dt;
            vk = Math.max(-vmax, Math.min(vmax, vk));
            let x = np![k]! + vk * dt;
            if (x < 0) {
              x = -x;
              vk = -vk;
            } else if (x >= L) {
              x = 2 * L - x - 1e-9;
              vk = -vk;
            }
            p![k] = x;
            v![k] = vk;
          }
        }
      },
      work: (m, lo, hi) => m.nstart![hi]! - m.nstart![lo]!,
    },
    {
      name: 'restart',
      codelet: 'nbody-restart',
      workGroups: B,
      accesses: [
        { buffer: 'nstart', read: [affine(1, 1, 1)] },
        { buffer: 'start', write: [affine(1, 1, 1)] },
      ],
      run(m: Memory, lo: number, hi: number) {
        for (let b = lo; b < hi; b++) m.start![b + 1] = m.nstart![b + 1]!;
      },
      work: (_m, lo, hi) => hi - lo,
    },
  ];
  return {
    name: 'nbody',
    buffers: [
      { name: 'pos', init: pos },
      { name: 'vel', init: vel },
      { name: 'start', init: start },
      { name: 'bin', init: new Int32Array(n) },
      { name: 'count', init: new Int32Array(B) },
      { name: 'nstart', init: new Int32Array(B + 1) },
      { name: 'npos', init: new Float64Array(2 * n) },
      { name: 'nvel', init: new Float64Array(2 * n) },
      { name: 'acc', init: new Float64Array(2 * n) },
    ],
    kernels,
  };
}
