/**
 * The markers that make a markdown page's example outputs and tables regenerable. Each is an
 * HTML comment (invisible when rendered) right before the block it produces:
 *
 *   <!-- run: locus demo -->                  the fenced block after it is the output of the
 *   ```                                       command(s), each shown as `$ node bin/locus.mjs ...`
 *   ...
 *   ```
 *
 *   <!-- run(exit=2, lines=1-12): ... -->     attributes: `exit=N` expected exit code (stderr is
 *                                             shown too), `lines=A-B,C-D` keeps those lines of
 *                                             each output (`...` where lines are cut), `big`
 *                                             (too slow for CI: only checked to parse),
 *                                             `bench` (machine-dependent: run with --bench),
 *                                             `source=FILE` (the ```ts block before the marker is
 *                                             saved as FILE in the repository root while it runs),
 *                                             `hide` (run the command, show nothing of its output:
 *                                             only the `$` line; for commands that write files)
 *
 *   <!-- table(ATTRS)                          the markdown table after it is computed: for each
 *   run: locus run -w matmul2d --tiles $N --json   binding of the variables (`each` lists, crossed
 *   run b: locus run ... --tiles $N --json       in order; `row` lines, one binding each), the
 *   each N: 20 35 50                             commands run (their JSON output is `r` for
 *   row: N=20 M=500MiB                           `run:`, `b` for `run b:`) and each `| header |
 *   expand: pivot(r, 'tiles', 'policy')          expression` line gives a column (JavaScript,
 *   | N | $N                                     `$VAR` substituted; helpers in table.ts). With
 *   | GFlop/s | f(r.gflops, 0)                    `expand`, each element `x` of its array is a row.
 *   -->                                           ATTRS: `transpose`, `big`, `bench`.
 *
 * `locus` at the start of a command means `node bin/locus.mjs`.
 */

import { shellWords } from './shell-words.ts';

/** A marker's attributes (`exit=2`, `big`, ...). */
export type Attrs = Record<string, string>;

/** One regenerable block of a page. */
export interface Block {
  kind: 'run' | 'table';
  attrs: Attrs;
  /** run: the commands; table: the `run` lines' commands by name ('r' for `run:`). */
  commands: string[];
  /** table only. */
  table?: TableSpec;
  /** Index in the page's lines of the marker's first line. */
  markerStart: number;
  /** Index of the marker's last line. */
  markerEnd: number;
  /** Lines [blockStart, blockEnd) hold the generated block (fence or table); may be empty. */
  blockStart: number;
  blockEnd: number;
  /** The heading the block stands under (for --only and progress). */
  section: string;
}

/** What a table marker declares. */
export interface TableSpec {
  /** Commands by the name their output gets in expressions. */
  runs: { name: string; command: string }[];
  /** Variable bindings, one per group of rows (at least one, maybe empty). */
  bindings: Record<string, string>[];
  /** Expression giving an array of row objects `x`, or undefined (one row per binding). */
  expand?: string;
  columns: { header: string; expr: string }[];
}

/** Parses `(a=1, b)` into attributes. */
export function parseAttrs(text: string | undefined): Attrs {
  const out: Attrs = {};
  if (!text) return out;
  for (const part of text.split(',')) {
    const p = part.trim();
    if (p === '') continue;
    const eq = p.indexOf('=');
    if (eq < 0) out[p] = 'true';
    else out[p.slice(0, eq).trim()] = p.slice(eq + 1).trim();
  }
  return out;
}

/** An error in a page's markers, naming the file and line. */
export class MarkerError extends Error {
  constructor(file: string, line: number, message: string) {
    super(`${file}:${line + 1}: ${message}`);
    this.name = 'MarkerError';
  }
}

/** The cross product of `each` lists (first list outermost) times the `row` bindings. */
function bindingsOf(rows: Record<string, string>[], each: [string, string[]][]): Record<string, string>[] {
  let out: Record<string, string>[] = rows.length > 0 ? rows : [{}];
  for (const [name, values] of each) {
    const next: Record<string, string>[] = [];
    for (const b of out) for (const v of values) next.push({ ...b, [name]: v });
    out = next;
  }
  return out;
}

