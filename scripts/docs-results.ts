/**
 * `npm run docs:results`: regenerates every marked example output and table of the docs (see
 * scripts/docs/markers.ts for the markers) by running the commands they show, and stamps each
 * with the commit. Options:
 *
 *   --only <text>   only the blocks whose file name or section heading contains <text>
 *                   (case-insensitive; repeatable), e.g. --only "Figure 2" --only guide.md
 *   --bench         also the machine-dependent blocks (real runs, benchmarks, charged scheduling)
 *   --list          list the blocks and their commands, run nothing
 *   [files...]      pages to process (default: README.md and every .md under docs/)
 *
 * Progress goes to stderr, one line per block with its time. A block whose command fails is left
 * as it was and reported; the exit code is then 1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandCache } from './docs/exec.ts';
import { parseMarkers } from './docs/markers.ts';
import { type BlockFailure, type RenderOptions, renderPage, selected } from './docs/render.ts';
import { ensureSections } from './docs/sections.ts';

/** The repository root. */
export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The commit and whether the tree differs from it outside the docs (which this script writes). */
export function commitStamp(root = ROOT): string {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
  try {
    const head = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', '.', ':(exclude)docs', ':(exclude)README.md') !== '';
    return dirty ? `${head} (dirty tree)` : head;
  } catch {
    return 'unknown commit';
  }
}

/**
 * This machine, for machine-dependent blocks: cores, CPU model, Node version, and the load
 * average when the regeneration started (other processes share the cores).
 */
export function machineStamp(): string {
  const c = cpus();
  const load = loadavg()[0]!.toFixed(1);
  return `${c.length} cores (${c[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, load average ${load} at the start`;
}

/** README.md and the .md files under docs/, sorted. */
export function docFiles(root = ROOT): string[] {
  const out = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  };
  walk(join(root, 'docs'));
  return out;
}

interface Args {
  only: string[];
  bench: boolean;
  list: boolean;
  files: string[];
}

function parseArgs(argv: string[]): Args {
  const a: Args = { only: [], bench: false, list: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    if (x === '--only') {
      const v = argv[++i];
      if (v === undefined) throw new Error('--only needs a section name or file name');
      a.only.push(v);
    } else if (x === '--bench') a.bench = true;
    else if (x === '--list') a.list = true;
    else if (x === '--help' || x === '-h') {
      process.stdout.write(
        'usage: npm run docs:results -- [--only <section or file>]... [--bench] [--list] [files...]\n',
      );
      process.exit(0);
    } else if (x.startsWith('-')) throw new Error(`unknown option ${x}`);
    else a.files.push(resolve(x));
  }
  return a;
}

/** Regenerates the pages; returns the failures. */
export async function regenerate(args: Args): Promise<BlockFailure[]> {
  const files = args.files.length > 0 ? args.files : docFiles();
  if (!args.list) ensureSections(ROOT, files);
  const tmp = mkdtempSync(join(tmpdir(), 'locus-docs-'));
  const started = Date.now();
  const failures: BlockFailure[] = [];
  try {
    // Count the blocks first, for the progress lines.
    const todo = files.map((f) => {
      const name = relative(ROOT, f);
      const blocks = parseMarkers(name, readFileSync(f, 'utf8')).filter((b) => selected(name, b, args));
      return { f, name, blocks };
    });
    const total = todo.reduce((n, t) => n + t.blocks.length, 0);
    if (args.list) {
      for (const t of todo)
        for (const b of t.blocks)
          process.stdout.write(
            `${t.name}:${b.markerStart + 1} [${b.section}] ${b.kind}: ${b.commands.join(' ; ')}\n`,
          );
      return [];
    }
    const o: RenderOptions = {
      root: ROOT,
      cache: new CommandCache(ROOT),
      stamp: commitStamp(),
      machine: machineStamp(),
      bench: args.bench,
      only: args.only,
      tmp,
      onBlock: (() => {
        let n = 0;
        let t0 = 0;
        return (e) => {
          if (e.phase === 'start') {
            n++;
            t0 = Date.now();
            const what = e.block.commands[0] ?? '';
            process.stderr.write(
              `[${n}/${total}] ${e.file} § ${e.block.section}: ${what}${e.block.commands.length > 1 ? ` (+${e.block.commands.length - 1})` : ''} ... `,
            );
          } else {
            const s = ((Date.now() - t0) / 1000).toFixed(1);
            const all = ((Date.now() - started) / 1000).toFixed(0);
            process.stderr.write(e.error ? `FAILED (${s} s)\n  ${e.error}\n` : `${s} s (${all} s in all)\n`);
          }
        };
      })(),
    };
    process.stderr.write(`regenerating ${total} blocks at ${o.stamp}\n`);
    for (const t of todo) {
      const text = readFileSync(t.f, 'utf8');
      // A page may hold inline values (`<!-- val: ... -->`) and no block: render it too.
      if (t.blocks.length === 0 && !/<!-- val[:(]/.test(text)) continue;
      const r = await renderPage(t.name, text, o);
      failures.push(...r.failures);
      if (r.text !== text) writeFileSync(t.f, r.text);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return failures;
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`docs:results: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const failures = await regenerate(args);
  if (failures.length > 0) {
    process.stderr.write(`\n${failures.length} block(s) failed and were left as they were:\n`);
    for (const f of failures) process.stderr.write(`  ${f.file}:${f.line} (${f.section}): ${f.message}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
