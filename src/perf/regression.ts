/**
 * Regression performance models (seed 001 section III.B, StarPU's regression-based models):
 * a codelet's duration as a function of its size, fitted by least squares over the sizes
 * measured, to estimate sizes never measured. Two forms: the line y = a x + b, and the power
 * law y = a x^b + c.
 */
import type { HistoryEntry } from './history.ts';

/** The line y = a x + b fitted over n points; r2 is the coefficient of determination. */
export interface LinearFit {
  a: number;
  b: number;
  r2: number;
  n: number;
}

/** The power law y = a x^b + c fitted over n points; r2 is the coefficient of determination. */
export interface PowerFit {
  a: number;
  b: number;
  c: number;
  r2: number;
  n: number;
}

/** The value of a fitted line at x: a x + b. */
export function evalLinear(fit: LinearFit, x: number): number {
  return fit.a * x + fit.b;
}

/** The value of a fitted power law at x: a x^b + c. */
export function evalPower(fit: PowerFit, x: number): number {
  return fit.a * x ** fit.b + fit.c;
}

/** Checks the inputs of a fit; returns the weights (all 1 when none given). */
function checkPoints(
  what: string,
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  weights?: ArrayLike<number>,
) {
  const n = xs.length;
  if (ys.length !== n || (weights !== undefined && weights.length !== n)) {
    throw new RangeError(`${what}: xs, ys and weights must have the same length`);
  }
  const w = new Float64Array(n).fill(1);
  const distinct = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (weights !== undefined) w[i] = weights[i]!;
    if (!Number.isFinite(xs[i]!) || !Number.isFinite(ys[i]!) || !(Number.isFinite(w[i]!) && w[i]! >= 0)) {
      throw new RangeError(`${what}: point ${i} is not finite (x ${xs[i]}, y ${ys[i]}, weight ${w[i]})`);
    }
    if (w[i]! > 0) distinct.add(xs[i]!);
  }
  return { w, distinct: distinct.size };
}

/**
 * Weighted least-squares line through (u, y) in closed form, two passes for accuracy:
 * um = sum(w u) / sum(w), ym = sum(w y) / sum(w),
 * a = sum(w (u - um)(y - ym)) / sum(w (u - um)^2), b = ym - a um.
 * Returns the coefficients and the weighted residual sum of squares.
 */
function lineFit(u: ArrayLike<number>, y: ArrayLike<number>, w: ArrayLike<number>) {
  const n = u.length;
  let sw = 0;
  let su = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sw += w[i]!;
    su += w[i]! * u[i]!;
    sy += w[i]! * y[i]!;
  }
  const um = su / sw;
  const ym = sy / sw;
  let suu = 0;
  let suy = 0;
  for (let i = 0; i < n; i++) {
    const du = u[i]! - um;
    suu += w[i]! * du * du;
    suy += w[i]! * du * (y[i]! - ym);
  }
  const a = suu > 0 ? suy / suu : 0;
  const b = ym - a * um;
  let rss = 0;
  let tss = 0;
  for (let i = 0; i < n; i++) {
    const r = y[i]! - a * u[i]! - b;
    const d = y[i]! - ym;
    rss += w[i]! * r * r;
    tss += w[i]! * d * d;
  }
  return { a, b, rss, tss };
}

/** Coefficient of determination: 1 - rss / tss (1 when the data have no spread). */
const rSquared = (rss: number, tss: number) => (tss > 0 ? 1 - rss / tss : rss > 0 ? 0 : 1);

/**
 * Ordinary (optionally weighted) least-squares line y = a x + b, minimising
 * sum(w_i (y_i - a x_i - b)^2) in closed form. Throws RangeError with fewer than 2 distinct x.
 */
export function fitLinear(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  weights?: ArrayLike<number>,
): LinearFit {
  const { w, distinct } = checkPoints('fitLinear', xs, ys, weights);
  if (distinct < 2) throw new RangeError(`fitLinear: needs at least 2 distinct x, got ${distinct}`);
  const f = lineFit(xs, ys, w);
  return { a: f.a, b: f.b, r2: rSquared(f.rss, f.tss), n: xs.length };
}

/** Exponents scanned before the golden-section search, and how many. */
const B_LO = 0.1;
const B_HI = 4;
const SCAN = 40;
/** 1 / golden ratio. */
const INV_PHI = (Math.sqrt(5) - 1) / 2;

