/**
 * Regenerates the marked blocks of one markdown page (see markers.ts): runs their commands,
 * writes the outputs and tables in place, and stamps each block and the page with the commit.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CommandCache, type CommandOutput, maskWallClock, shellCommand } from './exec.ts';
import { type Attrs, type Block, parseAttrs, parseMarkers } from './markers.ts';
import { evaluate, markdownTable, substitute } from './table.ts';

/** Where and how a page is regenerated. */
export interface RenderOptions {
  /** The repository root (commands run there). */
  root: string;
  /** Outputs of commands, shared by the pages of one regeneration. */
  cache: CommandCache;
  /** `<!-- made: ... -->` text: the commit (and `dirty`). */
  stamp: string;
  /** Machine line for `bench` blocks (cores, CPU, Node). */
  machine: string;
  /** Regenerate `bench` blocks (machine-dependent) too. */
  bench: boolean;
  /** Keep only blocks whose section or file matches one of these (case-insensitive); all if empty. */
  only: string[];
  /** Leave out the `big` blocks (the CI test only checks that their commands parse). */
  skipBig?: boolean;
  /** A scratch folder for commands' files (`$TMP`). */
  tmp: string;
  /** Commands named on the page by `<!-- define NAME: COMMAND -->`, used as `@NAME` (set per page). */
  defines?: Record<string, string>;
  /** Called before each block runs and after it ends. */
  onBlock?: (e: { file: string; block: Block; phase: 'start' | 'end'; error?: string }) => void;
}

/** A block that could not be regenerated. */
export interface BlockFailure {
  file: string;
  section: string;
  line: number;
  message: string;
}

