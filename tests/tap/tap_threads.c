/* The MPI tap under MPI_THREAD_MULTIPLE (tests/tap/tap_test.sh threads):
 * 4 threads a rank, each with its own duplicate of MPI_COMM_WORLD, each
 * making 200 MPI_Allreduce calls at once with the others (thread t of rank
 * r sends r * 1000 + t * 100 + k at its call k). The capture must hold
 * every call of every thread, numbered in order on its communicator, with
 * its bytes. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 4, kCalls = 200 };
static MPI_Comm comms[kThreads];
static int rank, bad;

static void* run(void* arg) {
  const int t = (int)(long)arg;
  for (int k = 0; k < kCalls; ++k) {
    int x = rank * 1000 + t * 100 + k, y = 0, size = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comms[t]);
    MPI_Comm_size(comms[t], &size);
    if (y != (size * (size - 1) / 2) * 1000 + size * (t * 100 + k)) __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    printf("r%d no MPI_THREAD_MULTIPLE\n", rank);
    MPI_Finalize();
    return 0;
  }
  for (int t = 0; t < kThreads; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  pthread_t th[kThreads];
  for (int t = 0; t < kThreads; ++t) pthread_create(&th[t], NULL, run, (void*)(long)t);
  for (int t = 0; t < kThreads; ++t) pthread_join(th[t], NULL);
  printf("r%d %d threads x %d calls, %d wrong\n", rank, kThreads, kCalls, bad);
  for (int t = 0; t < kThreads; ++t) MPI_Comm_free(&comms[t]);
  MPI_Finalize();
  return 0;
}
