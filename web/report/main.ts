/**
 * The report page's script: reads the payload the page carries (a JSON script element),
 * decodes it, draws the panels and the summary table, and exposes `window.locusReport` (the
 * view, for tests and the console).
 */
import type { ReportPayload } from '../../src/html-report/payload.ts';
import { codeletColors, KIND_COLORS } from './colors.ts';
import { decodePayload } from './decode.ts';
import { esc } from './format.ts';
import { prepareRuns } from './prepare.ts';
import { summaryTable } from './summary.ts';
import { View } from './view.ts';

declare global {
  interface Window {
    /** The report's view once drawn (tests wait for it). */
    locusReport?: View;
    /** Set when the page failed to draw. */
    locusReportError?: string;
  }
}

async function start(): Promise<void> {
  const el = document.getElementById('locus-data');
  if (!el) throw new Error('this page carries no report data');
  const payload = JSON.parse(el.textContent ?? '') as ReportPayload;
  const runs = prepareRuns(await decodePayload(payload));
  const app = document.getElementById('app')!;
  const heads = document.createElement('div');
  heads.className = 'cols heads';
  for (const run of runs) {
    const h = document.createElement('div');
    h.className = 'col run-label';
    h.textContent = run.facts.label;
    heads.append(h);
  }
  app.append(heads);
  const legend = document.createElement('div');
  legend.className = 'legend';
  const swatch = (color: string, label: string) =>
    `<span class="key"><i style="background:${color}"></i>${esc(label)}</span>`;
  legend.innerHTML = [
    ...[...codeletColors(runs.flatMap((r) => r.facts.codelets))].map(([name, color]) => swatch(color, name)),
    ...[...new Set(runs.flatMap((r) => r.facts.kinds))].map((k) =>
      swatch(KIND_COLORS[k] ?? '#888', `copy: ${k}`),
    ),
  ].join('');
  app.append(legend);
  const tip = document.getElementById('tip')!;
  const view = new View(app, runs, tip);
  const summary = document.createElement('section');
  summary.className = 'panel';
  summary.dataset.panel = 'summary';
  summary.innerHTML = `<h2>Summary</h2>${summaryTable(runs)}`;
  app.append(summary);
  view.drawNow();
  window.locusReport = view;
}

start().catch((e: unknown) => {
  window.locusReportError = String(e);
  const app = document.getElementById('app');
  if (app) app.textContent = `This report could not be drawn: ${String(e)}`;
  console.error(e);
});
