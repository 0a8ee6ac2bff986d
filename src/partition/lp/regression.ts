/**
 * The least-squares fit of a communication coefficient `a_d^{h,k}` (seed 003 section IV.B): the
 * bytes a pair of kernels moved for one device, against `S_d` evaluated at the ratios used.
 *
 * As libsplit does (SchedulerMKGR: gsl_fit_linear on the sampled points, slope kept), the fit has
 * an intercept: a stencil's halo is a constant volume that does not depend on how misaligned two
 * kernels' ratios are, and a line through the origin would fold it into the slope and overstate
 * the cost of misalignment. With a single distinct abscissa the slope is not identifiable, and the
 * fit falls back to the line through the origin (y/x), or to no slope at all when x = 0.
 */

/** Two abscissae closer than this are one sample (the later replaces the earlier, as in libsplit). */
export const SAME_X = 1e-9;

/** The fitted line `y = intercept + slope * x`. */
export interface LinearFit {
  /** The slope, the coefficient the LP uses. */
  readonly slope: number;
  /** The intercept (0 when fitted through the origin). */
  readonly intercept: number;
  /** Distinct abscissae the fit used. */
  readonly samples: number;
}

/** Ordinary least squares of `ys` on `xs` with an intercept; through the origin when all xs are equal. */
export function fitLine(xs: readonly number[], ys: readonly number[]): LinearFit {
  const n = xs.length;
  if (n !== ys.length) throw new RangeError(`fitLine: ${n} abscissae but ${ys.length} ordinates`);
  if (n === 0) return { slope: 0, intercept: 0, samples: 0 };
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i]!;
    my += ys[i]!;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    sxx += dx * dx;
    sxy += dx * (ys[i]! - my);
  }
  if (sxx > SAME_X * SAME_X * n) {
    const slope = sxy / sxx;
    return { slope, intercept: my - slope * mx, samples: n };
  }
  return { slope: mx > SAME_X ? my / mx : 0, intercept: 0, samples: n };
}

/** The samples of one coefficient, deduplicated by abscissa, and their fit. */
export class CoefficientSamples {
  readonly #xs: number[] = [];
  readonly #ys: number[] = [];

  /** Records one point; a point at the same abscissa as an earlier one replaces it. */
  add(x: number, y: number): void {
    const i = this.#xs.findIndex((v) => Math.abs(v - x) < SAME_X);
    if (i >= 0) {
      this.#xs.splice(i, 1);
      this.#ys.splice(i, 1);
    }
    this.#xs.push(x);
    this.#ys.push(y);
  }

  /** Points recorded (distinct abscissae). */
  get size(): number {
    return this.#xs.length;
  }

  /**
   * The coefficient for the LP: the fitted slope, clamped at 0 (a negative slope would make the LP
   * reward misaligned ratios, which no region algebra can produce).
   */
  coefficient(): number {
    return Math.max(0, fitLine(this.#xs, this.#ys).slope);
  }
}
