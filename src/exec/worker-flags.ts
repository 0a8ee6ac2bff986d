/**
 * The Node flags a worker thread starts with. A worker inherits the main thread's flags
 * (`process.execArgv`: `--import tsx`, `--enable-source-maps`, ...), except those Node refuses
 * for a worker: `--input-type`, which makes a thread started from a module file exit at once,
 * and the process-wide ones (V8's heap and stack sizes, `--expose-gc`, `--trace-gc`,
 * `--title`, ...), for which `new Worker` throws ERR_WORKER_INVALID_EXEC_ARGV. V8's flags apply
 * to every thread of the process anyway, so a worker started without them runs with them.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { LocusError } from '../core/types.ts';

/** The flags the next worker starts with: the main thread's, less those a worker refused. */
let flags = withoutFlags(
  process.execArgv,
  process.execArgv.filter((a) => a === '--input-type' || a.startsWith('--input-type=')),
);

/**
 * `args` without each flag of `drop` (as written in `args`: `--name=value` or `--name`), and
 * without the value that follows a flag written alone (`--title foo`): in execArgv, a token
 * that does not start with a dash is the value of the flag before it (Node stops reading its
 * own options at the script). O(args x drop).
 */
export function withoutFlags(args: readonly string[], drop: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!drop.includes(args[i]!)) {
      out.push(args[i]!);
      continue;
    }
    if (!args[i]!.includes('=') && i + 1 < args.length && !args[i + 1]!.startsWith('-')) i++;
  }
  return out;
}

/** The flags Node's ERR_WORKER_INVALID_EXEC_ARGV message names ("...flags: --a=1, --b"). */
export function refusedFlags(message: string): string[] {
  const colon = message.indexOf(': ');
  if (colon < 0) return [];
  return message
    .slice(colon + 2)
    .split(', ')
    .map((f) => f.trim())
    .filter((f) => f.startsWith('-'));
}

/**
 * Starts a worker thread on `entry` with the main thread's flags, leaving out those Node
 * refuses for a worker (learnt from the first refusal, then remembered). Throws a one-line
 * LocusError when Node refuses a flag it cannot leave out.
 */
export function startWorker(entry: URL, options: Omit<WorkerOptions, 'execArgv'>): Worker {
  for (;;) {
    try {
      return new Worker(entry, { ...options, execArgv: flags });
    } catch (e) {
      const err = e as { code?: string; message?: string };
      if (err.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
      const refused = refusedFlags(err.message ?? '').filter((f) => flags.includes(f));
      if (refused.length === 0) {
        throw new LocusError(
          'LOCUS_WORKER_THREAD_FAILED',
          `worker threads cannot start: ${err.message ?? 'Node refused their flags'} (run node without those flags)`,
        );
      }
      flags = withoutFlags(flags, refused);
    }
  }
}
