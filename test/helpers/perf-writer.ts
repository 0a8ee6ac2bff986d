/**
 * Child process of the concurrent-writers test in perf.test.ts: `perf-writer.ts <dir> <i>`.
 * Prints "ready", waits for a line on stdin (so that every writer starts at once), then saves
 * BATCHES batches of BATCH_SIZE samples of the codelet 'shared' into the store at <dir>, and
 * prints "done <samples saved>".
 */
import { ModelStore } from '../../src/perf/store.ts';

/** Batches each writer saves, and samples per batch (perf.test.ts checks the total). */
const BATCHES = 50;
const BATCH_SIZE = 6;

const [dir, index] = process.argv.slice(2);
if (dir === undefined || index === undefined) throw new Error('usage: perf-writer.ts <dir> <index>');
const store = new ModelStore(dir);
const writer = Number(index);

process.stdout.write('ready\n');
process.stdin.once('data', () => {
  for (let b = 0; b < BATCHES; b++) {
    const samples = [];
    for (let s = 0; s < BATCH_SIZE; s++) {
      const kind = s % 2 === 0 ? ('cpu' as const) : ('gpu' as const);
      const n = 64 << (s % 3);
      samples.push({
        codelet: 'shared',
        kind,
        footprint: String(n * n * 8),
        size: 2 * n ** 3,
        seconds: 1e-3 * (1 + writer) + 1e-6 * b,
      });
    }
    store.saveSamples(samples);
  }
  process.stdout.write(`done ${BATCHES * BATCH_SIZE}\n`);
  process.stdin.destroy();
});
