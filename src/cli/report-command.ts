/**
 * `locus report TRACE... [-o FILE]`: one self-contained HTML page from runs' Chrome traces
 * (`locus run --trace`), several side by side on the same scales; and what `locus run --html`
 * uses to write the page of the run it just made.
 */
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { LocusError } from '../core/types.ts';
import type { TraceJson } from '../html-report/extract.ts';
import { checkWritable, writeFileAtomic } from '../trace/atomic-file.ts';

/** Options of `locus report`. */
export interface ReportOptions {
  output?: string;
  title?: string;
  label?: string[];
}

/** Adds `locus report` to the program. */
export function registerReportCommand(program: Command, name: string, summary: string): void {
  program
    .command(name)
    .description(summary)
    .argument('<traces...>', 'Chrome traces of runs (locus run --trace FILE); two or more: side by side')
    .option(
      '-o, --output <file>',
      'the HTML file (default: the trace with .html, or report.html for several)',
    )
    .option('--title <text>', "the page's title")
    .option(
      '--label <name>',
      'column heading of each run, in order (repeat it; default: the policy)',
      collect,
    )
    .addHelpText(
      'after',
      `
Examples:
  locus run -w cholesky -n 30 --sched darts+luf --trace darts.json
  locus run -w cholesky -n 30 --sched dmdar --trace dmdar.json
  locus report darts.json                      # writes darts.html
  locus report darts.json dmdar.json -o cmp.html
  locus run -w cholesky -n 30 --sched darts+luf --html run.html   # the same, in one step`,
    )
    .action(async (traces: string[], o: ReportOptions) => reportCommand(traces, o));
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Writes the page for `traces`; prints where. */
export async function reportCommand(traces: string[], o: ReportOptions): Promise<void> {
  if (o.label !== undefined && o.label.length !== traces.length) {
    throw new LocusError(
      'LOCUS_OPTION_INVALID',
      `--label was given ${o.label.length} time(s) for ${traces.length} trace(s): give one per trace, or none`,
    );
  }
  const output =
    o.output ?? (traces.length === 1 ? traces[0]!.replace(/(\.json)?$/i, '.html') : 'report.html');
  if (traces.includes(output)) {
    throw new LocusError('LOCUS_OPTION_INVALID', `-o ${output} would overwrite a trace: give another file`);
  }
  checkWritable(output, `-o ${output}: cannot write the report`);
  // Loaded here: `locus --help` does not read the builder.
  const { buildReportHtml, readTraceFile } = await import('../html-report/index.ts');
  const inputs = traces.map((file, i) => ({ trace: readTraceFile(file), source: file, label: o.label?.[i] }));
  const html = buildReportHtml(inputs, o.title);
  writeReportFile(output, html);
  process.stdout.write(`report written to ${output} (${describe(output, traces.length)})\n`);
}

/** "2 runs, 1.2 MB". */
function describe(file: string, runs: number): string {
  const mb = statSync(file).size / 1e6;
  return `${runs} run${runs > 1 ? 's' : ''}, ${mb < 0.1 ? mb.toFixed(3) : mb.toFixed(1)} MB`;
}

/** Writes a page atomically, naming the file on failure. */
export function writeReportFile(output: string, html: string): void {
  writeFileAtomic(output, html, `cannot write the report ${output}`);
}

/**
 * `locus run --html FILE`: the page of one run from its trace (which carries its report),
 * written atomically; returns the line the run prints.
 */
export async function writeRunHtml(file: string, trace: TraceJson): Promise<string> {
  const { buildReportHtml } = await import('../html-report/index.ts');
  writeReportFile(file, buildReportHtml([{ trace, source: file }]));
  return `report written to ${file} (${describe(file, 1)}; open it in a browser)`;
}
