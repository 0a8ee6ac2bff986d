/** What a panel is: rows per run, drawing on a canvas, and what hovering a point shows. */
import type { Prepared } from './prepare.ts';
import type { TimeScale } from './scale.ts';

/** A row of a panel (a worker, a link, a node). */
export interface Row {
  label: string;
  /** What the row shows (a node's index for the memory panel); default its position. */
  index?: number;
  /** Top and height, CSS pixels. */
  top: number;
  height: number;
}

/** Vertical scales shared by the runs side by side (same memory and ready scales). */
export interface SharedScales {
  /** Bytes at the top of each node's memory row. */
  memoryTop: number[];
  /** Count at the top of the ready row. */
  readyTop: number;
}

/** One panel kind. */
export interface Panel {
  readonly id: 'gantt' | 'transfers' | 'memory' | 'ready';
  readonly title: string;
  /** The rows of `run`'s canvas. */
  rows(run: Prepared): Row[];
  /** Draws the rows; returns how many marks it drew (tests read it). */
  draw(ctx: CanvasRenderingContext2D, run: Prepared, rows: Row[], x: TimeScale, shared: SharedScales): number;
  /** The tooltip (HTML) at canvas point (px, py), or null. */
  hit(run: Prepared, rows: Row[], x: TimeScale, px: number, py: number, shared: SharedScales): string | null;
}

/** Rows of the given heights stacked from the top, with a gap. */
export function stack(labels: string[], heights: number[], gap = 3): Row[] {
  let top = 4;
  return labels.map((label, i) => {
    const row = { label, top, height: heights[i]! };
    top += heights[i]! + gap;
    return row;
  });
}

/** The row under py. */
export function rowAt(rows: Row[], py: number): number {
  return rows.findIndex((r) => py >= r.top && py < r.top + r.height);
}

/**
 * Draws a step series clipped to the window as one bar per pixel column (its highest value
 * there), so a million changes cost no more than the canvas's width: (times[i], values[i])
 * holds until the next change; `index` selects the series' entries in time order.
 */
export function drawSteps(
  ctx: CanvasRenderingContext2D,
  x: TimeScale,
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  index: ArrayLike<number> | null,
  n: number,
  first: number,
  top: number,
  height: number,
  yTop: number,
): number {
  const cols = new Float64Array(Math.ceil(x.width) + 1).fill(-1);
  const at = (i: number) => (index ? index[i]! : i);
  for (let i = Math.max(0, first); i < n; i++) {
    const t = times[at(i)]!;
    if (t > x.t1) break;
    const next = i + 1 < n ? times[at(i + 1)]! : x.t1;
    const v = values[at(i)]!;
    const a = Math.max(0, Math.floor(x.x(t)));
    const b = Math.min(cols.length - 1, Math.max(a, Math.ceil(x.x(Math.min(next, x.t1))) - 1));
    for (let p = a; p <= b; p++) if (v > cols[p]!) cols[p] = v;
  }
  let marks = 0;
  for (let p = 0; p < cols.length; p++) {
    const v = cols[p]!;
    if (v <= 0) continue;
    const h = Math.min(height, (v / yTop) * height);
    ctx.fillRect(p, top + height - h, 1, h);
    marks++;
  }
  return marks;
}

/**
 * Marks narrower than a pixel, gathered per pixel column: how much of the column they cover
 * and which colour covers most. Drawn as one 1-pixel bar per column whose opacity is the
 * covered fraction, so that a zoomed-out row shows its idle time as paler, never as solid.
 */
export class PixelBins {
  private readonly cover: Float32Array;
  private readonly best: Float32Array;
  private readonly color: Int32Array;

  constructor(width: number) {
    const n = Math.ceil(width) + 1;
    this.cover = new Float32Array(n);
    this.best = new Float32Array(n);
    this.color = new Int32Array(n).fill(-1);
  }

  /** A mark from x = a to b (b - a < 1) of colour index c. */
  add(a: number, b: number, c: number): void {
    const px = Math.floor(a);
    if (px < 0 || px >= this.cover.length) return;
    const w = b - a;
    this.cover[px]! += w;
    if (w >= this.best[px]!) {
      this.best[px] = w;
      this.color[px] = c;
    }
  }

  /** Draws the columns from y over height h; returns the bars drawn. */
  draw(ctx: CanvasRenderingContext2D, colors: readonly string[], y: number, h: number): number {
    let marks = 0;
    for (let px = 0; px < this.cover.length; px++) {
      const c = this.color[px]!;
      if (c < 0) continue;
      ctx.globalAlpha = Math.min(1, Math.max(0.15, this.cover[px]!));
      ctx.fillStyle = colors[c]!;
      ctx.fillRect(px, y, 1, h);
      marks++;
    }
    ctx.globalAlpha = 1;
    return marks;
  }
}
