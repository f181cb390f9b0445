/* An independent count of a program's MPI collectives, for tests/watch:
 * preloaded into the ranks in place of collviz's tap (LD_PRELOAD), it wraps
 * the C functions through PMPI and the Fortran ones (mpif.h and `use mpi`:
 * Open MPI's Fortran bindings call PMPI_ directly) through the next
 * library's symbol, and writes one line per entry ("E MPI_Allreduce") and
 * per return ("X MPI_Allreduce") to $PMPI_COUNT_OUT/count-<pid>.txt, each
 * with write() at once, so a rank killed outright keeps every line of the
 * calls it made. Nothing here shares code with the tap. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_fd = -1;

static void say(const char* kind, const char* name) {
  if (g_fd < 0) {
    const char* dir = getenv("PMPI_COUNT_OUT");
    if (!dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/count-%d.txt", dir, (int)getpid());
    g_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (g_fd < 0) return;
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char line[64];
    int n = snprintf(line, sizeof line, "rank %d\n", rank);
    if (write(g_fd, line, (size_t)n) != n) return;
  }
  char line[128];
  int n = snprintf(line, sizeof line, "%s %s\n", kind, name);
  if (write(g_fd, line, (size_t)n) != n) return;
}

#define COUNTED(NAME, CALL) \
  do {                      \
    say("E", NAME);         \
    int rc_ = CALL;         \
    say("X", NAME);         \
    return rc_;             \
  } while (0)

/* ---- C, blocking ---- */
int MPI_Barrier(MPI_Comm c) { COUNTED("MPI_Barrier", PMPI_Barrier(c)); }
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) { COUNTED("MPI_Bcast", PMPI_Bcast(b, n, t, root, c)); }
int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c) {
  COUNTED("MPI_Reduce", PMPI_Reduce(s, r, n, t, o, root, c));
}
int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) {
  COUNTED("MPI_Allreduce", PMPI_Allreduce(s, r, n, t, o, c));
}
int MPI_Gather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root, MPI_Comm c) {
  COUNTED("MPI_Gather", PMPI_Gather(s, sn, st, r, rn, rt, root, c));
}
int MPI_Gatherv(const void* s, int sn, MPI_Datatype st, void* r, const int rn[], const int d[], MPI_Datatype rt, int root,
                MPI_Comm c) {
  COUNTED("MPI_Gatherv", PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c));
}
int MPI_Scatter(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root, MPI_Comm c) {
  COUNTED("MPI_Scatter", PMPI_Scatter(s, sn, st, r, rn, rt, root, c));
}
int MPI_Scatterv(const void* s, const int sn[], const int d[], MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
                 MPI_Comm c) {
  COUNTED("MPI_Scatterv", PMPI_Scatterv(s, sn, d, st, r, rn, rt, root, c));
}
int MPI_Allgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c) {
  COUNTED("MPI_Allgather", PMPI_Allgather(s, sn, st, r, rn, rt, c));
}
int MPI_Allgatherv(const void* s, int sn, MPI_Datatype st, void* r, const int rn[], const int d[], MPI_Datatype rt,
                   MPI_Comm c) {
  COUNTED("MPI_Allgatherv", PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c));
}
int MPI_Alltoall(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c) {
  COUNTED("MPI_Alltoall", PMPI_Alltoall(s, sn, st, r, rn, rt, c));
}
int MPI_Alltoallv(const void* s, const int sn[], const int sd[], MPI_Datatype st, void* r, const int rn[], const int rd[],
                  MPI_Datatype rt, MPI_Comm c) {
  COUNTED("MPI_Alltoallv", PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c));
}
int MPI_Alltoallw(const void* s, const int sn[], const int sd[], const MPI_Datatype st[], void* r, const int rn[],
                  const int rd[], const MPI_Datatype rt[], MPI_Comm c) {
  COUNTED("MPI_Alltoallw", PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, c));
}
int MPI_Reduce_scatter(const void* s, void* r, const int rn[], MPI_Datatype t, MPI_Op o, MPI_Comm c) {
  COUNTED("MPI_Reduce_scatter", PMPI_Reduce_scatter(s, r, rn, t, o, c));
}
int MPI_Reduce_scatter_block(const void* s, void* r, int rn, MPI_Datatype t, MPI_Op o, MPI_Comm c) {
  COUNTED("MPI_Reduce_scatter_block", PMPI_Reduce_scatter_block(s, r, rn, t, o, c));
}
int MPI_Scan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) { COUNTED("MPI_Scan", PMPI_Scan(s, r, n, t, o, c)); }
int MPI_Exscan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) {
  COUNTED("MPI_Exscan", PMPI_Exscan(s, r, n, t, o, c));
}