/** The page's `<!-- define NAME: COMMAND -->` lines. */
export function parseDefines(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    const m = /^<!-- define ([\w-]+): (.+) -->$/.exec(l.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** A command as it runs: `@NAME` expanded, then `$VAR` (and `$TMP`) substituted. */
function commandOf(command: string, o: RenderOptions, vars: Record<string, string> = {}): string {
  const expanded = command.replace(/@([\w-]+)/g, (all, name: string) => o.defines?.[name] ?? all);
  return substitute(expanded, { TMP: o.tmp, ...vars });
}

/**
 * The commands a page's selected blocks run, as they run (defines and variables expanded),
 * with whether they can run ahead of their block (not `fresh`, no `source` file), and the
 * block's expected exit code.
 */
export function pageCommands(
  file: string,
  text: string,
  options: RenderOptions,
): { command: string; ahead: boolean; exit: number; block: Block }[] {
  const lines = text.split('\n');
  const o: RenderOptions = { ...options, defines: parseDefines(lines) };
  const out: { command: string; ahead: boolean; exit: number; block: Block }[] = [];
  for (const block of parseMarkers(file, text)) {
    if (!selected(file, block, o)) continue;
    // Not ahead: commands run again (`fresh`), need a file the block writes (`source`), or share
    // files the block cleans up (a trace one command writes and the next reads).
    const ahead =
      block.attrs.fresh === undefined &&
      block.attrs.source === undefined &&
      block.attrs.cleanup === undefined;
    if (block.kind === 'run') {
      for (const line of block.commands) {
        const { command, attrs } = commandAttrs(line, block.attrs);
        out.push({ command: commandOf(command, o), ahead, exit: Number(attrs.exit ?? 0), block });
      }
    } else {
      for (const b of block.table!.bindings)
        for (const r of block.table!.runs)
          out.push({
            command: commandOf(r.command, o, b),
            ahead,
            exit: Number(block.attrs.exit ?? 0),
            block,
          });
    }
  }
  // Inline values: each command of `<!-- val: A ;; B :: expr -->`, as a one-line run block.
  let section = '';
  lines.forEach((line, i) => {
    const h = /^#{1,4}\s+(.+)$/.exec(line);
    if (h) section = h[1]!.trim();
    for (const m of line.matchAll(VALUE)) {
      const attrs = parseAttrs(m[1]);
      const block = {
        kind: 'run',
        attrs,
        commands: m[2]!.split(' ;; ').map((c) => c.trim()),
        markerStart: i,
        markerEnd: i,
        blockStart: i,
        blockEnd: i,
        section,
      } satisfies Block;
      if (!selected(file, block, o)) continue;
      for (const c of block.commands) out.push({ command: commandOf(c, o), ahead: true, exit: 0, block });
    }
  });
  return out;
}

/** Whether `block` of `file` is regenerated under these options. */
export function selected(
  file: string,
  block: Block,
  o: Pick<RenderOptions, 'bench' | 'only' | 'skipBig'>,
): boolean {
  if (block.attrs.bench !== undefined && !o.bench) return false;
  if (block.attrs.big !== undefined && o.skipBig) return false;
  if (o.only.length === 0) return true;
  const hay = `${file}\n${block.section}`.toLowerCase();
  return o.only.some((s) => hay.includes(s.toLowerCase()));
}

/** Keeps the lines `spec` names (1-based `A-B,C`) and the last `last` ones; `...` marks cuts. */
export function keepLines(text: string, spec: string | undefined, last: string | undefined): string {
  const lines = text.replace(/\n$/, '').split('\n');
  if (spec === undefined && last === undefined) return lines.join('\n');
  const keep = new Set<number>();
  for (const part of (spec ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const a = Number(m[1]);
    const b = m[2] !== undefined ? Number(m[2]) : a;
    for (let i = a; i <= b; i++) keep.add(i - 1);
  }
  const n = Number(last ?? 0);
  for (let i = Math.max(0, lines.length - n); i < lines.length; i++) keep.add(i);
  const out: string[] = [];
  let cut = false;
  lines.forEach((l, i) => {
    if (keep.has(i)) {
      if (cut) out.push('...');
      out.push(l);
      cut = false;
    } else cut = true;
  });
  if (cut) out.push('...');
  return out.join('\n');
}

/** Checks a command's exit code against the block's `exit` attribute. */
function checkExit(out: CommandOutput, block: Block): void {
  const want = Number(block.attrs.exit ?? 0);
  if (out.code !== want) {
    const tail = (out.stderr || out.stdout).trim().split('\n').slice(-3).join(' / ');
    throw new Error(`\`${out.command}\` exited with ${out.code}, expected ${want}: ${tail}`);
  }
}

/** The ```ts block nearest before line `before` (for `source=FILE`). */
function sourceBefore(lines: string[], before: number): string {
  let end = before - 1;
  while (end >= 0 && !/^```\s*$/.test(lines[end]!)) end--;
  let start = end - 1;
  while (start >= 0 && !/^```(ts|typescript)\s*$/.test(lines[start]!)) start--;
  if (start < 0) throw new Error('source=: no ```ts block before the marker');
  return `${lines.slice(start + 1, end).join('\n')}\n`;
}

/** Removes the files and folders a block's `cleanup=a,b` attribute names (what its commands wrote). */
function cleanup(block: Block, o: RenderOptions): void {
  for (const f of (block.attrs.cleanup ?? '').split(/[\s;]+/))
    if (f !== '') rmSync(join(o.root, f), { force: true, recursive: true });
}

/** A run marker's command line: `[attrs] command`, its attributes over the marker's. */
export function commandAttrs(line: string, attrs: Attrs): { command: string; attrs: Attrs } {
  const m = /^\[([^\]]*)\]\s*(.*)$/.exec(line);
  return m ? { command: m[2]!, attrs: { ...attrs, ...parseAttrs(m[1]) } } : { command: line, attrs };
}

/** The fenced block of a run marker. */
async function renderRun(lines: string[], block: Block, o: RenderOptions): Promise<string[]> {
  const src = block.attrs.source;
  const file = src !== undefined ? join(o.root, src) : undefined;
  if (file) writeFileSync(file, sourceBefore(lines, block.markerStart));
  const body: string[] = [];
  try {
    for (const line of block.commands) {
      const { command, attrs } = commandAttrs(line, block.attrs);
      const out = await o.cache.get(commandOf(command, o), attrs.fresh !== undefined);
      checkExit(out, { ...block, attrs });
      const text = maskWallClock(`${out.stdout}${out.stderr}`);
      body.push(`$ ${shellCommand(commandOf(command, { ...o, tmp: '$TMP' }))}`);
      if (attrs.hide !== undefined) body.push('...');
      else if (text.trim() !== '') body.push(keepLines(text, attrs.lines, attrs.last));
    }
  } finally {
    if (file) rmSync(file, { force: true });
    cleanup(block, o);
  }
  return ['```', ...body, '```'];
}

/** Parses a command's output: JSON when it looks like JSON, else the text. */
function parsed(out: CommandOutput): unknown {
  const t = out.stdout.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      return out.stdout;
    }
  }
  return out.stdout;
}

/** The markdown table of a table marker. */
async function renderTable(block: Block, o: RenderOptions): Promise<string[]> {
  const spec = block.table!;
  const rows: string[][] = [spec.columns.map((c) => c.header)];
  for (const binding of spec.bindings) {
    const vars = { TMP: o.tmp, ...binding };
    const scope: Record<string, unknown> = {};
    for (const run of spec.runs) {
      const out = await o.cache.get(commandOf(run.command, o, binding), block.attrs.fresh !== undefined);
      checkExit(out, block);
      scope[run.name] = parsed(out);
    }
    const items =
      spec.expand !== undefined ? (evaluate(substitute(spec.expand, vars), scope) as unknown[]) : [undefined];
    for (const x of items) {
      rows.push(
        spec.columns.map((c) => {
          try {
            return String(evaluate(substitute(c.expr, vars), { ...scope, x }));
          } catch (e) {
            throw new Error(
              `column '${c.header}' (${c.expr}) with ${JSON.stringify(binding)}: ${(e as Error).message}`,
            );
          }
        }),
      );
    }
  }
  const grid = block.attrs.transpose !== undefined ? rows[0]!.map((_, j) => rows.map((r) => r[j]!)) : rows;
  return markdownTable(grid);
}

