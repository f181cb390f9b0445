/* A job that loses a rank mid-run, for tests/watch: after 8 MPI_Allreduce
 * on MPI_COMM_WORLD, ranks 0, 1 and 3 tell rank 2 (a point-to-point message:
 * they have returned from all 8) and enter MPI_Barrier; rank 2 waits for
 * the three messages and kills itself with SIGKILL. Every call that
 * returned before the kill must be in the capture. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long x = rank + 1, y = 0;
  for (int i = 0; i < 8; ++i) {
    MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    x += y % 7;
  }
  printf("lose_rank rank %d: %ld\n", rank, y);
  fflush(stdout);
  if (rank == 2) {
    for (int from = 0; from < size; ++from) {
      if (from == 2) continue;
      int token = 0;
      MPI_Recv(&token, 1, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    raise(SIGKILL);
  }
  int token = 1;
  MPI_Send(&token, 1, MPI_INT, 2, 7, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("lose_rank rank %d: never printed\n", rank);
  MPI_Finalize();
  return 0;
}
