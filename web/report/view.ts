/**
 * The page's panels, one canvas per panel and run, all on one time window: the wheel zooms
 * around the pointer, dragging pans, a double click shows the whole run again; hovering shows
 * what is under the pointer and a cursor line on every panel at that instant.
 *
 * Drawing is hand-written on 2D canvases: each panel walks only the marks inside the window
 * and merges those narrower than a pixel (one mark per pixel column and colour), so a frame
 * costs about the canvas's width per row, not the run's size. Plotting libraries (uPlot,
 * vega) draw series, not 100,000 Gantt bars with per-bar hovering; a WebGL one would add
 * weight without need at these counts.
 */

import { formatTime } from './format.ts';
import { gantt, taskAt } from './gantt.ts';
import { memory } from './memory.ts';
import type { Panel, Row, SharedScales } from './panel.ts';
import type { Prepared } from './prepare.ts';
import { ready } from './ready.ts';
import { LEFT, TimeScale, ticks } from './scale.ts';
import { transfers } from './transfers.ts';

/** The panels, top to bottom. */
export const PANELS: readonly Panel[] = [gantt, transfers, memory, ready];

const AXIS = 16;

interface Cell {
  panel: Panel;
  run: Prepared;
  canvas: HTMLCanvasElement;
  rows: Row[];
  width: number;
}

/** The panels of a page, drawn and interactive. */
export class View {
  private readonly cells: Cell[] = [];
  private t0: number;
  private t1: number;
  private readonly full: [number, number];
  private hoverT: number | null = null;
  private frame = 0;
  private drag: { x: number; t0: number; t1: number } | null = null;
  /** Marks drawn per panel id in the last frame (summed over runs). */
  readonly drawn: Record<string, number> = {};
  /** Frames drawn so far. */
  frames = 0;
  private readonly shared: SharedScales;

  constructor(
    root: HTMLElement,
    readonly runs: Prepared[],
    private readonly tip: HTMLElement,
  ) {
    this.t0 = Math.min(...runs.map((r) => r.facts.t0));
    this.t1 = Math.max(...runs.map((r) => r.facts.t1));
    if (!(this.t1 > this.t0)) this.t1 = this.t0 + 1e-6;
    this.full = [this.t0, this.t1];
    this.shared = sharedScales(runs);
    for (const panel of PANELS) {
      const section = document.createElement('section');
      section.className = 'panel';
      section.dataset.panel = panel.id;
      const h = document.createElement('h2');
      h.textContent = panel.title;
      section.append(h);
      const cols = document.createElement('div');
      cols.className = 'cols';
      const rowsPerRun = runs.map((run) => panel.rows(run));
      const height =
        Math.max(...rowsPerRun.map((rows) => rows.reduce((m, r) => Math.max(m, r.top + r.height), 0))) +
        8 +
        AXIS;
      runs.forEach((run, i) => {
        const col = document.createElement('div');
        col.className = 'col';
        const canvas = document.createElement('canvas');
        canvas.style.height = `${height}px`;
        canvas.dataset.run = String(i);
        col.append(canvas);
        cols.append(col);
        const cell: Cell = { panel, run, canvas, rows: rowsPerRun[i]!, width: 0 };
        this.cells.push(cell);
        this.listen(cell);
      });
      section.append(cols);
      root.append(section);
    }
    addEventListener('resize', () => this.redraw());
    this.redraw();
  }

  /** Shows [t0, t1] (clamped to the runs' extent). */
  zoom(t0: number, t1: number): void {
    const [f0, f1] = this.full;
    const span = Math.min(f1 - f0, Math.max(t1 - t0, (f1 - f0) * 1e-7));
    let a = t0;
    if (a < f0) a = f0;
    if (a + span > f1) a = f1 - span;
    this.t0 = a;
    this.t1 = a + span;
    this.redraw();
  }

  /** The window shown. */
  get window(): [number, number] {
    return [this.t0, this.t1];
  }