/**
 * An inline value: `<!-- val(ATTRS): COMMAND :: EXPRESSION -->text<!-- /val -->` (COMMAND may
 * be `A ;; B`: the outputs are `r`, `r2`, ...).
 */
const VALUE = /<!-- val(?:\(([^)]*)\))?: (.+?) :: (.+?) -->(.*?)<!-- \/val -->/g;

/**
 * Rewrites the inline values of a page in place (prose figures taken from a command's output:
 * `r` is its JSON, or its text). Returns how many were rewritten; failures are collected.
 */
async function renderValues(
  file: string,
  lines: string[],
  o: RenderOptions,
  failures: BlockFailure[],
): Promise<number> {
  let section = '';
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    const h = /^#{1,4}\s+(.+)$/.exec(lines[i]!);
    if (h) section = h[1]!.trim();
    const matches = [...lines[i]!.matchAll(VALUE)];
    if (matches.length === 0) continue;
    let line = lines[i]!;
    for (const m of matches) {
      const attrs = parseAttrs(m[1]);
      const pseudo = { kind: 'run', attrs, commands: [m[2]!], section } as unknown as Block;
      if (!selected(file, pseudo, o)) continue;
      try {
        // `A ;; B`: several commands, their outputs `r`, `r2`, `r3`, ...
        const scope: Record<string, unknown> = {};
        for (const [k, c] of m[2]!.split(' ;; ').entries()) {
          const out = await o.cache.get(commandOf(c.trim(), o));
          checkExit(out, pseudo);
          scope[k === 0 ? 'r' : `r${k + 1}`] = parsed(out);
        }
        const value = String(evaluate(m[3]!, scope));
        line = line.replace(
          m[0],
          `<!-- val${m[1] !== undefined ? `(${m[1]})` : ''}: ${m[2]} :: ${m[3]} -->${value}<!-- /val -->`,
        );
        n++;
      } catch (e) {
        failures.push({
          file,
          section,
          line: i + 1,
          message: `inline value ${m[3]}: ${(e as Error).message}`,
        });
      }
    }
    lines[i] = line;
  }
  return n;
}

/** The stamp line after a block. */
function stampLine(block: Block, o: RenderOptions): string {
  return block.attrs.bench !== undefined
    ? `<!-- made: ${o.stamp} --> <sub>Measured on ${o.machine}, at commit ${o.stamp}.</sub>`
    : `<!-- made: ${o.stamp} -->`;
}

/** The page-level stamp: the commits its blocks were made at. */
function pageStamp(lines: string[]): string {
  const made = new Set<string>();
  for (const l of lines) {
    const m = /^<!-- made: (.+?) -->/.exec(l);
    if (m) made.add(m[1]!);
  }
  const at = [...made].join(', ');
  return made.size === 0
    ? '_No output on this page has been generated yet: run `npm run docs:results`._'
    : `_The example outputs and tables on this page were produced by \`npm run docs:results\` from the commands they show, at commit ${at}. Wall-clock figures are shown as ${'`…`'}: they vary from one run to the next._`;
}

/**
 * Regenerates the selected blocks of a page. Returns the new text and the blocks that failed
 * (left as they were).
 */
export async function renderPage(
  file: string,
  text: string,
  options: RenderOptions,
): Promise<{ text: string; failures: BlockFailure[]; ran: number }> {
  const lines = text.split('\n');
  const o: RenderOptions = { ...options, defines: parseDefines(lines) };
  const blocks = parseMarkers(file, text);
  const failures: BlockFailure[] = [];
  const replacements: { start: number; end: number; lines: string[] }[] = [];
  let ran = 0;
  for (const block of blocks) {
    if (!selected(file, block, o)) continue;
    o.onBlock?.({ file, block, phase: 'start' });
    try {
      const out = block.kind === 'run' ? await renderRun(lines, block, o) : await renderTable(block, o);
      replacements.push({
        start: block.markerEnd + 1,
        end: block.blockEnd,
        lines: [...out, stampLine(block, o)],
      });
      ran++;
      o.onBlock?.({ file, block, phase: 'end' });
    } catch (e) {
      const message = (e as Error).message;
      failures.push({ file, section: block.section, line: block.markerStart + 1, message });
      o.onBlock?.({ file, block, phase: 'end', error: message });
    }
  }
  const next = [...lines];
  for (const r of replacements.sort((a, b) => b.start - a.start))
    next.splice(r.start, r.end - r.start, ...r.lines);
  ran += await renderValues(file, next, o, failures);
  // The page stamp: the line after `<!-- stamp -->`.
  for (let i = 0; i < next.length - 1; i++) {
    if (/^<!--\s*stamp\s*-->$/.test(next[i]!)) next[i + 1] = pageStamp(next);
  }
  return { text: next.join('\n'), failures, ran };
}
