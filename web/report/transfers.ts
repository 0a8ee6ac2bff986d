/**
 * Copies per link: a row per link (source -> destination memory), its copies as bars in
 * lanes (copies in flight at once stack), coloured by kind (fetch, prefetch, write-back, ...).
 */
import { KIND_COLORS } from './colors.ts';
import { esc, formatBytes, formatTime } from './format.ts';
import { type Panel, PixelBins, rowAt, stack } from './panel.ts';
import { lowerBound, type Prepared } from './prepare.ts';
import { LEFT, type TimeScale } from './scale.ts';

const LANE = 6;

/** Lane height and lanes of link l's row. */
function laneHeight(run: Prepared, l: number, height: number): number {
  return height / run.facts.links[l]!.lanes;
}

/** The copies panel. */
export const transfers: Panel = {
  id: 'transfers',
  title: 'Copies per link (by kind)',
  rows(run) {
    const links = run.facts.links;
    return stack(
      links.map((l) => l.name),
      links.map((l) => Math.max(14, Math.min(48, l.lanes * LANE))),
    );
  },
  draw(ctx, run, rows, x) {
    const c = run.columns;
    const kindColors = run.facts.kinds.map((k) => KIND_COLORS[k] ?? '#888');
    let marks = 0;
    rows.forEach((row, l) => {
      ctx.fillStyle = '#f7f7f7';
      ctx.fillRect(LEFT, row.top, x.width - LEFT, row.height);
      const lh = laneHeight(run, l, row.height);
      const starts = run.laneStart[l]!;
      for (let lane = 0; lane + 1 < starts.length; lane++) {
        const to = starts[lane + 1]!;
        let i = Math.max(starts[lane]!, lowerBound(c.trStart, x.t0, starts[lane]!, to) - 1);
        const bins = new PixelBins(x.width);
        const y = row.top + lane * lh;
        for (; i < to; i++) {
          const s = c.trStart[i]!;
          if (s > x.t1) break;
          const e = c.trEnd[i]!;
          if (e < x.t0) continue;
          const a = Math.max(LEFT, x.x(s));
          const b = x.x(e);
          if (b - a < 1) {
            bins.add(a, b, c.trKind[i]!);
            continue;
          }
          ctx.fillStyle = kindColors[c.trKind[i]!]!;
          ctx.fillRect(a, y, b - a, Math.max(1, lh - 1));
          marks++;
        }
        marks += bins.draw(ctx, kindColors, y, Math.max(1, lh - 1));
      }
    });
    return marks;
  },
  hit(run, rows, x, px, py) {
    const i = transferAt(run, rows, x, px, py);
    if (i < 0) return null;
    const c = run.columns;
    const queued = c.trStart[i]! - c.trIssued[i]!;
    return [
      `<b>${esc(c.trName[i]!)}</b> <span class="muted">${esc(run.facts.kinds[c.trKind[i]!]!)}</span>`,
      `${formatBytes(c.trBytes[i]!)}, ${formatTime(c.trStart[i]!)} to ${formatTime(c.trEnd[i]!)} (${formatTime(c.trEnd[i]! - c.trStart[i]!)})`,
      queued > 0 ? `queued ${formatTime(queued)} behind other copies` : '',
    ]
      .filter((s) => s !== '')
      .join('<br>');
  },
};

/** The copy under canvas point (px, py), or -1. */
export function transferAt(
  run: Prepared,
  rows: ReturnType<Panel['rows']>,
  x: TimeScale,
  px: number,
  py: number,
) {
  const l = rowAt(rows, py);
  if (l < 0 || px < LEFT) return -1;
  const c = run.columns;
  const lane = Math.min(
    run.facts.links[l]!.lanes - 1,
    Math.floor((py - rows[l]!.top) / laneHeight(run, l, rows[l]!.height)),
  );
  const from = run.laneStart[l]![lane]!;
  const to = run.laneStart[l]![lane + 1]!;
  const t = x.t(px);
  const tol = 2 * x.perPixel;
  const i = lowerBound(c.trStart, t + tol, from, to) - 1;
  if (i < from) return -1;
  return c.trEnd[i]! >= t - tol ? i : -1;
}
