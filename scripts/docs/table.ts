/**
 * Computed markdown tables: the expressions of a table marker's columns are JavaScript over
 * the commands' JSON outputs, with these helpers in scope.
 */
import { createHash } from 'node:crypto';
import { formatBytes, formatDuration } from '../../src/platform/units.ts';
import { parseCsv } from '../../src/report/csv.ts';

/** CSV text (a header line, then records) as objects; numeric cells become numbers. */
function csv(text: string): Record<string, string | number>[] {
  const [head, ...rows] = parseCsv(text);
  return rows
    .filter((r) => r.length === head!.length)
    .map((r) =>
      Object.fromEntries(
        r.map((c, i) => [head![i]!, c !== '' && Number.isFinite(Number(c)) ? Number(c) : c]),
      ),
    );
}

/** `n` with `d` decimals. */
function f(n: number, d = 0): string {
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new Error(`f(): ${String(n)} is not a finite number`);
  return n.toFixed(d);
}

/** Bytes as GiB with `d` decimals. */
function gib(b: number, d = 2): string {
  return f(b / 2 ** 30, d);
}

/** Bytes as MiB with `d` decimals. */
function mib(b: number, d = 0): string {
  return f(b / 2 ** 20, d);
}

/** A fraction as a percentage with `d` decimals. */
function pct(x: number, d = 1): string {
  return `${f(100 * x, d)}%`;
}

/** Relative change b / a - 1 as a signed percentage. */
function change(a: number, b: number, d = 1): string {
  const c = 100 * (b / a - 1);
  return `${c >= 0 ? '+' : ''}${c.toFixed(d)}%`;
}

/** Sum of the numbers. */
function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** Integer with thousands separators. */
function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** First 12 hex digits of the SHA-256 of a report's JSON without its wall-clock fields. */
function hash(report: Record<string, unknown>): string {
  const { wallS: _, schedulingS: __, ...rest } = report;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 12);
}

/**
 * Groups rows by `key` (first-seen order): one entry per key value, with `by[col value]` the
 * row for each value of `col` (a sweep's runs: one entry per size, a row per policy).
 */
function pivot<T extends Record<string, unknown>>(
  rows: T[],
  key: keyof T,
  col: keyof T,
): { key: unknown; first: T; by: Record<string, T> }[] {
  const out = new Map<unknown, { key: unknown; first: T; by: Record<string, T> }>();
  for (const r of rows) {
    let e = out.get(r[key]);
    if (!e) {
      e = { key: r[key], first: r, by: {} };
      out.set(r[key], e);
    }
    e.by[String(r[col])] = r;
  }
  return [...out.values()];
}

/** The sweep row of size `tiles` under `policy` (an error when there is none). */
function at<T extends { tiles: number; policy: string }>(rows: T[], tiles: number, policy: string): T {
  const r = rows.find((x) => x.tiles === tiles && x.policy === policy);
  if (!r) throw new Error(`no run N=${tiles} ${policy}`);
  return r;
}

/** The first capture group of `re` in `text` (an error when it does not match). */
function grab(text: string, re: RegExp): string {
  const m = re.exec(text);
  if (!m) throw new Error(`${re} does not match the output`);
  return m[1] ?? m[0];
}

/** The helpers, by the names expressions use (`bytes` and `secs` format as Locus's reports do). */
export const HELPERS: Record<string, unknown> = {
  f,
  gib,
  mib,
  pct,
  change,
  sum,
  int,
  hash,
  pivot,
  at,
  grab,
  csv,
  bytes: formatBytes,
  secs: formatDuration,
};

/** `$NAME` in `text` replaced by the binding's value (longest names first). */
export function substitute(text: string, vars: Record<string, string>): string {
  const names = Object.keys(vars).sort((a, b) => b.length - a.length);
  let out = text;
  for (const n of names) out = out.replaceAll(`$${n}`, vars[n]!);
  return out;
}

/** Evaluates a column expression with the helpers, the outputs by name and `x`. */
export function evaluate(expr: string, scope: Record<string, unknown>): unknown {
  const names = [...Object.keys(HELPERS), ...Object.keys(scope)];
  const values = [...Object.values(HELPERS), ...Object.values(scope)];
  const fn = new Function(...names, `return (${expr});`) as (...a: unknown[]) => unknown;
  return fn(...values);
}

/** A markdown table: a header row, the separator, the rows. */
export function markdownTable(rows: string[][]): string[] {
  const esc = (c: string) => c.replaceAll('|', '\\|');
  const line = (r: string[]) => `| ${r.map(esc).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head!), line(head!.map(() => '---')), ...body.map(line)];
}
