/**
 * Seed 001's Figure 2, the MPI ring: a token goes round the ranks `loops` times and a task
 * increments it on every rank; detached receives release the increment when the token arrives,
 * detached sends forward it once the increment wrote it.
 *
 *   mpirun --allow-run-as-root --oversubscribe -np 4 node --import tsx examples/mpi-ring.ts [--loops 5]
 *
 * The last rank prints one JSON line: {"token":20,"expected":20,...}. Fault injection for the
 * tests: `--exit-rank R --exit-after K` makes rank R exit (code 3) when its K-th increment is
 * submitted; the other ranks then stop (mpirun ends the job, the watchdog of `--timeout S`
 * seconds aborts it otherwise) with a clear error instead of hanging.
 */
import { parseArgs } from 'node:util';
import { Mpi, MpiData } from '../src/cluster/index.ts';
import { LocusError } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';

const { values } = parseArgs({
  options: {
    loops: { type: 'string', default: '5' },
    'exit-rank': { type: 'string', default: '-1' },
    'exit-after': { type: 'string', default: '0' },
    'exit-code': { type: 'string', default: '3' },
    'stall-rank': { type: 'string', default: '-1' },
    timeout: { type: 'string', default: '60' },
  },
});
const LOOPS = Number(values.loops);
const EXIT_RANK = Number(values['exit-rank']);
const EXIT_AFTER = Number(values['exit-after']);
const EXIT_CODE = Number(values['exit-code']);
const STALL_RANK = Number(values['stall-rank']);
const TAG = 42;

let mpi: Mpi | undefined;
try {
  mpi = Mpi.init({ timeoutS: Number(values.timeout) });
  const { rank, size } = mpi;
  if (rank === STALL_RANK) {
    // Alive but silent: the others' receives never complete; their watchdog ends the job.
    process.stderr.write(`rank ${rank}: stalling on purpose (--stall-rank)\n`);
    setInterval(() => {}, 1000);
    await new Promise(() => {});
  }
  const prev = (rank + size - 1) % size;
  const next = (rank + 1) % size;
  const rt = await Runtime.create({ cpus: 1 });
  const lib = new MpiData(rt, mpi);
  const increment = rt.codelet({
    name: 'increment',
    kernel: { module: new URL('./mpi-ring.kernel.ts', import.meta.url).href, export: 'increment' },
  });
  const token = new Int32Array(1);
  const handle = rt.data(token, { name: 'token' });
  for (let loop = 0; loop < LOOPS; loop++) {
    if (loop > 0 || rank > 0) lib.recvDetached(handle, prev, TAG);
    if (rank === EXIT_RANK && loop === EXIT_AFTER) {
      process.stderr.write(`rank ${rank}: exiting on purpose at loop ${loop} (--exit-rank)\n`);
      process.exit(EXIT_CODE);
    }
    rt.submit(increment, [[handle, 'RW']]);
    if (!(loop === LOOPS - 1 && rank === size - 1)) lib.sendDetached(handle, next, TAG);
  }
  await rt.wait();
  await lib.flush();
  await rt.close();
  const expected = LOOPS * size;
  if (rank === size - 1) {
    console.log(
      JSON.stringify({ token: token[0], expected, ranks: size, loops: LOOPS, thread: mpi.threadLevel }),
    );
  }
  await mpi.finalize();
  if (rank === size - 1 && token[0] !== expected) process.exitCode = 1;
} catch (e) {
  const msg = e instanceof LocusError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
  if (mpi) mpi.abort(msg);
  process.stderr.write(`locus: ${msg}\n`);
  process.exit(2);
}
