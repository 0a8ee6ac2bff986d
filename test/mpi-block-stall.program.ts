/**
 * Run by test/mpi-cluster.test.ts under `mpirun -np 2`: rank 1 waits in a blocking receive
 * (timeoutS 2) for a message rank 0 never sends (it idles for a minute): the watchdog of the
 * blocking calls aborts the job with one clear line instead of hanging.
 */
import { Mpi } from '../src/cluster/index.ts';

const mpi = Mpi.init({ timeoutS: 2 });
if (mpi.rank === 1) mpi.recv(new Uint8Array(8), 0, 1);
else await new Promise((resolve) => setTimeout(resolve, 60_000));
await mpi.finalize();