/**
 * Least-squares power law y = a x^b + c (StarPU's non-linear regression model), minimising
 * RSS(a, b, c) = sum(w_i (y_i - a x_i^b - c)^2). Needs at least 3 distinct x, all > 0.
 *
 * For a fixed exponent b the model is linear in (a, c) with regressor u = x^b, so a(b) and
 * c(b) have the closed form of the line fit and RSS becomes a function of b alone (variable
 * projection). That function is scanned at 40 exponents over [0.1, 4]; the best one and its
 * neighbours bracket the minimum, which a golden-section search narrows (each step keeps the
 * part of the bracket holding the lower of two interior points at ratio 1/phi). The result
 * is then refined by Gauss-Newton steps on (a, b, c) together, which converge quadratically
 * for well-fitting data (and may leave [0.1, 4] when the data ask for it), each step kept only
 * if it lowers the RSS. To keep x^b and the sums in range, x is divided by its largest value
 * and y by its largest magnitude during the fit, and the coefficients scaled back.
 */
export function fitPowerLaw(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  weights?: ArrayLike<number>,
): PowerFit {
  const { w, distinct } = checkPoints('fitPowerLaw', xs, ys, weights);
  if (distinct < 3) throw new RangeError(`fitPowerLaw: needs at least 3 distinct x, got ${distinct}`);
  const n = xs.length;
  let xMax = 0;
  let yMax = 0;
  for (let i = 0; i < n; i++) {
    if (!(xs[i]! > 0)) throw new RangeError(`fitPowerLaw: x must be > 0, point ${i} has x ${xs[i]}`);
    xMax = Math.max(xMax, xs[i]!);
    yMax = Math.max(yMax, Math.abs(ys[i]!));
  }
  if (yMax === 0) yMax = 1;
  const t = Float64Array.from({ length: n }, (_, i) => xs[i]! / xMax);
  const y = Float64Array.from({ length: n }, (_, i) => ys[i]! / yMax);
  const u = new Float64Array(n);
  const atExponent = (b: number) => {
    for (let i = 0; i < n; i++) u[i] = t[i]! ** b;
    return lineFit(u, y, w);
  };

  // Coarse scan, then golden section on the bracket around the best exponent.
  let best = 0;
  let bestRss = Number.POSITIVE_INFINITY;
  const step = (B_HI - B_LO) / (SCAN - 1);
  for (let k = 0; k < SCAN; k++) {
    const rss = atExponent(B_LO + k * step).rss;
    if (rss < bestRss) {
      bestRss = rss;
      best = k;
    }
  }
  let lo = B_LO + Math.max(0, best - 1) * step;
  let hi = B_LO + Math.min(SCAN - 1, best + 1) * step;
  let p = hi - INV_PHI * (hi - lo);
  let q = lo + INV_PHI * (hi - lo);
  let fp = atExponent(p).rss;
  let fq = atExponent(q).rss;
  for (let it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
    if (fp <= fq) {
      hi = q;
      q = p;
      fq = fp;
      p = hi - INV_PHI * (hi - lo);
      fp = atExponent(p).rss;
    } else {
      lo = p;
      p = q;
      fp = fq;
      q = lo + INV_PHI * (hi - lo);
      fq = atExponent(q).rss;
    }
  }
  let b = fp <= fq ? p : q;
  const start = atExponent(b);
  let a = start.a;
  let c = start.b;
  let rss = start.rss;
  const tss = start.tss;

  // Gauss-Newton refinement of (a, b, c): J = [t^b, a t^b ln t, 1], solve min |sqrt(w)(J d - r)|.
  const cols = [new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  const r = new Float64Array(n);
  for (let it = 0; it < 30 && rss > 0; it++) {
    for (let i = 0; i < n; i++) {
      const sw = Math.sqrt(w[i]!);
      const tb = t[i]! ** b;
      cols[0]![i] = sw * tb;
      cols[1]![i] = sw * a * tb * Math.log(t[i]!);
      cols[2]![i] = sw;
      r[i] = sw * (y[i]! - a * tb - c);
    }
    const d = leastSquares(cols, r);
    const nb = b + d[1]!;
    if (!(nb > 0) || !Number.isFinite(nb)) break;
    const na = a + d[0]!;
    const nc = c + d[2]!;
    let nrss = 0;
    for (let i = 0; i < n; i++) {
      const e = y[i]! - na * t[i]! ** nb - nc;
      nrss += w[i]! * e * e;
    }
    if (!(nrss < rss)) break;
    const small = Math.abs(d[1]!) <= 1e-15 * Math.abs(b);
    a = na;
    b = nb;
    c = nc;
    rss = nrss;
    if (small) break;
  }
  return { a: (a * yMax) / xMax ** b, b, c: c * yMax, r2: rSquared(rss, tss), n };
}

/**
 * Least-squares solution d of min |M d - r| for the columns of M (n x p, p small), by
 * Householder QR: M = Q R, then R d = Q^T r by back substitution. Directions with a
 * negligible pivot (rank deficiency) get d = 0.
 */
function leastSquares(columns: Float64Array[], rhs: Float64Array): Float64Array {
  const p = columns.length;
  const n = rhs.length;
  const m = columns.map((c) => Float64Array.from(c));
  const r = Float64Array.from(rhs);
  const diag = new Float64Array(p);
  let scale = 1e-300;
  for (const c of m) {
    let s = 0;
    for (let i = 0; i < n; i++) s += c[i]! * c[i]!;
    scale = Math.max(scale, Math.sqrt(s));
  }
  for (let k = 0; k < p && k < n; k++) {
    const col = m[k]!;
    let norm = 0;
    for (let i = k; i < n; i++) norm += col[i]! * col[i]!;
    norm = Math.sqrt(norm);
    if (norm <= 1e-14 * scale) {
      diag[k] = 0;
      continue;
    }
    const alpha = col[k]! > 0 ? -norm : norm;
    // v = col[k..] - alpha e_k, stored in col[k..]; H = I - 2 v v^T / (v^T v).
    col[k] = col[k]! - alpha;
    let vv = 0;
    for (let i = k; i < n; i++) vv += col[i]! * col[i]!;
    const reflect = (x: Float64Array) => {
      let dot = 0;
      for (let i = k; i < n; i++) dot += col[i]! * x[i]!;
      const f = (2 * dot) / vv;
      for (let i = k; i < n; i++) x[i] = x[i]! - f * col[i]!;
    };
    for (let j = k + 1; j < p; j++) reflect(m[j]!);
    reflect(r);
    diag[k] = alpha;
  }
  const d = new Float64Array(p);
  for (let k = Math.min(p, n) - 1; k >= 0; k--) {
    if (diag[k] === 0) continue;
    let s = r[k]!;
    for (let j = k + 1; j < p; j++) s -= m[j]![k]! * d[j]!;
    d[k] = s / diag[k]!;
  }
  return d;
}

/** How fitFromHistory weights the footprints' points (see there). */
export type HistoryWeighting = 'relative' | 'uniform' | 'samples';

/**
 * The regressions of one codelet on one worker kind from its history entries: one point per
 * footprint, x = size and y = mean duration. The line needs 2 distinct sizes, the power law 3
 * distinct sizes, all > 0; with fewer, that fit is left out. Entries without samples are
 * skipped; the entries should all be of one worker kind.
 *
 * Weighting of point i: 'relative' (default) w_i = 1 / max(y_i, 1e-9)^2, so the fit minimises
 * the squared relative errors sum(((y_i - f(x_i)) / y_i)^2), which suits durations spanning
 * orders of magnitude with multiplicative noise; 'uniform' w_i = 1 (plain least squares);
 * 'samples' w_i = count_i / max(y_i, 1e-9)^2 (inverse variance of the mean under relative noise).
 */
export function fitFromHistory(
  entries: readonly HistoryEntry[],
  options: { weighting?: HistoryWeighting } = {},
): { linear?: LinearFit; power?: PowerFit } {
  const weighting = options.weighting ?? 'relative';
  const xs: number[] = [];
  const ys: number[] = [];
  const ws: number[] = [];
  for (const e of entries) {
    if (e.count > 0 && Number.isFinite(e.size) && Number.isFinite(e.mean)) {
      xs.push(e.size);
      ys.push(e.mean);
      const rel = 1 / Math.max(e.mean, 1e-9) ** 2;
      ws.push(weighting === 'uniform' ? 1 : weighting === 'samples' ? e.count * rel : rel);
    }
  }
  const out: { linear?: LinearFit; power?: PowerFit } = {};
  const distinct = new Set(xs).size;
  if (distinct >= 2) out.linear = fitLinear(xs, ys, ws);
  if (distinct >= 3 && xs.every((x) => x > 0)) out.power = fitPowerLaw(xs, ys, ws);
  return out;
}
