/**
 * The playground page: reads the form, runs each policy in turn in the web worker (the
 * worker's script travels inside the page and starts from a Blob, so the page also works
 * opened from disk), shows the progress with a stop button (which ends the worker), then a
 * results table and the report panels of every run side by side. `window.locusPlayground`
 * holds the state and the reports (tests read them).
 */
import { commandLine } from '../../src/playground/command-line.ts';
import type { PlaygroundRun } from '../../src/playground/simulate-run.ts';
import { codeletColors, KIND_COLORS } from '../report/colors.ts';
import type { Run } from '../report/decode.ts';
import { esc, formatBytes, formatCount, formatTime } from '../report/format.ts';
import { prepareRuns } from '../report/prepare.ts';
import { View } from '../report/view.ts';
import type { WorkerMessage } from './protocol.ts';

/** What tests and the console read. */
interface PlaygroundState {
  state: 'starting' | 'ready' | 'running' | 'done' | 'stopped' | 'error';
  /** The finished runs' policies, reports (`locus run --json`) and command lines. */
  results: { policy: string; report: Record<string, unknown>; command: string }[];
  error?: string;
  view?: View;
}

declare global {
  interface Window {
    locusPlayground: PlaygroundState;
  }
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const state: PlaygroundState = { state: 'starting', results: [] };
window.locusPlayground = state;
const status = $<HTMLSpanElement>('status');
const progress = $<HTMLProgressElement>('progress');
const runButton = $<HTMLButtonElement>('run');
const stopButton = $<HTMLButtonElement>('stop');

let worker = startWorker();

function startWorker(): Worker {
  const source = $<HTMLScriptElement>('locus-worker').textContent ?? '';
  const w = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
  w.addEventListener('message', (e: MessageEvent<WorkerMessage>) => {
    if (e.data.type === 'hello') hello(e.data);
  });
  return w;
}

function hello(m: Extract<WorkerMessage, { type: 'hello' }>): void {
  const fill = (id: string, names: string[], chosen: string) => {
    const sel = $<HTMLSelectElement>(id);
    if (sel.options.length > 0) return;
    for (const n of names) sel.add(new Option(n, n, n === chosen, n === chosen));
  };
  fill(
    'preset',
    m.presets.map((p) => p.name),
    'v100x2',
  );
  fill(
    'workload',
    m.workloads.map((w) => w.name),
    'matmul2d',
  );
  const list = $<HTMLDataListElement>('policy-names');
  if (list.options.length === 0) {
    for (const s of m.schedulers) list.append(new Option(s));
    for (const s of m.schedulers) for (const e of m.evictions) list.append(new Option(`${s}+${e}`));
  }
  // A worker started again after a stop says hello too: the page's state stays as it is.
  if (state.state !== 'starting') return;
  state.state = 'ready';
  status.textContent = 'ready';
  runButton.disabled = false;
}

/** Workloads sized by other options than --tiles. */
const UNTILED = new Set(['random', 'taskbench']);

const num = (id: string): number | undefined => {
  const v = $<HTMLInputElement>(id).value.trim();
  return v === '' ? undefined : Number(v);
};

/** The runs the form asks for, one per policy. */
function runsFromForm(): PlaygroundRun[] {
  const file = $<HTMLTextAreaElement>('platformfile').value.trim();
  const gpuMemMiB = num('gpumem');
  const gpuMem = gpuMemMiB === undefined ? undefined : gpuMemMiB * 2 ** 20;
  const platform: PlaygroundRun['platform'] =
    file !== ''
      ? { file, ...(gpuMem !== undefined ? { gpuMem } : {}) }
      : {
          preset: $<HTMLSelectElement>('preset').value,
          ...(num('gpus') !== undefined ? { gpus: num('gpus') } : {}),
          ...(gpuMem !== undefined ? { gpuMem } : {}),
        };
  const workload = $<HTMLSelectElement>('workload').value;
  const extra = $<HTMLInputElement>('options').value.trim();
  let more: PlaygroundRun['params'];
  try {
    more = extra === '' ? {} : (JSON.parse(extra) as PlaygroundRun['params']);
  } catch (e) {
    throw new Error(`more workload options: not JSON (${(e as Error).message})`);
  }
  const params: PlaygroundRun['params'] = {};
  // random and taskbench have no tiles (`locus run` refuses --tiles for them).
  if (!UNTILED.has(workload)) {
    if (num('tiles') !== undefined) params.tiles = num('tiles');
    if (num('tilesize') !== undefined) params.tileSize = num('tilesize');
  }
  Object.assign(params, more);
  const policies = $<HTMLInputElement>('policies')
    .value.split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return policies.map((policy) => ({
    platform,
    workload,
    params,
    policy,
    seed: num('seed') ?? 1,
  }));
}

/** Runs one request in the worker; resolves with its result, rejects with its error. */
function runOne(run: PlaygroundRun, index: number, count: number) {
  return new Promise<Extract<WorkerMessage, { type: 'result' }>>((resolve, reject) => {
    const onMessage = (e: MessageEvent<WorkerMessage>) => {
      const m = e.data;
      if (m.type === 'progress') {
        progress.max = m.total;
        progress.value = m.done;
        status.textContent = `${run.policy} (${index + 1} of ${count}): ${formatCount(m.done)} of ${formatCount(m.total)} tasks`;
      } else if (m.type === 'result' || m.type === 'error') {
        worker.removeEventListener('message', onMessage);
        if (m.type === 'result') resolve(m);
        else reject(new Error(`${run.policy}: ${m.message}`));
      }
    };
    worker.addEventListener('message', onMessage);
    stopRequested = () => {
      worker.removeEventListener('message', onMessage);
      reject(new Error('stopped'));
    };
    worker.postMessage({ type: 'run', run });
  });
}

let stopRequested: (() => void) | undefined;

async function runAll(): Promise<void> {
  let runs: PlaygroundRun[];
  try {
    runs = runsFromForm();
  } catch (e) {
    status.textContent = (e as Error).message;
    status.className = 'error';
    return;
  }
  if (runs.length === 0) {
    status.textContent = 'name at least one policy';
    return;
  }
  state.state = 'running';
  state.results = [];
  state.error = undefined;
  status.className = '';
  runButton.disabled = true;
  stopButton.disabled = false;
  progress.hidden = false;
  $('results').innerHTML = '';
  $('app').innerHTML = '';
  const finished: Run[] = [];
  try {
    for (let i = 0; i < runs.length; i++) {
      const r = await runOne(runs[i]!, i, runs.length);
      state.results.push({ policy: runs[i]!.policy, report: r.report, command: commandLine(runs[i]!) });
      finished.push({ facts: { ...r.facts, report: r.report }, columns: r.columns });
      showTable(state.results);
    }
    state.state = 'done';
    status.textContent = `${runs.length} run${runs.length > 1 ? 's' : ''} done`;
    showPanels(finished);
  } catch (e) {
    const stopped = (e as Error).message === 'stopped';
    state.state = stopped ? 'stopped' : 'error';
    if (!stopped) state.error = (e as Error).message;
    status.textContent = stopped ? 'stopped' : (e as Error).message;
    status.className = stopped ? '' : 'error';
    if (finished.length > 0) showPanels(finished);
  } finally {
    runButton.disabled = false;
    stopButton.disabled = true;
    progress.hidden = true;
    stopRequested = undefined;
  }
}

/** The results table: one row per run, the report's main figures. */
function showTable(results: PlaygroundState['results']): void {
  const cols: [string, string, (v: number) => string][] = [
    ['makespan', 'makespanS', formatTime],
    ['GFlop/s', 'gflops', (v) => v.toFixed(1)],
    ['to devices', 'bytesToDevices', formatBytes],
    ['from devices', 'bytesFromDevices', formatBytes],
    ['transfers', 'transfers', formatCount],
    ['loads', 'loads', formatCount],
    ['evictions', 'evictions', formatCount],
    ['write-backs', 'writebacks', formatCount],
  ];
  const head = `<tr><th>policy</th>${cols.map(([h]) => `<th>${h}</th>`).join('')}</tr>`;
  const rows = results.map(
    ({ policy, report }) =>
      `<tr data-policy="${esc(policy)}"><td>${esc(policy)}</td>${cols
        .map(([, key, f]) => {
          const v = report[key] as number;
          return `<td data-key="${key}" data-value="${v}">${esc(f(v))}</td>`;
        })
        .join('')}</tr>`,
  );
  const first = results[0]?.report;
  const caption = first ? `${esc(String(first.workload))} on ${esc(String(first.platform))}` : '';
  const commands = results.map((r) => `<li><code>${esc(r.command)} --json</code></li>`).join('');
  $('results').innerHTML =
    `<div class="muted">${caption}</div><table class="results"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>` +
    `<div class="muted">The same runs from the command line:</div><ul class="commands">${commands}</ul>`;
}

/** The report panels of the runs, side by side. */
function showPanels(runs: Run[]): void {
  const app = $('app');
  app.innerHTML = '';
  const prepared = prepareRuns(runs);
  const heads = document.createElement('div');
  heads.className = 'cols heads';
  for (const run of prepared) {
    const h = document.createElement('div');
    h.className = 'col run-label';
    h.textContent = run.facts.label;
    heads.append(h);
  }
  const legend = document.createElement('div');
  legend.className = 'legend';
  const swatch = (color: string, label: string) =>
    `<span class="key"><i style="background:${color}"></i>${esc(label)}</span>`;
  legend.innerHTML = [
    ...[...codeletColors(prepared.flatMap((r) => r.facts.codelets))].map(([n, c]) => swatch(c, n)),
    ...[...new Set(prepared.flatMap((r) => r.facts.kinds))].map((k) =>
      swatch(KIND_COLORS[k] ?? '#888', `copy: ${k}`),
    ),
  ].join('');
  app.append(heads, legend);
  state.view = new View(app, prepared, $('tip'));
  state.view.drawNow();
}

runButton.addEventListener('click', () => void runAll());
stopButton.addEventListener('click', () => {
  // A run cannot be interrupted from outside: end the worker and start a fresh one.
  worker.terminate();
  stopRequested?.();
  worker = startWorker();
});
