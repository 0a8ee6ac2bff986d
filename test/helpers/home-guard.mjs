// `node --import ./test/helpers/home-guard.mjs --test ...` (npm test does): each test file runs
// with HOME pointing at a new empty folder and without LOCUS_PERFMODEL_DIR, so what it (or a
// process it starts) would write into the user's home lands there; when the file's process
// exits, anything found there fails it, named, and the folder is removed. The GPU driver's
// shader cache (Mesa's, under WebGPU) is not the runtime's doing: it goes to its own temporary
// XDG_CACHE_HOME, removed likewise, so that it neither fills the user's ~/.cache nor trips this.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isMainThread } from 'node:worker_threads';

// Worker threads and the processes a test file starts share its folders (they inherit HOME).
if (isMainThread && process.env.LOCUS_HOME_GUARD === undefined) guard();

/** Points HOME at an empty folder and fails the process when it is not empty at exit. */
function guard() {
  const home = mkdtempSync(join(tmpdir(), 'locus-home-'));
  const cache = mkdtempSync(join(tmpdir(), 'locus-cache-'));
  process.env.HOME = home;
  process.env.XDG_CACHE_HOME = cache;
  process.env.LOCUS_HOME_GUARD = home;
  delete process.env.LOCUS_PERFMODEL_DIR;

  process.on('exit', () => {
    let found = [];
    try {
      found = readdirSync(home, { recursive: true }).map(String);
    } catch {
      found = [];
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
    if (found.length === 0) return;
    const shown = found.slice(0, 5).map((f) => `~/${f}`);
    if (found.length > 5) shown.push(`${found.length - 5} more`);
    const named = shown.join(', ');
    const file = relative(process.cwd(), process.argv[1] ?? '?');
    process.stderr.write(
      `locus test guard: ${file} wrote into HOME (${named}): give it a temporary folder (perfModelDir, LOCUS_PERFMODEL_DIR)\n`,
    );
    process.exitCode = 1;
  });
}
