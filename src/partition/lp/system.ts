/**
 * The linear systems of seed 003 section IV, built as LinearPrograms.
 *
 * Adaptive w/o Comm (IV.A): min sum_k T^k s.t. f_d^k * ng_k * y_d^k <= T^k and sum_d y_d^k = 1.
 *
 * Adaptive w/ Comm (IV.B) adds sum_k (T_H2D^k + T_D2H^k) to the objective and, per kernel k and
 * device d, sum_h c_d^{h,k} * S_d(y^h, y^k) <= T_H2D^k (the seed's (1) and (2) merged: the
 * per-device time T_H2D_d^k only ever sits between them, so it is substituted), with
 * c_d^{h,k} = a_d^{h,k} * Omega_d. S_d is the seed's volume with both max(., 0) terms linearised:
 * for every dependent pair (h, k) and every inner boundary j = 1..n-1 between devices j-1 and j,
 *   P_j^h - P_j^k = pos_j - neg_j,  pos_j, neg_j >= 0,
 * where P_j is the prefix sum y_0 + ... + y_{j-1}. Then, devices numbered from 0 and P_0 = 0,
 * P_n = 1 for both kernels (so pos_0 = neg_0 = pos_n = neg_n = 0),
 *   S_d^{H2D} = pos_d + neg_{d+1}   (k's reads on d not written there by h: left, then right),
 *   S_d^{D2H} = neg_d + pos_{d+1}   (h's writes on d that k reads elsewhere).
 * Every pos/neg appears with a non-negative coefficient in rows that bound the minimised T's, so
 * at an optimum they can be taken as the positive and negative parts of the difference, and the
 * LP's optimum is the seed's. The same pos/neg serve both directions.
 *
 * pos_j is not a variable of the program: it is substituted by neg_j + P_j^h - P_j^k, and its
 * sign constraint becomes the row P_j^k - P_j^h - neg_j <= 0 (the "boundary" row). This is the
 * same LP with one variable and one row fewer per boundary: yalps stores an equality as two
 * rows of its dense tableau, so the substitution takes the tableau of the N-body's seven kernels
 * on four devices from 154 x 121 to 115 x 82 and the solve time about in half.
 *
 * Size: m*n compute rows, m sum rows, at most 2*m*n transfer rows and (n-1) boundary rows per
 * dependent pair (at most m^2 pairs), so at most m + 3mn + m^2(n-1) rows, of which the transfer
 * part 2mn + m^2(n-1) stays within the seed's 2(m + mn + m^2 n).
 *
 * Times are divided by the largest f_d^k * ng_k before solving (the ratios do not change), so the
 * solver sees coefficients near 1 whatever the time unit.
 */
import { addRow, addVariable, emptyProgram, type LinearProgram } from './program.ts';

/**
 * A dependent pair enters the LP only if misaligning it completely (S_d = 1) would cost, for
 * some device and direction, at least this fraction of the longest sub-kernel time the system
 * was built from (the `scale` below). A pair below it changes the optimum by less than that
 * fraction of one kernel's time, and costs the solver n - 1 variables and up to 3n - 1 rows:
 * on the N-body (seven kernels, four devices) 8 of its 15 pairs are such (the bin offsets and
 * the scan's counts, a few bytes per bin), and leaving them out removes about a quarter of
 * its rows and halves its solve time.
 */
export const NEGLIGIBLE_PAIR = 1e-4;

/** The communication terms of one dependent pair (producer h, consumer k, h != k). */
export interface PairCoefficients {
  /** Kernel h, whose writes k reads. */
  readonly producer: number;
  /** Kernel k. */
  readonly consumer: number;
  /** c_d = a_d^{h,k} * Omega_d for host-to-device copies to device d, seconds per unit of S_d. */
  readonly h2d: readonly number[];
  /** The same for device-to-host copies from device d. */
  readonly d2h: readonly number[];
}

/** What the system needs: the time per work-group of every sub-kernel, and the pairs' coefficients. */
export interface SystemInput {
  /** `f[k][d]`: seconds per work-group of kernel k on device d (finite, >= 0). */
  readonly f: readonly (readonly number[])[];
  /** `ng_k`: work-groups of each kernel. */
  readonly workGroups: readonly number[];
  /** Dependent pairs with their coefficients (adaptive-comm only; empty or absent for adaptive). */
  readonly pairs?: readonly PairCoefficients[];
}

/** The program and where its variables are. */
export interface PartitionSystem {
  /** The LP. */
  readonly program: LinearProgram;
  /** `y[k][d]`: index of y_d^k. */
  readonly y: number[][];
  /** The divisor applied to every time (seconds per unit of objective). */
  readonly scale: number;
  /** Rows that model transfers (the seed's "added" constraints): transfer rows plus boundary rows. */
  readonly transferRows: number;
}

