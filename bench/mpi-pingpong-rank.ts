/**
 * One rank of bench/mpi-pingpong.ts through the addon (src/cluster/mpi.ts): the same ping-pong
 * as bench/mpi-pingpong.c, with non-blocking requests completed by the event-loop polling loop
 * (isend/irecv, await), or with the blocking calls (send/recv) when LOCUS_BENCH_BLOCKING=1. As
 * in C, every round trip is timed on its own: rank 0 reports the mean and the median.
 * Usage: mpirun -np 2 node --import tsx bench/mpi-pingpong-rank.ts LAT_ITERS BW_ITERS
 * (LOCUS_BENCH_SPIN_US, when set, is Mpi.init's spinUs.)
 */
import { Mpi } from '../src/cluster/index.ts';

const spinEnv = process.env.LOCUS_BENCH_SPIN_US;
const mpi = Mpi.init(spinEnv === undefined || spinEnv === '' ? {} : { spinUs: Number(spinEnv) });
const { rank } = mpi;
const peer = 1 - rank;
const blocking = process.env.LOCUS_BENCH_BLOCKING === '1';

/** Seconds for `iters` round trips of `bytes`; each round trip's seconds in `each`. */
async function pingpong(buf: Uint8Array, bytes: number, iters: number, each: number[] = []): Promise<number> {
  const view = buf.subarray(0, bytes);
  mpi.barrier();
  const t0 = mpi.wtime();
  for (let i = 0; i < iters; i++) {
    const ti = mpi.wtime();
    if (blocking) {
      if (rank === 0) {
        mpi.send(view, peer, 0);
        mpi.recv(view, peer, 1);
      } else {
        mpi.recv(view, peer, 0);
        mpi.send(view, peer, 1);
      }
    } else if (rank === 0) {
      const r = mpi.irecv(view, peer, 1);
      const s = mpi.isend(view, peer, 0);
      await Promise.all([r.done, s.done]);
    } else {
      await mpi.irecv(view, peer, 0).done;
      await mpi.isend(view, peer, 1).done;
    }
    each.push(mpi.wtime() - ti);
  }
  return mpi.wtime() - t0;
}

/** The median of `xs`. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const lat = Number(process.argv[2] ?? 2000);
const bw = Number(process.argv[3] ?? 20);
const small = 1024;
const big = 16 << 20;
const buf = new Uint8Array(big).fill(1);
await pingpong(buf, small, Math.floor(lat / 10));
const el: number[] = [];
const tl = await pingpong(buf, small, lat, el);
await pingpong(buf, big, 2);
const eb: number[] = [];
const tb = await pingpong(buf, big, bw, eb);
if (rank === 0) {
  console.log(
    JSON.stringify({
      latencyUs: (tl / lat / 2) * 1e6,
      latencyMedianUs: (median(el) / 2) * 1e6,
      bandwidthMBs: (2 * big * bw) / tb / 1e6,
      bandwidthMedianMBs: (2 * big) / median(eb) / 1e6,
    }),
  );
}
await mpi.finalize();
