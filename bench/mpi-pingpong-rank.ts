/**
 * One rank of bench/mpi-pingpong.ts through the addon (src/cluster/mpi.ts): the same ping-pong
 * as bench/mpi-pingpong.c, each request completed by the event-loop polling loop (await).
 * Usage: mpirun -np 2 node --import tsx bench/mpi-pingpong-rank.ts LAT_ITERS BW_ITERS
 * (LOCUS_BENCH_SPIN_US, when set, is Mpi.init's spinUs.)
 */
import { Mpi } from '../src/cluster/index.ts';

const spinEnv = process.env.LOCUS_BENCH_SPIN_US;
const mpi = Mpi.init(spinEnv === undefined || spinEnv === '' ? {} : { spinUs: Number(spinEnv) });
const { rank } = mpi;
const peer = 1 - rank;

/** Seconds for `iters` round trips of `bytes`. */
async function pingpong(buf: Uint8Array, bytes: number, iters: number): Promise<number> {
  const view = buf.subarray(0, bytes);
  mpi.barrier();
  const t0 = mpi.wtime();
  for (let i = 0; i < iters; i++) {
    if (rank === 0) {
      const r = mpi.irecv(view, peer, 1);
      const s = mpi.isend(view, peer, 0);
      await Promise.all([r.done, s.done]);
    } else {
      await mpi.irecv(view, peer, 0).done;
      await mpi.isend(view, peer, 1).done;
    }
  }
  return mpi.wtime() - t0;
}

const lat = Number(process.argv[2] ?? 2000);
const bw = Number(process.argv[3] ?? 20);
const small = 1024;
const big = 16 << 20;
const buf = new Uint8Array(big).fill(1);
await pingpong(buf, small, Math.floor(lat / 10));
const tl = await pingpong(buf, small, lat);
await pingpong(buf, big, 2);
const tb = await pingpong(buf, big, bw);
if (rank === 0) {
  console.log(JSON.stringify({ latencyUs: (tl / lat / 2) * 1e6, bandwidthMBs: (2 * big * bw) / tb / 1e6 }));
}
await mpi.finalize();
