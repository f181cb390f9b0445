/* A wait cycle, for tests/watch: two communicators over the same ranks,
 * entered in opposite orders. Ranks 0 and 1 wait in MPI_Allreduce of
 * `first` for ranks 2 and 3, who wait in MPI_Allreduce of `second` for
 * ranks 0 and 1: a deadlock that never ends by itself. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm first, second;
  MPI_Comm_dup(MPI_COMM_WORLD, &first);
  MPI_Comm_dup(MPI_COMM_WORLD, &second);
  int x = rank, y = 0;
  for (int i = 0; i < 3; ++i) {
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, first);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, second);
  }
  printf("wait_cycle rank %d: before the cycle %d\n", rank, y);
  fflush(stdout);
  if (rank < 2) {
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, first);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, second);
  } else {
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, second);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, first);
  }
  printf("wait_cycle rank %d: never printed\n", rank);
  MPI_Finalize();
  return 0;
}
