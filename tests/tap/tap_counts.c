/* The MPI tap's counts where they differ from rank to rank (issue 56, round
 * four: each was planted wrong in tap/mpi/describe.cpp, and tap_prog.c,
 * whose ranks all pass equal counts and never gather in place with a
 * v-form or make an intercommunicator, caught none of them). Rank r of N:
 *   0  MPI_Reduce_scatter, rank q receiving q + 1 ints of the sum
 *   1  MPI_Gatherv to rank 0, rank q sending q + 1 ints
 *   2  MPI_Allgatherv in place, rank q's q + 1 ints at its displacement
 *   3  MPI_Barrier on an intercommunicator between the even and the odd
 *      ranks (its id, made without communication, must be the same on all)
 * Rank r's element i is r * 1000 + i (tap_counts_check.cpp computes the same). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int v(int r, int i) { return r * 1000 + i; }

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int total = size * (size + 1) / 2;
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int* a = malloc(sizeof(int) * (size_t)total);
  int* b = malloc(sizeof(int) * (size_t)total);
  for (int q = 0, at = 0; q < size; at += q + 1, ++q) counts[q] = q + 1, displs[q] = at;
  for (int i = 0; i < total; ++i) a[i] = v(rank, i);
  MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* 0 */
  MPI_Gatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD); /* 1 */
  for (int i = 0; i < total; ++i) b[i] = -1;
  for (int j = 0; j <= rank; ++j) b[displs[rank] + j] = v(rank, j);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, MPI_COMM_WORLD); /* 2 */
  printf("rank %d: allgatherv in place: %d .. %d\n", rank, b[0], b[total - 1]);
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  MPI_Barrier(inter); /* 3 */
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  free(counts), free(displs), free(a), free(b);
  MPI_Finalize();
  return 0;
}
