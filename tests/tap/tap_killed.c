/* The MPI tap when a rank is killed (tests/tap/tap_test.sh killed): three
 * MPI_Allreduce calls on every rank (rank r sends r * 1000 + i), then rank
 * 1 kills itself with SIGKILL and the others enter a fourth, which never
 * returns (mpirun ends the job). The capture must keep every call that
 * returned: rank 1's three, the others' three and their fourth in flight. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, a[4], b[4];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 4; ++i) a[i] = rank * 1000 + i;
  for (int k = 0; k < 3; ++k) MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("r%d three calls returned\n", rank);
  fflush(stdout);
  if (rank == 1) raise(SIGKILL);
  MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