  /** Schedules a frame. */
  redraw(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.drawNow();
    });
  }

  /** Draws every canvas now. */
  drawNow(): void {
    for (const k of Object.keys(this.drawn)) this.drawn[k] = 0;
    for (const cell of this.cells) this.drawCell(cell);
    this.frames++;
  }

  /** Client coordinates of the middle of task i of run r's bar (for tests), or null if hidden. */
  taskPoint(r: number, i: number): { x: number; y: number } | null {
    const cell = this.cells.find((c) => c.panel === gantt && c.run === this.runs[r]);
    if (!cell) return null;
    const c = cell.run.columns;
    const scale = this.scale(cell);
    const a = Math.max(LEFT, scale.x(c.taskStart[i]!));
    const b = Math.min(cell.width, scale.x(c.taskEnd[i]!));
    if (b < a) return null;
    const row = cell.rows[c.taskWorker[i]!]!;
    const box = cell.canvas.getBoundingClientRect();
    return { x: box.left + (a + b) / 2, y: box.top + row.top + row.height / 2 };
  }

  private scale(cell: Cell): TimeScale {
    return new TimeScale(this.t0, this.t1, cell.width);
  }

  private drawCell(cell: Cell): void {
    const { canvas, panel, run, rows } = cell;
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth;
    const h = canvas.clientHeight;
    cell.width = w;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const scale = this.scale(cell);
    const marks = panel.draw(ctx, run, rows, scale, this.shared);
    this.drawn[panel.id] = (this.drawn[panel.id] ?? 0) + marks;
    // Row labels over the left margin.
    ctx.clearRect(0, 0, LEFT - 1, h - AXIS);
    ctx.fillStyle = '#333';
    ctx.font = '11px sans-serif';
    ctx.textBaseline = 'middle';
    for (const r of rows) ctx.fillText(truncate(ctx, r.label, LEFT - 8), 4, r.top + r.height / 2);
    // Time axis.
    const y = h - AXIS;
    ctx.strokeStyle = '#999';
    ctx.beginPath();
    ctx.moveTo(LEFT, y + 0.5);
    ctx.lineTo(w, y + 0.5);
    ctx.stroke();
    ctx.fillStyle = '#555';
    ctx.font = '10px sans-serif';
    ctx.textBaseline = 'top';
    for (const t of ticks(this.t0, this.t1, Math.max(2, Math.floor((w - LEFT) / 110)))) {
      const x = Math.round(scale.x(t)) + 0.5;
      ctx.fillRect(x - 0.5, y, 1, 4);
      ctx.fillText(formatTime(t), x + 2, y + 4);
    }
    if (this.hoverT !== null && this.hoverT >= this.t0 && this.hoverT <= this.t1) {
      const x = Math.round(scale.x(this.hoverT)) + 0.5;
      ctx.strokeStyle = 'rgba(0,0,0,0.45)';
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, y);
      ctx.stroke();
    }
  }

  private listen(cell: Cell): void {
    const canvas = cell.canvas;
    const local = (e: MouseEvent) => {
      const box = canvas.getBoundingClientRect();
      return { px: e.clientX - box.left, py: e.clientY - box.top };
    };
    canvas.addEventListener(
      'wheel',
      (e) => {
        e.preventDefault();
        const { px } = local(e);
        const scale = this.scale(cell);
        const t = scale.t(Math.max(LEFT, px));
        const f = Math.exp(e.deltaY * 0.0015);
        this.zoom(t - (t - this.t0) * f, t + (this.t1 - t) * f);
      },
      { passive: false },
    );
    canvas.addEventListener('mousedown', (e) => {
      this.drag = { x: e.clientX, t0: this.t0, t1: this.t1 };
      this.tip.hidden = true;
    });
    addEventListener('mouseup', () => {
      this.drag = null;
    });
    canvas.addEventListener('dblclick', () => this.zoom(this.full[0], this.full[1]));
    canvas.addEventListener('mouseleave', () => {
      this.tip.hidden = true;
      this.hoverT = null;
      this.redraw();
    });
    canvas.addEventListener('mousemove', (e) => {
      const { px, py } = local(e);
      const scale = this.scale(cell);
      if (this.drag) {
        const dt =
          ((e.clientX - this.drag.x) / Math.max(1, cell.width - LEFT)) * (this.drag.t1 - this.drag.t0);
        this.zoom(this.drag.t0 - dt, this.drag.t1 - dt);
        return;
      }
      this.hoverT = px >= LEFT ? scale.t(px) : null;
      this.redraw();
      const html = cell.panel.hit(cell.run, cell.rows, scale, px, py, this.shared);
      if (html === null) {
        this.tip.hidden = true;
        return;
      }
      this.tip.innerHTML = html;
      this.tip.hidden = false;
      const left = Math.min(e.clientX + 14, innerWidth - this.tip.offsetWidth - 4);
      this.tip.style.left = `${Math.max(0, left)}px`;
      this.tip.style.top = `${e.clientY + 14}px`;
    });
  }

  /** The task under a client point, for tests: [run, index] or null. */
  taskUnder(clientX: number, clientY: number): [number, number] | null {
    for (const cell of this.cells) {
      if (cell.panel !== gantt) continue;
      const box = cell.canvas.getBoundingClientRect();
      if (clientX < box.left || clientX > box.right || clientY < box.top || clientY > box.bottom) continue;
      const i = taskAt(cell.run, cell.rows, this.scale(cell), clientX - box.left, clientY - box.top);
      return i < 0 ? null : [this.runs.indexOf(cell.run), i];
    }
    return null;
  }
}

/** Memory and ready scales common to the runs, so that side by side they compare. */
function sharedScales(runs: Prepared[]): SharedScales {
  const nodes = Math.max(...runs.map((r) => r.facts.platform.nodes.length));
  const memoryTop = Array.from({ length: nodes }, (_, n) => {
    let top = 0;
    for (const r of runs) {
      const node = r.facts.platform.nodes[n];
      if (!node) continue;
      top = Math.max(top, r.facts.peakBytes[n] ?? 0);
      // A GPU's row reaches its capacity; a host's (hundreds of GiB) its peak only.
      if (node.kind === 'gpu' && node.capacityBytes !== null) top = Math.max(top, node.capacityBytes);
    }
    return top;
  });
  return { memoryTop, readyTop: Math.max(1, ...runs.map((r) => r.facts.readyPeak)) };
}

function truncate(ctx: CanvasRenderingContext2D, s: string, width: number): string {
  if (ctx.measureText(s).width <= width) return s;
  let t = s;
  while (t.length > 1 && ctx.measureText(`${t}…`).width > width) t = t.slice(0, -1);
  return `${t}…`;
}