/** Parses the body lines of a table marker. */
function parseTable(file: string, start: number, body: string[]): TableSpec {
  const runs: TableSpec['runs'] = [];
  const rows: Record<string, string>[] = [];
  const each: [string, string[]][] = [];
  const columns: TableSpec['columns'] = [];
  let expand: string | undefined;
  body.forEach((raw, k) => {
    const line = raw.trim();
    if (line === '') return;
    const run = /^run(?:\s+(\w+))?:\s*(.+)$/.exec(line);
    const eachLine = /^each\s+(\w+):\s*(.+)$/.exec(line);
    const row = /^row:\s*(.+)$/.exec(line);
    const exp = /^expand:\s*(.+)$/.exec(line);
    const col = /^\|(.+?)\|\s*(.+)$/.exec(line);
    if (run) runs.push({ name: run[1] ?? 'r', command: run[2]! });
    else if (eachLine) each.push([eachLine[1]!, shellWords(eachLine[2]!)]);
    else if (row) {
      const b: Record<string, string> = {};
      for (const kv of shellWords(row[1]!)) {
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new MarkerError(file, start + k, `'${kv}' is not NAME=VALUE`);
        b[kv.slice(0, eq)] = kv.slice(eq + 1);
      }
      rows.push(b);
    } else if (exp) expand = exp[1]!;
    else if (col) columns.push({ header: col[1]!.trim(), expr: col[2]!.trim() });
    else
      throw new MarkerError(
        file,
        start + k,
        `cannot read '${line}' (run:, each NAME:, row:, expand:, | header | expression)`,
      );
  });
  if (columns.length === 0) throw new MarkerError(file, start, 'a table marker without columns');
  return { runs, bindings: bindingsOf(rows, each), expand, columns };
}

/**
 * Where the generated block after a marker lies: a fenced block or a table, with the stamp line
 * after it; nothing yet when the marker is followed by other text.
 */
function blockAfter(lines: string[], from: number): [number, number] {
  const [start, end] = bareBlockAfter(lines, from);
  return /^<!-- made: /.test(lines[end] ?? '') ? [start, end + 1] : [start, end];
}

/** blockAfter without the stamp line. */
function bareBlockAfter(lines: string[], from: number): [number, number] {
  let i = from;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const first = lines[i] ?? '';
  if (/^```/.test(first)) {
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j]!)) j++;
    return [i, Math.min(j + 1, lines.length)];
  }
  if (first.startsWith('|')) {
    let j = i;
    while (j < lines.length && lines[j]!.startsWith('|')) j++;
    return [i, j];
  }
  return [from, from];
}

/** Finds every marker of a page, with the block it generates. */
export function parseMarkers(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let section = '';
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^```/.test(line)) fence = !fence;
    if (fence) continue;
    const h = /^#{1,4}\s+(.+)$/.exec(line);
    if (h) section = h[1]!.trim();
    const m = /^<!--\s*(run|table)(?:\(([^)]*)\))?:?\s*(.*)$/.exec(line);
    if (!m) continue;
    const kind = m[1] as 'run' | 'table';
    const attrs = parseAttrs(m[2]);
    // The marker's text runs to the line holding `-->`.
    const body: string[] = [];
    let end = i;
    let rest = m[3]!;
    for (;;) {
      const close = rest.indexOf('-->');
      if (close >= 0) {
        body.push(rest.slice(0, close));
        break;
      }
      body.push(rest);
      end++;
      if (end >= lines.length) throw new MarkerError(file, i, 'marker without its closing -->');
      rest = lines[end]!;
    }
    const [blockStart, blockEnd] = blockAfter(lines, end + 1);
    if (kind === 'run') {
      const commands = body.map((c) => c.trim()).filter((c) => c !== '');
      if (commands.length === 0) throw new MarkerError(file, i, 'a run marker without a command');
      blocks.push({ kind, attrs, commands, markerStart: i, markerEnd: end, blockStart, blockEnd, section });
    } else {
      const table = parseTable(file, i, body);
      blocks.push({
        kind,
        attrs,
        commands: table.runs.map((r) => r.command),
        table,
        markerStart: i,
        markerEnd: end,
        blockStart,
        blockEnd,
        section,
      });
    }
    i = Math.max(end, blockEnd - 1);
  }
  return blocks;
}
