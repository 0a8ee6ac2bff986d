/** Ready tasks over time: tasks whose predecessors all ended and that have not started. */
import { READY } from './colors.ts';
import { formatCount, formatTime } from './format.ts';
import { drawSteps, type Panel, stack } from './panel.ts';
import { lowerBound } from './prepare.ts';
import { LEFT } from './scale.ts';

const ROW = 64;

/** The ready-tasks panel. */
export const ready: Panel = {
  id: 'ready',
  title: 'Ready tasks (predecessors done, not started)',
  rows() {
    return stack(['ready'], [ROW]);
  },
  draw(ctx, run, rows, x, shared) {
    const c = run.columns;
    const row = rows[0]!;
    ctx.fillStyle = '#f7f7f7';
    ctx.fillRect(LEFT, row.top, x.width - LEFT, row.height);
    ctx.fillStyle = READY;
    const first = lowerBound(c.readyTime, x.t0) - 1;
    const marks = drawSteps(
      ctx,
      x,
      c.readyTime,
      c.readyCount,
      null,
      c.readyTime.length,
      first,
      row.top,
      row.height,
      shared.readyTop || 1,
    );
    ctx.fillStyle = '#555';
    ctx.font = '10px sans-serif';
    ctx.fillText(formatCount(shared.readyTop), LEFT - 30, row.top + 10);
    return marks;
  },
  hit(run, rows, x, px, py) {
    const row = rows[0]!;
    if (py < row.top || py >= row.top + row.height || px < LEFT) return null;
    const c = run.columns;
    const t = x.t(px);
    const k = lowerBound(c.readyTime, t + 1e-15) - 1;
    return `${formatCount(k >= 0 ? c.readyCount[k]! : 0)} ready tasks at ${formatTime(t)}`;
  },
};
