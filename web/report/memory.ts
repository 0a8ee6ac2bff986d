/**
 * Memory occupancy per node: bytes in use over time (one bar per pixel column, its highest
 * value), the capacity as a dashed line, evictions as red ticks under the row and the
 * write-backs leaving the node as blue ticks over it.
 */
import { EVICT, MEMORY, WRITEBACK } from './colors.ts';
import { esc, formatBytes, formatCount, formatTime } from './format.ts';
import { drawSteps, type Panel, rowAt, stack } from './panel.ts';
import { lowerBound, lowerBoundIndexed } from './prepare.ts';
import { LEFT, type TimeScale } from './scale.ts';

const ROW = 44;
const TICK = 5;

/** Draws one tick per pixel column at each instant of times[from..to) in the window. */
function drawTicks(
  ctx: CanvasRenderingContext2D,
  x: TimeScale,
  at: (i: number) => number,
  from: number,
  to: number,
  y: number,
) {
  let last = -1;
  let marks = 0;
  for (let i = from; i < to; i++) {
    const t = at(i);
    if (t > x.t1) break;
    const px = Math.floor(x.x(t));
    if (px === last || px < LEFT) continue;
    last = px;
    ctx.fillRect(px, y, 1, TICK);
    marks++;
  }
  return marks;
}

/** The memory panel. */
export const memory: Panel = {
  id: 'memory',
  title: 'Memory in use per node (dashed: capacity; red ticks: evictions; blue ticks: write-backs)',
  rows(run) {
    // The nodes the trace has a memory counter for (host memory has none).
    const nodes = run.facts.platform.nodes.map((_, i) => i).filter((i) => run.memIndex[i]!.length > 0);
    return stack(
      nodes.map((i) => run.facts.platform.nodes[i]!.name),
      nodes.map(() => ROW),
      TICK * 2 + 4,
    ).map((r, k) => ({ ...r, top: r.top + TICK + 1, index: nodes[k]! }));
  },
  draw(ctx, run, rows, x, shared) {
    const c = run.columns;
    let marks = 0;
    rows.forEach((row) => {
      const n = row.index!;
      ctx.fillStyle = '#f7f7f7';
      ctx.fillRect(LEFT, row.top, x.width - LEFT, row.height);
      const yTop = shared.memoryTop[n]! || 1;
      const index = run.memIndex[n]!;
      const first = lowerBoundIndexed(c.memTime, index, x.t0) - 1;
      ctx.fillStyle = MEMORY;
      marks += drawSteps(
        ctx,
        x,
        c.memTime,
        c.memBytes,
        index,
        index.length,
        first,
        row.top,
        row.height,
        yTop,
      );
      const cap = run.facts.platform.nodes[n]!.capacityBytes;
      if (cap !== null && cap <= yTop) {
        const y = row.top + row.height - (cap / yTop) * row.height + 0.5;
        ctx.strokeStyle = '#555';
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(LEFT, y);
        ctx.lineTo(x.width, y);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      const ev = run.evIndex[n]!;
      ctx.fillStyle = EVICT;
      marks += drawTicks(
        ctx,
        x,
        (i) => c.evTime[ev[i]!]!,
        lowerBoundIndexed(c.evTime, ev, x.t0),
        ev.length,
        row.top + row.height + 1,
      );
      const wb = run.writebacks[n]!;
      ctx.fillStyle = WRITEBACK;
      marks += drawTicks(ctx, x, (i) => wb[i]!, lowerBound(wb, x.t0), wb.length, row.top - TICK - 1);
    });
    return marks;
  },
  hit(run, rows, x, px, py) {
    const k = rowAt(
      rows.map((r) => ({ ...r, top: r.top - TICK - 1, height: r.height + 2 * TICK + 2 })),
      py,
    );
    if (k < 0 || px < LEFT) return null;
    const n = rows[k]!.index!;
    const c = run.columns;
    const t = x.t(px);
    const index = run.memIndex[n]!;
    const last = lowerBoundIndexed(c.memTime, index, t + 1e-15) - 1;
    const used = last >= 0 ? c.memBytes[index[last]!]! : 0;
    const node = run.facts.platform.nodes[n]!;
    const tol = 3 * x.perPixel;
    const ev = run.evIndex[n]!;
    const names: string[] = [];
    for (
      let i = lowerBoundIndexed(c.evTime, ev, t - tol);
      i < ev.length && c.evTime[ev[i]!]! <= t + tol;
      i++
    ) {
      names.push(c.evName[ev[i]!]!);
    }
    const wb = run.writebacks[n]!;
    const wbs = lowerBound(wb, t + tol) - lowerBound(wb, t - tol);
    return [
      `<b>${esc(node.name)}</b> at ${formatTime(t)}: ${formatBytes(used)} in use${node.capacityBytes !== null ? ` of ${formatBytes(node.capacityBytes)}` : ''}`,
      names.length > 0
        ? `evicted here: ${esc(names.slice(0, 8).join(', '))}${names.length > 8 ? ` and ${formatCount(names.length - 8)} more` : ''}`
        : '',
      wbs > 0 ? `${formatCount(wbs)} write-back${wbs > 1 ? 's' : ''} leave here` : '',
    ]
      .filter((s) => s !== '')
      .join('<br>');
  },
};
