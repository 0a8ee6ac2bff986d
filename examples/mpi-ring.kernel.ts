/** The MPI ring's kernel module (examples/mpi-ring.ts): the worker threads import it by URL. */

/** INCREMENT, accesses [token RW]: token[0] += 1. */
export function increment(data: readonly Int32Array[]): void {
  data[0]![0]! += 1;
}
