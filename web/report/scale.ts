/** The time axis every panel shares: the window shown and the mapping to canvas x. */

/** Left margin of every canvas (row labels), CSS pixels. */
export const LEFT = 96;
/** Right margin of every canvas, CSS pixels. */
export const RIGHT = 8;

/** A time window on a canvas of a given width. */
export class TimeScale {
  constructor(
    readonly t0: number,
    readonly t1: number,
    readonly width: number,
  ) {}

  /** Canvas x of instant t (seconds). */
  x(t: number): number {
    return LEFT + ((t - this.t0) / (this.t1 - this.t0)) * (this.width - LEFT - RIGHT);
  }

  /** Instant at canvas x. */
  t(x: number): number {
    return this.t0 + ((x - LEFT) / (this.width - LEFT - RIGHT)) * (this.t1 - this.t0);
  }

  /** Seconds per CSS pixel. */
  get perPixel(): number {
    return (this.t1 - this.t0) / Math.max(1, this.width - LEFT - RIGHT);
  }
}

/** Tick instants for the window: 1, 2 or 5 times a power of ten, about `count` of them. */
export function ticks(t0: number, t1: number, count: number): number[] {
  const span = t1 - t0;
  if (!(span > 0)) return [t0];
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1 + step * 1e-9; t += step) out.push(t);
  return out;
}
