/** The summary table: one column per run, the run report's figures (`locus run --json`). */

import { esc, formatBytes, formatCount, formatTime } from './format.ts';
import type { Prepared } from './prepare.ts';

type Value = string | number | null | undefined;
type Line = [label: string, cell: (run: Prepared, r: Record<string, unknown>) => Value];

const num = (v: unknown) => (typeof v === 'number' ? v : null);

const LINES: Line[] = [
  ['workload', (_, r) => r.workload as string],
  ['platform', (run) => run.facts.platform.name],
  ['scheduler', (_, r) => r.scheduler as string],
  ['eviction', (_, r) => r.eviction as string],
  ['tasks', (run, r) => formatCount(num(r.tasks) ?? run.columns.taskStart.length)],
  ['makespan', (run, r) => formatTime(num(r.makespanS) ?? run.facts.t1)],
  ['GFlop/s', (_, r) => (num(r.gflops) === null ? null : (r.gflops as number).toFixed(1))],
  ['to devices', (_, r) => bytes(r.bytesToDevices)],
  ['from devices', (_, r) => bytes(r.bytesFromDevices)],
  ['device to device', (_, r) => bytes(r.bytesDeviceToDevice)],
  ['transfers', (run, r) => formatCount(num(r.transfers) ?? run.columns.trStart.length)],
  ['loads', (_, r) => count(r.loads)],
  ['evictions', (run, r) => formatCount(num(r.evictions) ?? run.columns.evTime.length)],
  ['write-backs', (_, r) => count(r.writebacks)],
  ['energy', (_, r) => (num(r.energyJ) === null ? null : `${(r.energyJ as number).toFixed(1)} J`)],
];

const bytes = (v: unknown) => (typeof v === 'number' ? formatBytes(v) : null);
const count = (v: unknown) => (typeof v === 'number' ? formatCount(v) : null);

/** The table's HTML. */
export function summaryTable(runs: Prepared[]): string {
  const head = `<tr><th></th>${runs.map((r) => `<th>${esc(r.facts.label)}</th>`).join('')}</tr>`;
  const body: string[] = [];
  const add = (label: string, cells: Value[]) => {
    if (cells.every((c) => c === null || c === undefined)) return;
    body.push(
      `<tr><th>${esc(label)}</th>${cells.map((c) => `<td>${esc(c === null || c === undefined ? '-' : String(c))}</td>`).join('')}</tr>`,
    );
  };
  for (const [label, cell] of LINES)
    add(
      label,
      runs.map((run) => cell(run, run.facts.report ?? {})),
    );
  const workers = Math.max(...runs.map((r) => r.facts.platform.workers.length));
  for (let w = 0; w < workers; w++) {
    const name = runs.find((r) => r.facts.platform.workers[w])!.facts.platform.workers[w]!.name;
    add(
      `${name} busy`,
      runs.map((run) => {
        const ws = (run.facts.report?.workers as { utilization: number }[] | undefined)?.[w];
        return ws ? `${(ws.utilization * 100).toFixed(1)} %` : null;
      }),
    );
  }
  const nodes = Math.max(...runs.map((r) => r.facts.platform.nodes.length));
  for (let n = 0; n < nodes; n++) {
    const name = runs.find((r) => r.facts.platform.nodes[n])!.facts.platform.nodes[n]!.name;
    add(
      `${name} peak memory`,
      runs.map((run) => (run.facts.peakBytes[n] === undefined ? null : formatBytes(run.facts.peakBytes[n]!))),
    );
  }
  return `<table class="summary"><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`;
}