/* ---- C, nonblocking: counted at the call (their completion is the tap's
 * business; the tests compare entries for these) ---- */
int MPI_Ibarrier(MPI_Comm c, MPI_Request* q) { COUNTED("MPI_Ibarrier", PMPI_Ibarrier(c, q)); }
int MPI_Ibcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* q) {
  COUNTED("MPI_Ibcast", PMPI_Ibcast(b, n, t, root, c, q));
}
int MPI_Iallreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request* q) {
  COUNTED("MPI_Iallreduce", PMPI_Iallreduce(s, r, n, t, o, c, q));
}
int MPI_Ireduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c, MPI_Request* q) {
  COUNTED("MPI_Ireduce", PMPI_Ireduce(s, r, n, t, o, root, c, q));
}
int MPI_Iallgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c, MPI_Request* q) {
  COUNTED("MPI_Iallgather", PMPI_Iallgather(s, sn, st, r, rn, rt, c, q));
}
int MPI_Ialltoall(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, MPI_Comm c, MPI_Request* q) {
  COUNTED("MPI_Ialltoall", PMPI_Ialltoall(s, sn, st, r, rn, rt, c, q));
}

/* ---- Fortran (mpif.h and `use mpi`): every argument by reference ---- */
#define P void*
#define FORTRAN(sym, NAME, PARAMS, ARGS)                              \
  void sym PARAMS {                                                   \
    static void (*next) PARAMS;                                       \
    if (!next) *(void**)&next = dlsym(RTLD_NEXT, #sym);               \
    say("E", NAME);                                                   \
    next ARGS;                                                        \
    say("X", NAME);                                                   \
  }
FORTRAN(mpi_barrier_, "MPI_Barrier", (P c, P e), (c, e))
FORTRAN(mpi_bcast_, "MPI_Bcast", (P b, P n, P t, P r, P c, P e), (b, n, t, r, c, e))
FORTRAN(mpi_reduce_, "MPI_Reduce", (P s, P r, P n, P t, P o, P root, P c, P e), (s, r, n, t, o, root, c, e))
FORTRAN(mpi_allreduce_, "MPI_Allreduce", (P s, P r, P n, P t, P o, P c, P e), (s, r, n, t, o, c, e))
FORTRAN(mpi_gather_, "MPI_Gather", (P s, P sn, P st, P r, P rn, P rt, P root, P c, P e), (s, sn, st, r, rn, rt, root, c, e))
FORTRAN(mpi_gatherv_, "MPI_Gatherv", (P s, P sn, P st, P r, P rn, P d, P rt, P root, P c, P e),
        (s, sn, st, r, rn, d, rt, root, c, e))
FORTRAN(mpi_scatter_, "MPI_Scatter", (P s, P sn, P st, P r, P rn, P rt, P root, P c, P e), (s, sn, st, r, rn, rt, root, c, e))
FORTRAN(mpi_scatterv_, "MPI_Scatterv", (P s, P sn, P d, P st, P r, P rn, P rt, P root, P c, P e),
        (s, sn, d, st, r, rn, rt, root, c, e))
FORTRAN(mpi_allgather_, "MPI_Allgather", (P s, P sn, P st, P r, P rn, P rt, P c, P e), (s, sn, st, r, rn, rt, c, e))
FORTRAN(mpi_allgatherv_, "MPI_Allgatherv", (P s, P sn, P st, P r, P rn, P d, P rt, P c, P e), (s, sn, st, r, rn, d, rt, c, e))
FORTRAN(mpi_alltoall_, "MPI_Alltoall", (P s, P sn, P st, P r, P rn, P rt, P c, P e), (s, sn, st, r, rn, rt, c, e))
FORTRAN(mpi_alltoallv_, "MPI_Alltoallv", (P s, P sn, P sd, P st, P r, P rn, P rd, P rt, P c, P e),
        (s, sn, sd, st, r, rn, rd, rt, c, e))
FORTRAN(mpi_reduce_scatter_, "MPI_Reduce_scatter", (P s, P r, P rn, P t, P o, P c, P e), (s, r, rn, t, o, c, e))
FORTRAN(mpi_reduce_scatter_block_, "MPI_Reduce_scatter_block", (P s, P r, P rn, P t, P o, P c, P e), (s, r, rn, t, o, c, e))
FORTRAN(mpi_scan_, "MPI_Scan", (P s, P r, P n, P t, P o, P c, P e), (s, r, n, t, o, c, e))
FORTRAN(mpi_exscan_, "MPI_Exscan", (P s, P r, P n, P t, P o, P c, P e), (s, r, n, t, o, c, e))
