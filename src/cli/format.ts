/** Human-readable rendering of a run report for the terminal. */

import type { OutOfCoreStats } from '../exec/runtime-options.ts';
import { formatBandwidth, formatBytes, formatDuration } from '../platform/units.ts';
import type { RunReport } from '../trace/report.ts';

/**
 * Pads cells into aligned columns: the first left-aligned, the others right-aligned, except
 * where `align` (one letter per column, 'l' or 'r') says otherwise.
 */
export function table(rows: string[][], indent = '  ', align = ''): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const left = (c: number) => (align[c] ?? (c === 0 ? 'l' : 'r')) === 'l';
  return rows
    .map((r) =>
      (
        indent +
        r.map((cell, c) => (left(c) ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')
      ).trimEnd(),
    )
    .join('\n');
}

function seconds(s: number): string {
  return s >= 1 ? `${s.toFixed(3)} s` : formatDuration(s);
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** The text report of a run. */
export function formatReport(r: RunReport): string {
  const lines: string[] = [];
  lines.push(`${r.workload}`);
  lines.push(
    `platform ${r.platform}, scheduler ${r.scheduler}, eviction ${r.eviction}, seed ${r.seed} (${r.mode})`,
  );
  lines.push('');
  lines.push(
    table(
      [
        ['makespan', seconds(r.makespanS), r.endS > r.makespanS ? `(data home at ${seconds(r.endS)})` : ''],
        ['throughput', `${r.gflops.toFixed(1)} GFlop/s`, ''],
        ['host -> GPUs', formatBytes(r.bytesToDevices), `(${r.transfersToDevices} copies)`],
        [
          'GPUs -> host',
          formatBytes(r.bytesFromDevices),
          `(${r.transfersFromDevices} copies, ${r.writebacks} write-backs)`,
        ],
        ['GPU -> GPU', formatBytes(r.bytesDeviceToDevice), ''],
        ...(r.bytesToDisk !== undefined
          ? [
              ['to disk', formatBytes(r.bytesToDisk), `(${r.transfersToDisk} copies)`],
              ['from disk', formatBytes(r.bytesFromDisk ?? 0), `(${r.transfersFromDisk} copies)`],
            ]
          : []),
        ['loads into GPUs', String(r.loads), '(from host or peers)'],
        [
          'evictions',
          String(r.evictions),
          r.discardedBytes > 0 ? `(${formatBytes(r.discardedBytes)} outputs discarded)` : '',
        ],
        ...(r.energyJ !== null
          ? [
              [
                'energy',
                `${r.energyJ.toFixed(1)} J`,
                `(${r.averagePowerW!.toFixed(0)} W average, EDP ${r.edpJs!.toPrecision(4)} J s, idle policy ${r.idlePolicy})`,
              ],
            ]
          : []),
        ...(r.schedulingS > 0
          ? [
              [
                'scheduling',
                seconds(r.schedulingS),
                `(${((r.schedulingS / Math.max(1, r.tasks)) * 1e6).toFixed(2)} us per task)`,
              ],
            ]
          : []),
        ...(r.placementStability !== null
          ? [['same worker', pct(r.placementStability), '(blocks kept from one iteration to the next)']]
          : []),
      ],
      '',
      'lrl',
    ),
  );
  lines.push('');
  lines.push('memory nodes');
  lines.push(
    table([
      ['node', 'capacity', 'peak', 'loads', 'loaded', 'evictions', 'write-backs'],
      ...r.nodes.map((n) => [
        n.name,
        n.capacityBytes === null ? 'unlimited' : formatBytes(n.capacityBytes),
        formatBytes(n.peakBytes),
        String(n.loads),
        formatBytes(n.loadBytes),
        String(n.evictions),
        String(n.writebacks),
      ]),
    ]),
  );
  lines.push('');
  lines.push('workers');
  lines.push(
    table([
      ['worker', 'tasks', 'busy', 'idle', 'busy %', 'GFlop/s'],
      ...r.workers.map((w) => [
        w.name,
        String(w.tasks),
        seconds(w.busyS),
        seconds(w.idleS),
        pct(w.utilization),
        w.gflops.toFixed(1),
      ]),
    ]),
  );
  const used = r.links.filter((l) => l.bytes > 0);
  if (used.length > 0) {
    lines.push('');
    lines.push('links');
    lines.push(
      table([
        ['link', 'bandwidth', 'moved', 'busy %'],
        ...used.map((l) => [l.name, formatBandwidth(l.bandwidth), formatBytes(l.bytes), pct(l.utilization)]),
      ]),
    );
  }
  lines.push('');
  lines.push(
    r.mode === 'simulated'
      ? `simulated in ${seconds(r.wallS)} of wall time (${Math.round(r.tasks / Math.max(r.wallS, 1e-9)).toLocaleString('en-US')} tasks/s)`
      : `ran in ${seconds(r.wallS)}`,
  );
  return lines.join('\n');
}

/** One line for a real run out of core: host buffers against the cap, the disk file and its traffic. */
export function formatOutOfCore(o: OutOfCoreStats): string {
  return `out of core: host buffers at most ${formatBytes(o.hostPeakBytes)} of --host-mem ${formatBytes(o.hostMem)}; disk file ${formatBytes(o.diskBytes)} under ${o.path} (removed), ${formatBytes(o.bytesRead)} read${o.bytesReadAhead > 0 ? ` (${formatBytes(o.bytesReadAhead)} ahead)` : ''}, ${formatBytes(o.bytesWritten)} written`;
}
