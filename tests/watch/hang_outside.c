/* A job that hangs with one rank outside MPI, for tests/watch: rank 2
 * leaves MPI after its MPI_Allreduce #5 of MPI_COMM_WORLD and stays out
 * (asleep) until the file named by $WATCH_TEST_WAKE exists (at most 120 s),
 * so the test ends the hang once the verdict is printed. Meanwhile rank 0
 * waits for it in MPI_Allreduce #5 of split(0,2) and ranks 1 and 3 in
 * MPI_Allreduce #6 of MPI_COMM_WORLD. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void outsideMpi(void) {
  const char* wake = getenv("WATCH_TEST_WAKE");
  for (int i = 0; i < 120 * 20 && wake && access(wake, F_OK) != 0; ++i) {
    struct timespec t = {0, 50 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm pair;  /* {0,2} and {1,3} */
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &pair);
  double x = rank + 1, world_sum = 0, pair_sum = 0;
  for (int i = 0; i < 5; ++i) {
    MPI_Allreduce(&x, &world_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &pair_sum, 1, MPI_DOUBLE, MPI_SUM, pair);
  }
  if (rank == 2) outsideMpi();
  MPI_Allreduce(&x, &pair_sum, 1, MPI_DOUBLE, MPI_SUM, pair);
  MPI_Allreduce(&x, &world_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  printf("hang_outside rank %d: world %.1f pair %.1f\n", rank, world_sum, pair_sum);
  MPI_Comm_free(&pair);
  MPI_Finalize();
  return 0;
}
