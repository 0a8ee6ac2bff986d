// A node:test reporter that npm test writes to stderr beside the spec reporter: one line per
// test file as it ends ("[12/70] test/x.test.ts passed, 1m05s elapsed"), so that a suite that
// takes minutes shows how far it is and how long it has taken so far.
import { relative } from 'node:path';

/** Minutes and seconds since `start` (performance.now() milliseconds). */
function elapsed(start) {
  const s = Math.round((performance.now() - start) / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** The reporter: test events in, progress lines out. */
export default async function* progress(source) {
  const start = performance.now();
  // The runner's own command line names the test files (npm test's globs, expanded by the shell).
  const named = process.argv.filter((a) => /\.test\.[cm]?[jt]s$/.test(a)).length;
  const files = new Set();
  let done = 0;
  let announced = false;
  for await (const event of source) {
    const d = event.data;
    const isFile = d !== undefined && d.file !== undefined && d.name === d.file && d.nesting === 0;
    if (event.type === 'test:enqueue' && isFile) files.add(d.file);
    else if (event.type === 'test:dequeue' && isFile && !announced) {
      announced = true;
      yield `locus tests: ${Math.max(named, files.size)} files, a few at a time; the whole suite takes minutes, a line per file as it ends\n`;
    } else if (event.type === 'test:complete' && isFile) {
      done++;
      const outcome = d.details?.passed === false ? 'FAILED' : 'passed';
      yield `[${done}/${Math.max(named, files.size)}] ${relative(process.cwd(), d.file)} ${outcome}, ${elapsed(start)} elapsed\n`;
    }
  }
  yield `locus tests: ${done} files in ${elapsed(start)}\n`;
}
