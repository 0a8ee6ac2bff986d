/**
 * The workers' Gantt chart: a row per worker, each task a bar coloured by codelet; the time a
 * worker held a task that waited for its data (from when the worker took it, or its previous
 * task ended, to its start) as a pale red band; idle time as the empty row.
 */
import { IDLE, WAITING } from './colors.ts';
import { esc, formatTime } from './format.ts';
import { type Panel, PixelBins, type Row, rowAt, stack } from './panel.ts';
import { lowerBound, type Prepared } from './prepare.ts';
import { LEFT, type TimeScale } from './scale.ts';

const ROW = 18;

/** The first task of worker w's row that may show at t0 (tasks sorted by start). */
function firstVisible(run: Prepared, w: number, t0: number): number {
  const c = run.columns;
  const from = run.facts.workerTaskStart[w]!;
  const to = run.facts.workerTaskStart[w + 1]!;
  let i = lowerBound(c.taskStart, t0, from, to);
  // Earlier tasks may still run at t0 (a pipeline's tasks can overlap a little).
  while (i > from && c.taskEnd[i - 1]! > t0) i--;
  return i;
}

/** The Gantt panel. */
export const gantt: Panel = {
  id: 'gantt',
  title: 'Workers (tasks by codelet; pale red: waiting for data; grey: idle)',
  rows(run) {
    const names = run.facts.platform.workers.map((w) => w.name);
    return stack(
      names,
      names.map(() => ROW),
    );
  },
  draw(ctx, run, rows, x) {
    const c = run.columns;
    let marks = 0;
    rows.forEach((row, w) => {
      ctx.fillStyle = IDLE;
      ctx.fillRect(LEFT, row.top, x.width - LEFT, row.height);
      const to = run.facts.workerTaskStart[w + 1]!;
      const bins = new PixelBins(x.width);
      for (let i = firstVisible(run, w, x.t0); i < to; i++) {
        const s = c.taskStart[i]!;
        if (s > x.t1) break;
        // Waiting for data: from when the worker had it (taken, or its previous task's end).
        const prevEnd = i > run.facts.workerTaskStart[w]! ? c.taskEnd[i - 1]! : Number.NEGATIVE_INFINITY;
        const held = Math.max(c.taskPopped[i]!, prevEnd);
        if (held < s) {
          const a = Math.max(LEFT, x.x(held));
          const b = x.x(s);
          if (b - a >= 1) {
            ctx.fillStyle = WAITING;
            ctx.fillRect(a, row.top + row.height * 0.55, b - a, row.height * 0.45);
            marks++;
          }
        }
        const a = Math.max(LEFT, x.x(s));
        const b = x.x(c.taskEnd[i]!);
        if (b - a < 1) {
          // Narrower than a pixel: gathered per pixel column (see PixelBins).
          bins.add(a, b, c.taskCodelet[i]!);
          continue;
        }
        ctx.fillStyle = run.codeletColor[c.taskCodelet[i]!]!;
        ctx.fillRect(a, row.top + 1, b - a, row.height - 2);
        if (b - a >= 3) {
          ctx.fillStyle = 'rgba(255,255,255,0.6)';
          ctx.fillRect(b - 1, row.top + 1, 1, row.height - 2);
        }
        marks++;
      }
      marks += bins.draw(ctx, run.codeletColor, row.top + 1, row.height - 2);
    });
    return marks;
  },
  hit(run, rows, x, px, py) {
    const i = taskAt(run, rows, x, px, py);
    if (i < 0) return null;
    const c = run.columns;
    const w = c.taskWorker[i]!;
    const ready = c.taskReady[i]!;
    const popped = c.taskPopped[i]!;
    const lines = [
      `<b>${esc(c.taskName[i]!)}</b> <span class="muted">${esc(run.facts.codelets[c.taskCodelet[i]!]!)} on ${esc(run.facts.platform.workers[w]?.name ?? String(w))}</span>`,
      c.taskData[i] ? `data ${esc(c.taskData[i]!)}` : '',
      `start ${formatTime(c.taskStart[i]!)}, end ${formatTime(c.taskEnd[i]!)} (${formatTime(c.taskEnd[i]! - c.taskStart[i]!)})`,
      Number.isNaN(ready) ? '' : `ready at ${formatTime(ready)}`,
      Number.isNaN(popped) ? '' : `taken by its worker at ${formatTime(popped)}`,
    ];
    return lines.filter((l) => l !== '').join('<br>');
  },
};

/** The task under canvas point (px, py), or -1 (within 2 pixels of a bar). */
export function taskAt(run: Prepared, rows: Row[], x: TimeScale, px: number, py: number): number {
  const w = rowAt(rows, py);
  if (w < 0 || px < LEFT) return -1;
  const c = run.columns;
  const t = x.t(px);
  const tol = 2 * x.perPixel;
  const from = run.facts.workerTaskStart[w]!;
  const to = run.facts.workerTaskStart[w + 1]!;
  let i = lowerBound(c.taskStart, t + tol, from, to) - 1;
  let best = -1;
  let bestGap = Number.POSITIVE_INFINITY;
  for (; i >= from && i >= 0; i--) {
    const gap = Math.max(0, c.taskStart[i]! - t, t - c.taskEnd[i]!);
    if (gap < bestGap) {
      best = i;
      bestGap = gap;
    }
    if (gap === 0 || c.taskEnd[i]! < t - tol) break;
  }
  return bestGap <= tol ? best : -1;
}
