/* The C baseline of bench/mpi-pingpong.ts: the same ping-pong as bench/mpi-pingpong-rank.ts,
 * with MPI_Irecv/MPI_Isend/MPI_Waitall, compiled with mpicc (same Open MPI as the addon).
 * Every round trip is timed on its own: besides the mean, rank 0 reports the median round trip
 * (robust to the preemptions of a shared machine, which stall a few round trips for
 * milliseconds and dominate the mean).
 * Usage: mpirun -np 2 ./pingpong LAT_ITERS BW_ITERS; rank 0 prints one JSON line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Seconds for `iters` round trips of `bytes`; each round trip's seconds in `each` (if set). */
static double pingpong(char* buf, int bytes, int iters, int rank, double* each) {
  int peer = 1 - rank;
  MPI_Request r[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    double ti = MPI_Wtime();
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
    if (each) each[i] = MPI_Wtime() - ti;
  }
  return MPI_Wtime() - t0;
}

static double median(double* xs, int n) {
  qsort(xs, n, sizeof(double), cmp);
  return xs[n / 2];
}

int main(int argc, char** argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int lat = argc > 1 ? atoi(argv[1]) : 2000, bw = argc > 2 ? atoi(argv[2]) : 20;
  int small = 1024, big = 16 << 20;
  char* buf = malloc(big);
  double* each = malloc(sizeof(double) * (lat > bw ? lat : bw));
  memset(buf, 1, big);
  pingpong(buf, small, lat / 10, rank, NULL); /* warm-up */
  double tl = pingpong(buf, small, lat, rank, each);
  double ml = median(each, lat);
  pingpong(buf, big, 2, rank, NULL);
  double tb = pingpong(buf, big, bw, rank, each);
  double mb = median(each, bw);
  if (rank == 0)
    printf("{\"latencyUs\":%.3f,\"latencyMedianUs\":%.3f,\"bandwidthMBs\":%.1f,\"bandwidthMedianMBs\":%.1f}\n",
           tl / lat / 2 * 1e6, ml / 2 * 1e6, 2.0 * big * bw / tb / 1e6, 2.0 * big / mb / 1e6);
  free(each);
  free(buf);
  MPI_Finalize();
  return 0;
}
