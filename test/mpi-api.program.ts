/**
 * Run by test/mpi-api.test.ts under `mpirun -np 2`: exercises the MPI-like API on data handles
 * (blocking, non-blocking with test/wait, array, detached, tags, a dup'ed communicator, a send
 * holding writers off, a receive of the wrong size, a bad spinUs, raw ping-pongs that let the
 * event loop turn, raw blocking send/recv) and prints one JSON line per rank.
 */
import { Mpi, MpiData } from '../src/cluster/index.ts';
import { LocusError } from '../src/core/types.ts';
import { Runtime } from '../src/exec/runtime.ts';

let spinError = 'none';
try {
  Mpi.init({ spinUs: -1 });
} catch (e) {
  spinError = e instanceof LocusError ? `${e.code}: ${e.message}` : String(e);
}
const mpi = Mpi.init({ timeoutS: 60 });
const { rank } = mpi;
const peer = 1 - rank;
const rt = await Runtime.create({ cpus: 1 });
const lib = new MpiData(rt, mpi);
const out: Record<string, unknown> = { rank, size: mpi.size, thread: mpi.threadLevel, spinError };
const scale = rt.codelet({
  name: 'scale',
  kernel: { module: new URL('./fixtures/mpi-kernels.ts', import.meta.url).href, export: 'scale' },
});

// 1. Blocking send/recv, tags out of order: rank 0 sends tag 2 then tag 1; rank 1 receives tag 1 first.
const a = new Float64Array(8).fill(rank === 0 ? 1 : 0);
const b = new Float64Array(8).fill(rank === 0 ? 2 : 0);
const da = rt.data(a, { name: 'a' });
const db = rt.data(b, { name: 'b' });
if (rank === 0) {
  rt.submit(scale, [[da, 'RW']], { args: [10] }); // a = 10: the send waits for this task
  const r2 = lib.isend(db, peer, 2);
  const r1 = lib.isend(da, peer, 1);
  await Promise.all([r1.wait(), r2.wait()]);
  out.isendDone = [r1.test(), r2.test()];
} else {
  const r1 = lib.irecv(da, peer, 1);
  out.testBefore = r1.test();
  await r1.wait();
  await lib.recv(db, peer, 2);
  await rt.sync();
  out.a = a[0];
  out.b = b[0];
}

// 2. A dup'ed communicator: a message on it does not match a receive on COMM_WORLD with the same tag.
const comm = mpi.dup();
const c = new Int32Array(4).fill(rank === 0 ? 7 : 0);
const w = new Int32Array(4).fill(rank === 0 ? 9 : 0);
const dc = rt.data(c, { name: 'c' });
const dw = rt.data(w, { name: 'w' });
if (rank === 0) {
  await lib.send(dc, peer, 5, comm);
  await lib.send(dw, peer, 5);
} else {
  const onWorld = lib.irecv(dw, peer, 5);
  await lib.recv(dc, peer, 5, comm);
  await onWorld.wait();
  await rt.sync();
  out.comm = [c[0], w[0]];
}

// 3. Array variants: three handles in one request.
const arr = [0, 1, 2].map((i) => new Float64Array(1000).fill(rank === 0 ? i + 1 : 0));
const ds = arr.map((x, i) => rt.data(x, { name: `arr${i}` }));
if (rank === 0) {
  await lib.arrayIsend(ds, peer, 7).wait();
} else {
  await lib.arrayIrecv(ds, peer, 7).wait();
  await rt.sync();
  out.array = arr.map((x) => x[999]);
}

// 4. Detached: receive, task on the data, send back; the task waits for the data to arrive.
const t = new Float64Array(4).fill(rank === 0 ? 3 : 0);
const dt = rt.data(t, { name: 't' });
if (rank === 0) {
  lib.sendDetached(dt, peer, 9);
  // A writer submitted after the send: held until the send completed, so the peer gets 3.
  rt.submit(scale, [[dt, 'RW']], { args: [100] });
  lib.recvDetached(dt, peer, 9);
  await rt.wait();
  await lib.flush();
  await rt.sync();
  out.detached = t[0]; // (3 * 2) back from rank 1
} else {
  let called = 0;
  lib.recvDetached(dt, peer, 9, undefined, () => called++);
  rt.submit(scale, [[dt, 'RW']], { args: [2] });
  lib.sendDetached(dt, peer, 9);
  await rt.wait();
  await lib.flush();
  out.callbacks = called;
}

// 5. A receive of the wrong size fails with one clear error.
const small = rt.data(new Float64Array(2), { name: 'small' });
const big = rt.data(new Float64Array(3), { name: 'big' });
if (rank === 0) {
  await lib.send(big, peer, 11).catch(() => {});
} else {
  try {
    await lib.recv(small, peer, 11);
    out.sizeError = 'none';
  } catch (e) {
    out.sizeError = e instanceof LocusError ? `${e.code}: ${e.message}` : String(e);
  }
}

// 6. Raw ping-pong through the polling loop: rank 1 echoes each counter + 1; a setImmediate
// queued at the start runs before the 5000 round trips end (polls chained as microtasks still
// yield to the event loop).
{
  const msg = new Int32Array(256);
  let immediateRan = false;
  setImmediate(() => {
    immediateRan = true;
  });
  let sum = 0;
  for (let i = 0; i < 5000; i++) {
    if (rank === 0) {
      msg[0] = i;
      await mpi.isend(msg, peer, 20).done;
      await mpi.irecv(msg, peer, 21).done;
      sum += msg[0]!;
    } else {
      const st = await mpi.irecv(msg, peer, 20).done;
      sum += st.bytes;
      msg[0] = msg[0]! + 1;
      await mpi.isend(msg, peer, 21).done;
    }
  }
  out.pingpong = { sum, immediateRan };
}

// 7. Raw blocking send/recv (no event-loop turn): 1000 round trips of a counter, then a
// receive of the wrong size, which throws one clear error.
{
  const msg = new Int32Array(4);
  let sum = 0;
  for (let i = 0; i < 1000; i++) {
    if (rank === 0) {
      msg[0] = i;
      mpi.send(msg, peer, 30);
      mpi.recv(msg, peer, 30);
      sum += msg[0]!;
    } else {
      sum += mpi.recv(msg, peer, 30).bytes;
      msg[0] = msg[0]! + 1;
      mpi.send(msg, peer, 30);
    }
  }
  let error = 'none';
  if (rank === 0) mpi.send(new Float64Array(3), peer, 31);
  else {
    try {
      mpi.recv(new Float64Array(2), peer, 31);
    } catch (e) {
      error = e instanceof LocusError ? `${e.code}: ${e.message}` : String(e);
    }
  }
  out.blocking = { sum, error };
}

await rt.close();
mpi.free(comm);
await mpi.finalize();
console.log(JSON.stringify(out));
