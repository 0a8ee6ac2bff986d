/**
 * A sweep's index.html, written beside its CSVs and plots: the sweep's description, the
 * plots with their captions (the SVGs beside it), the summary tables (throughput and bytes
 * to the GPUs per size and policy), and links to the files. It loads nothing but those files.
 */
import type { SweepResult, SweepSummaryRow } from '../report/sweep.ts';

/** One table of the summary: a title, a header row and the rows (text cells). */
export interface SummaryGrid {
  title: string;
  rows: string[][];
}

/** The summary's tables (the ones `locus sweep` prints), per size and policy. */
export function summaryGrids(result: SweepResult): SummaryGrid[] {
  const labels = result.spec.policies.map((p) => p.label);
  const cell = new Map(result.summary.map((r) => [`${r.tiles}/${r.policy}`, r]));
  const reps = result.spec.reps;
  const grid = (value: (r: SweepSummaryRow) => string) => [
    ['N', 'working set', ...labels],
    ...result.sizes.map((s) => [
      String(s.tiles),
      `${(s.workingSetBytes / 2 ** 30).toFixed(2)} GiB`,
      ...labels.map((l) => {
        const r = cell.get(`${s.tiles}/${l}`);
        return r ? value(r) : '-';
      }),
    ]),
  ];
  const range = (mean: number, sd: number, min: number, max: number, digits: number) =>
    reps > 1
      ? `${mean.toFixed(digits)} ±${sd.toFixed(digits)} [${min.toFixed(digits)}-${max.toFixed(digits)}]`
      : mean.toFixed(digits);
  const gib = 2 ** 30;
  const of = reps > 1 ? `, mean ±sd [min-max] of ${reps} runs` : '';
  return [
    {
      title: `throughput (GFlop/s${of})`,
      rows: grid((r) => range(r.gflopsMean, r.gflopsSd, r.gflopsMin, r.gflopsMax, 0)),
    },
    {
      title: `transferred to the GPUs (GiB${of})`,
      rows: grid((r) =>
        range(
          r.bytesToDevicesMean / gib,
          r.bytesToDevicesSd / gib,
          r.bytesToDevicesMin / gib,
          r.bytesToDevicesMax / gib,
          1,
        ),
      ),
    },
  ];
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the index shows. */
export interface SweepIndex {
  title: string;
  /** describeSweep's lines. */
  description: string;
  grids: SummaryGrid[];
  /** Plots written beside it: file stem (gflops.svg) and caption. */
  plots: { name: string; caption: string }[];
  /** The other files beside it (runs.csv, summary.csv, ...). */
  files: string[];
}

/** The page. */
export function sweepIndexHtml(x: SweepIndex): string {
  const table = (g: SummaryGrid) =>
    `<h2>${esc(g.title)}</h2><table><thead><tr>${g.rows[0]!.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${g.rows
      .slice(1)
      .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
      .join('')}</tbody></table>`;
  const plots = x.plots
    .map(
      (p) =>
        `<figure><img src="${esc(p.name)}.svg" alt="${esc(p.caption)}"><figcaption>${esc(p.caption)}</figcaption></figure>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(x.title)}</title>
<style>
body{margin:16px;font:14px/1.45 system-ui,sans-serif;color:#222;max-width:1100px}
h1{font-size:19px}h2{font-size:15px;margin:18px 0 4px}
pre{color:#444;white-space:pre-wrap}
figure{margin:14px 0}img{max-width:100%;border:1px solid #ddd}figcaption{color:#555;font-size:13px;max-width:900px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:2px 12px 2px 0;text-align:right}thead th{border-bottom:1px solid #bbb}
</style>
</head>
<body>
<h1>${esc(x.title)}</h1>
${x.description ? `<pre>${esc(x.description)}</pre>` : ''}
${plots}
${x.grids.map(table).join('\n')}
<h2>Files</h2>
<ul>${x.files.map((f) => `<li><a href="${esc(f)}">${esc(f)}</a></li>`).join('')}</ul>
</body>
</html>
`;
}
