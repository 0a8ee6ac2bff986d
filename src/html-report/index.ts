/**
 * `locus report`'s builder: Chrome traces of runs to one self-contained HTML page with linked
 * panels (workers' Gantt chart, copies per link, memory per node, ready tasks) and a summary
 * table; several runs side by side on the same scales.
 */
import { readFileSync } from 'node:fs';
import { LocusError } from '../core/types.ts';
import { encodePayload } from './encode.ts';
import { type ExtractedRun, extractRun, type TraceJson } from './extract.ts';
import { reportPage } from './page.ts';

export { type ExtractedRun, extractRun, readyCurve, type TraceJson } from './extract.ts';

/** A run to show: its trace (parsed) and where it came from. */
export interface ReportInput {
  trace: TraceJson;
  /** File name (or a description) for messages and the default label. */
  source: string;
  /** Column heading; default: the run's scheduler+eviction, or the file's name. */
  label?: string;
}

/** The HTML page showing `inputs` side by side (one page, self-contained). */
export function buildReportHtml(inputs: readonly ReportInput[], title?: string): string {
  const runs: ExtractedRun[] = inputs.map((i) => extractRun(i.trace, i.source, i.label));
  // Two runs of one policy (two files) still need telling apart.
  const labels = runs.map((r) => r.facts.label);
  runs.forEach((r, i) => {
    if (labels.indexOf(r.facts.label) !== i || labels.lastIndexOf(r.facts.label) !== i)
      r.facts.label = `${r.facts.label} (${inputs[i]!.source.replace(/^.*[\\/]/, '')})`;
  });
  return reportPage(encodePayload(runs, title ?? defaultTitle(runs)));
}

function defaultTitle(runs: ExtractedRun[]): string {
  const r = runs[0]!.facts.report;
  const what = r ? `${String(r.workload)} on ${String(r.platform)}` : runs[0]!.facts.platform.name;
  return `Locus: ${what} — ${runs.map((x) => x.facts.label).join(' vs ')}`;
}

/** Reads and parses a trace file; a one-line LocusError if it cannot be read or is not one. */
export function readTraceFile(path: string): TraceJson {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LocusError(
      'LOCUS_FILE_READ_FAILED',
      `cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `${path} is not JSON (${(e as Error).message}): give a trace of locus run --trace`,
    );
  }
  if (typeof json !== 'object' || json === null || !Array.isArray((json as TraceJson).traceEvents)) {
    throw new LocusError(
      'LOCUS_FILE_INVALID',
      `${path} is not a Chrome trace (no traceEvents): give a trace of locus run --trace`,
    );
  }
  return json as TraceJson;
}