/** Builds the system of section IV.A, plus IV.B's terms for every pair with a positive coefficient. */
export function buildSystem(input: SystemInput): PartitionSystem {
  const m = input.f.length;
  const n = m ? input.f[0]!.length : 0;
  let scale = 0;
  for (let k = 0; k < m; k++) {
    for (let d = 0; d < n; d++) scale = Math.max(scale, input.f[k]![d]! * input.workGroups[k]!);
  }
  if (!(scale > 0)) scale = 1;
  const p = emptyProgram();
  const y: number[][] = [];
  for (let k = 0; k < m; k++) {
    const row: number[] = [];
    for (let d = 0; d < n; d++) row.push(addVariable(p, `y_${k}_${d}`, 0));
    y.push(row);
  }
  for (let k = 0; k < m; k++) {
    const t = addVariable(p, `T_${k}`, 1);
    const ng = input.workGroups[k]!;
    for (let d = 0; d < n; d++) {
      addRow(
        p,
        `compute_${k}_${d}`,
        [
          [y[k]![d]!, (input.f[k]![d]! * ng) / scale],
          [t, -1],
        ],
        'le',
        0,
      );
    }
    addRow(
      p,
      `sum_${k}`,
      y[k]!.map((v) => [v, 1] as const),
      'eq',
      1,
    );
  }
  const rowsBefore = p.rows.length;
  const counts = (c: number) => c / scale >= NEGLIGIBLE_PAIR;
  const pairs = (input.pairs ?? []).filter(
    (q) => q.producer !== q.consumer && (q.h2d.some(counts) || q.d2h.some(counts)),
  );
  if (pairs.length && n > 1) addTransfers(p, y, pairs, m, n, scale);
  return { program: p, y, scale, transferRows: p.rows.length - rowsBefore };
}

/** Adds the transfer variables and rows of IV.B for `pairs` (n > 1). */
function addTransfers(
  p: LinearProgram,
  y: number[][],
  pairs: readonly PairCoefficients[],
  m: number,
  n: number,
  scale: number,
): void {
  // For inner boundaries j = 1..n-1 of pair q: neg[q][j] is a variable, and pos_j (see the top
  // of the file) the expression neg_j + P_j^h - P_j^k, kept as terms.
  const neg: number[][] = [];
  const pos: (readonly [number, number])[][][] = [];
  pairs.forEach((q, qi) => {
    const ns: number[] = [-1];
    const ps: (readonly [number, number])[][] = [[]];
    for (let j = 1; j < n; j++) {
      const b = addVariable(p, `neg_${qi}_${j}`, 0);
      ns.push(b);
      const diff: (readonly [number, number])[] = [];
      for (let i = 0; i < j; i++) diff.push([y[q.producer]![i]!, 1], [y[q.consumer]![i]!, -1]);
      ps.push([[b, 1], ...diff]);
      // pos_j >= 0.
      addRow(
        p,
        `boundary_${qi}_${j}`,
        ps[j]!.map(([v, c]) => [v, -c] as const),
        'le',
        0,
      );
    }
    neg.push(ns);
    pos.push(ps);
  });
  const scaled = (terms: readonly (readonly [number, number])[], c: number) =>
    terms.map(([v, x]) => [v, x * c] as const);
  for (const dir of ['h2d', 'd2h'] as const) {
    for (let k = 0; k < m; k++) {
      const mine = pairs.map((q, qi) => [q, qi] as const).filter(([q]) => q.consumer === k);
      if (!mine.some(([q]) => q[dir].some((c) => c > 0))) continue;
      const t = addVariable(p, `T_${dir}_${k}`, 1);
      for (let d = 0; d < n; d++) {
        const terms: (readonly [number, number])[] = [];
        for (const [q, qi] of mine) {
          const c = q[dir][d]! / scale;
          if (!(c > 0)) continue;
          // H2D: pos_d + neg_{d+1}; D2H: neg_d + pos_{d+1}.
          if (d >= 1) {
            if (dir === 'h2d') terms.push(...scaled(pos[qi]![d]!, c));
            else terms.push([neg[qi]![d]!, c]);
          }
          if (d + 1 <= n - 1) {
            if (dir === 'h2d') terms.push([neg[qi]![d + 1]!, c]);
            else terms.push(...scaled(pos[qi]![d + 1]!, c));
          }
        }
        if (!terms.length) continue;
        terms.push([t, -1]);
        addRow(p, `${dir}_${k}_${d}`, terms, 'le', 0);
      }
    }
  }
}

/** The seed's S_d for host-to-device (`h2d`) or device-to-host (`d2h`) copies at given ratios. */
export function transferVolume(
  direction: 'h2d' | 'd2h',
  device: number,
  producer: readonly number[],
  consumer: readonly number[],
): number {
  let ph = 0;
  let pk = 0;
  for (let i = 0; i < device; i++) {
    ph += producer[i]!;
    pk += consumer[i]!;
  }
  const lo = ph - pk;
  ph += producer[device]!;
  pk += consumer[device]!;
  const n = producer.length;
  const hi = device + 1 >= n ? 0 : ph - pk;
  const left = device === 0 ? 0 : lo;
  return direction === 'h2d' ? Math.max(left, 0) + Math.max(-hi, 0) : Math.max(-left, 0) + Math.max(hi, 0);
}

/** Reads the ratios out of an LP solution: rows clamped at 0 and renormalised to sum to 1. */
export function ratiosOf(system: PartitionSystem, values: ArrayLike<number>): number[][] {
  return system.y.map((row) => {
    const r = row.map((v) => Math.max(0, values[v]!));
    const s = r.reduce((a, b) => a + b, 0);
    return s > 0 ? r.map((x) => x / s) : r.map(() => 1 / r.length);
  });
}
