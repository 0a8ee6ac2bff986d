/* The C baseline of bench/mpi-pingpong.ts: the same ping-pong as bench/mpi-pingpong-rank.ts,
 * with MPI_Irecv/MPI_Isend/MPI_Waitall, compiled with mpicc (same Open MPI as the addon).
 * Usage: mpirun -np 2 ./pingpong LAT_ITERS BW_ITERS; rank 0 prints one JSON line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double pingpong(char* buf, int bytes, int iters, int rank) {
  int peer = 1 - rank;
  MPI_Request r[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (rank == 0) {
      MPI_Irecv(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
      MPI_Isend(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else {
      MPI_Irecv(buf, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r[0]);
      MPI_Wait(&r[0], MPI_STATUS_IGNORE);
      MPI_Isend(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
      MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    }
  }
  return MPI_Wtime() - t0;
}

int main(int argc, char** argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int lat = argc > 1 ? atoi(argv[1]) : 2000, bw = argc > 2 ? atoi(argv[2]) : 20;
  int small = 1024, big = 16 << 20;
  char* buf = malloc(big);
  memset(buf, 1, big);
  pingpong(buf, small, lat / 10, rank); /* warm-up */
  double tl = pingpong(buf, small, lat, rank);
  pingpong(buf, big, 2, rank);
  double tb = pingpong(buf, big, bw, rank);
  if (rank == 0)
    printf("{\"latencyUs\":%.3f,\"bandwidthMBs\":%.1f}\n", tl / lat / 2 * 1e6, 2.0 * big * bw / tb / 1e6);
  free(buf);
  MPI_Finalize();
  return 0;
}
