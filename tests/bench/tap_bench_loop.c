/* The MPI tap's cost per call (tests/bench/tap_bench.sh): an 8-byte
 * MPI_Allreduce (one double, MPI_SUM) back to back, timed in batches of
 * `per` calls after a warm-up; prints the median over the batches of the
 * slowest rank's microseconds per call.
 *   usage: tap-bench-loop [batches (50)] [per (1000)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int batches = argc > 1 ? atoi(argv[1]) : 50, per = argc > 2 ? atoi(argv[2]) : 1000;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double x = rank, y = 0;
  for (int i = 0; i < per; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double* us = malloc(sizeof(double) * (size_t)batches);
  for (int b = 0; b < batches; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < per; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double mine = (MPI_Wtime() - t0) * 1e6 / per;
    MPI_Allreduce(&mine, &us[b], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  qsort(us, (size_t)batches, sizeof(double), cmp);
  if (rank == 0) printf("allreduce 8 B on %d ranks: median %.3f us a call (%d batches of %d)\n", size, us[batches / 2], batches, per);
  free(us);
  MPI_Finalize();
  return 0;
}
