/* The MPI tap's test program (tests/tap/tap_test.sh): every collective the
 * tap records, in a fixed order that tap_check.cpp restates, on values it
 * can compute: rank r's element i is v(r, i) = r * 1000 + i. Blocking and
 * nonblocking, in place, derived types, a user-defined op, a split and a
 * dup communicator, MPI_COMM_SELF. Each rank prints what it received, one
 * line per call ("r<rank> <call> <values>"); the output must be the same
 * with the tap as without. Written for 4 ranks (any N >= 4 works). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static int v(int r, int i) { return r * 1000 + i; }

static void show(const char* what, const int* a, int n) {
  printf("r%d %s", rank, what);
  for (int i = 0; i < n; ++i) printf(" %d", a[i]);
  printf("\n");
}

static void add(void* in, void* inout, int* n, MPI_Datatype* t) {
  (void)t;
  for (int i = 0; i < *n; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int N = size;
  int a[64], b[64], c[64], counts[64], displs[64];
  double d[8], e[8];
  MPI_Datatype types[64];

  MPI_Barrier(MPI_COMM_WORLD);                                   /* 0 */
  for (int i = 0; i < 8; ++i) a[i] = rank == 1 ? v(1, i) : -1;
  MPI_Bcast(a, 8, MPI_INT, 1, MPI_COMM_WORLD);                   /* 1 */
  show("bcast", a, 8);
  for (int i = 0; i < 8; ++i) a[i] = v(rank, i), b[i] = -1;
  MPI_Reduce(a, b, 8, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);      /* 2 */
  if (rank == 0) show("reduce", b, 8);
  for (int i = 0; i < 8; ++i) d[i] = v(rank, i);
  MPI_Allreduce(d, e, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);   /* 3 */
  for (int i = 0; i < 8; ++i) b[i] = (int)e[i];
  show("allreduce", b, 8);
  for (int i = 0; i < 8; ++i) b[i] = v(rank, i);
  MPI_Allreduce(MPI_IN_PLACE, b, 8, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* 4 */
  show("allreduce_in_place", b, 8);
  for (int i = 0; i < 2; ++i) a[i] = v(rank, i);
  MPI_Gather(a, 2, MPI_INT, b, 2, MPI_INT, 2, MPI_COMM_WORLD);   /* 5 */
  if (rank == 2) show("gather", b, 2 * N);
  for (int r = 0, at = 0; r < N; at += r + 1, ++r) counts[r] = r + 1, displs[r] = at;
  for (int i = 0; i <= rank; ++i) a[i] = v(rank, i);
  MPI_Gatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD); /* 6 */
  if (rank == 0) show("gatherv", b, displs[N - 1] + N);
  for (int i = 0; i < 2 * N; ++i) a[i] = v(3, i);
  MPI_Scatter(a, 2, MPI_INT, b, 2, MPI_INT, 3, MPI_COMM_WORLD);  /* 7 */
  show("scatter", b, 2);
  for (int i = 0; i < displs[N - 1] + N; ++i) a[i] = v(0, i);
  MPI_Scatterv(a, counts, displs, MPI_INT, b, rank + 1, MPI_INT, 0, MPI_COMM_WORLD); /* 8 */
  show("scatterv", b, rank + 1);
  for (int i = 0; i < 2; ++i) a[i] = v(rank, i);
  MPI_Allgather(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD);   /* 9 */
  show("allgather", b, 2 * N);
  for (int i = 0; i <= rank; ++i) a[i] = v(rank, i);
  MPI_Allgatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD); /* 10 */
  show("allgatherv", b, displs[N - 1] + N);
  for (int j = 0; j < N; ++j) a[j] = v(rank, j);
  MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);    /* 11 */
  show("alltoall", b, N);
  int ones[64], steps[64];
  for (int j = 0; j < N; ++j) ones[j] = 1, steps[j] = j, types[j] = MPI_INT, c[j] = j * (int)sizeof(int);
  MPI_Alltoallv(a, ones, steps, MPI_INT, b, ones, steps, MPI_INT, MPI_COMM_WORLD); /* 12 */
  show("alltoallv", b, N);
  MPI_Alltoallw(a, ones, c, types, b, ones, c, types, MPI_COMM_WORLD); /* 13 */
  show("alltoallw", b, N);
  for (int i = 0; i < 2 * N; ++i) a[i] = v(rank, i);
  for (int j = 0; j < N; ++j) counts[j] = 2;
  MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* 14 */
  show("reduce_scatter", b, 2);
  MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* 15 */
  show("reduce_scatter_block", b, 2);
  for (int i = 0; i < 4; ++i) a[i] = v(rank, i);
  MPI_Scan(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);           /* 16 */
  show("scan", b, 4);
  MPI_Exscan(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);         /* 17 */
  if (rank > 0) show("exscan", b, 4);

  MPI_Datatype every_other, pair;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (int i = 0; i < 8; ++i) a[i] = rank == 0 ? v(0, i) : -1;
  MPI_Bcast(a, 1, every_other, 0, MPI_COMM_WORLD);               /* 18 */
  show("bcast_vector", a, 8);
  MPI_Type_free(&every_other);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  for (int i = 0; i < 2; ++i) a[i] = v(rank, i);
  MPI_Allgather(a, 1, pair, b, 1, pair, MPI_COMM_WORLD);         /* 19 */
  show("allgather_pair", b, 2 * N);
  MPI_Type_free(&pair);
  MPI_Op mine;
  MPI_Op_create(add, 1, &mine);
  for (int i = 0; i < 4; ++i) a[i] = v(rank, i);
  MPI_Allreduce(a, b, 4, MPI_INT, mine, MPI_COMM_WORLD);         /* 20 */
  show("allreduce_user_op", b, 4);
  MPI_Op_free(&mine);

  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, half);                /* 21 */
  show("split_allreduce", b, 4);
  MPI_Bcast(b, 4, MPI_INT, 0, half);                             /* 22 */
  show("split_bcast", b, 4);
  MPI_Comm_free(&half);

  MPI_Request rq[4];
  int flag = 0, index = 0;
  MPI_Iallreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]); /* 23 */
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  show("iallreduce", b, 4);
  for (int i = 0; i < 4; ++i) c[i] = rank == 2 ? v(2, i) : -1;
  MPI_Ibcast(c, 4, MPI_INT, 2, MPI_COMM_WORLD, &rq[0]);          /* 24 */
  while (!flag) MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
  show("ibcast", c, 4);
  MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);                          /* 25 */
  MPI_Iallgather(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD, &rq[1]); /* 26 */
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  show("iallgather", b, 2 * N);
  for (int i = 0; i < 4; ++i) c[i] = -1;
  MPI_Ireduce(a, c, 4, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD, &rq[0]); /* 27 */
  MPI_Waitany(1, rq, &index, MPI_STATUS_IGNORE);
  if (rank == 1) show("ireduce", c, 4);
  MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);       /* 28 */
  show("self_allreduce", b, 1);
  MPI_Comm twin;
  MPI_Comm_dup(MPI_COMM_WORLD, &twin);
  MPI_Barrier(twin);                                             /* 29 */
  MPI_Comm_free(&twin);
  MPI_Finalize();
  return 0;
}
