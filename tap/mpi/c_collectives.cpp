// The C bindings of the collectives, blocking and nonblocking: each forwards
// its arguments unchanged to PMPI and returns what PMPI returned; the tap
// records around it only while recording (tap_mpi.h).
#include "tap/mpi/tap_mpi.h"

using namespace collviz::tap;
using namespace collviz::tap::mpi;

#define BLOCKING(comm, describe, call, ...)                               \
  Active a = COLLVIZ_TAP_BEGIN(comm, 0, describe __VA_OPT__(,) __VA_ARGS__);           \
  const int rc = call;                                                    \
  end(a, rc);                                                             \
  return rc
#define NONBLOCKING(comm, req, describe, call, ...)                       \
  Active a = COLLVIZ_TAP_BEGIN(comm, kNonblocking, describe __VA_OPT__(,) __VA_ARGS__); \
  const int rc = call;                                                    \
  pending(a, rc, rc == MPI_SUCCESS && req ? *req : MPI_REQUEST_NULL);     \
  return rc

extern "C" {

int MPI_Barrier(MPI_Comm comm) { BLOCKING(comm, dBarrier, PMPI_Barrier(comm)); }
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* r) { NONBLOCKING(comm, r, dBarrier, PMPI_Ibarrier(comm, r)); }

int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm) {
  BLOCKING(comm, dBcast, PMPI_Bcast(b, n, t, root, comm), b, n, t, root);
}
int MPI_Ibcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dBcast, PMPI_Ibcast(b, n, t, root, comm, r), b, n, t, root);
}

int MPI_Reduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  BLOCKING(comm, dReduce, PMPI_Reduce(sb, rb, n, t, op, root, comm), sb, rb, n, t, op, root);
}
int MPI_Ireduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* r) {
  NONBLOCKING(comm, r, dReduce, PMPI_Ireduce(sb, rb, n, t, op, root, comm, r), sb, rb, n, t, op, root);
}

int MPI_Allreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  BLOCKING(comm, dAllreduce, PMPI_Allreduce(sb, rb, n, t, op, comm), sb, rb, n, t, op);
}
int MPI_Iallreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dAllreduce, PMPI_Iallreduce(sb, rb, n, t, op, comm, r), sb, rb, n, t, op);
}

int MPI_Gather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, int root,
               MPI_Comm comm) {
  BLOCKING(comm, dGather, PMPI_Gather(sb, sc, st, rb, rc_, rt, root, comm), sb, sc, st, rb, rc_, rt, root);
}
int MPI_Igather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, int root,
                MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dGather, PMPI_Igather(sb, sc, st, rb, rc_, rt, root, comm, r), sb, sc, st, rb, rc_, rt,
              root);
}

int MPI_Gatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int rcs[], const int d[], MPI_Datatype rt,
                int root, MPI_Comm comm) {
  BLOCKING(comm, dGatherv, PMPI_Gatherv(sb, sc, st, rb, rcs, d, rt, root, comm), sb, sc, st, rb, rcs, d, rt, root);
}
int MPI_Igatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int rcs[], const int d[],
                 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dGatherv, PMPI_Igatherv(sb, sc, st, rb, rcs, d, rt, root, comm, r), sb, sc, st, rb, rcs, d,
              rt, root);
}

int MPI_Scatter(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, int root,
                MPI_Comm comm) {
  BLOCKING(comm, dScatter, PMPI_Scatter(sb, sc, st, rb, rc_, rt, root, comm), sb, sc, st, rb, rc_, rt, root);
}
int MPI_Iscatter(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, int root,
                 MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dScatter, PMPI_Iscatter(sb, sc, st, rb, rc_, rt, root, comm, r), sb, sc, st, rb, rc_, rt,
              root);
}

int MPI_Scatterv(const void* sb, const int scs[], const int d[], MPI_Datatype st, void* rb, int rc_,
                 MPI_Datatype rt, int root, MPI_Comm comm) {
  BLOCKING(comm, dScatterv, PMPI_Scatterv(sb, scs, d, st, rb, rc_, rt, root, comm), sb, scs, d, st, rb, rc_, rt,
           root);
}
int MPI_Iscatterv(const void* sb, const int scs[], const int d[], MPI_Datatype st, void* rb, int rc_,
                  MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dScatterv, PMPI_Iscatterv(sb, scs, d, st, rb, rc_, rt, root, comm, r), sb, scs, d, st, rb,
              rc_, rt, root);
}

int MPI_Allgather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, MPI_Comm comm) {
  BLOCKING(comm, dAllgather, PMPI_Allgather(sb, sc, st, rb, rc_, rt, comm), sb, sc, st, rb, rc_, rt);
}
int MPI_Iallgather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request* r) {
  NONBLOCKING(comm, r, dAllgather, PMPI_Iallgather(sb, sc, st, rb, rc_, rt, comm, r), sb, sc, st, rb, rc_, rt);
}

int MPI_Allgatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int rcs[], const int d[],
                   MPI_Datatype rt, MPI_Comm comm) {
  BLOCKING(comm, dAllgatherv, PMPI_Allgatherv(sb, sc, st, rb, rcs, d, rt, comm), sb, sc, st, rb, rcs, d, rt);
}
int MPI_Iallgatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int rcs[], const int d[],
                    MPI_Datatype rt, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dAllgatherv, PMPI_Iallgatherv(sb, sc, st, rb, rcs, d, rt, comm, r), sb, sc, st, rb, rcs, d,
              rt);
}

int MPI_Alltoall(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, MPI_Comm comm) {
  BLOCKING(comm, dAlltoall, PMPI_Alltoall(sb, sc, st, rb, rc_, rt, comm), sb, sc, st, rb, rc_, rt);
}
int MPI_Ialltoall(const void* sb, int sc, MPI_Datatype st, void* rb, int rc_, MPI_Datatype rt, MPI_Comm comm,
                  MPI_Request* r) {
  NONBLOCKING(comm, r, dAlltoall, PMPI_Ialltoall(sb, sc, st, rb, rc_, rt, comm, r), sb, sc, st, rb, rc_, rt);
}

int MPI_Alltoallv(const void* sb, const int scs[], const int sd[], MPI_Datatype st, void* rb, const int rcs[],
                  const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  BLOCKING(comm, dAlltoallv, PMPI_Alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm), sb, scs, sd, st, rb, rcs, rd,
           rt);
}
int MPI_Ialltoallv(const void* sb, const int scs[], const int sd[], MPI_Datatype st, void* rb, const int rcs[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dAlltoallv, PMPI_Ialltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm, r), sb, scs, sd, st, rb,
              rcs, rd, rt);
}

int MPI_Alltoallw(const void* sb, const int scs[], const int sd[], const MPI_Datatype sts[], void* rb,
                  const int rcs[], const int rd[], const MPI_Datatype rts[], MPI_Comm comm) {
  BLOCKING(comm, dAlltoallw, PMPI_Alltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm), sb, scs, rb, rcs);
}
int MPI_Ialltoallw(const void* sb, const int scs[], const int sd[], const MPI_Datatype sts[], void* rb,
                   const int rcs[], const int rd[], const MPI_Datatype rts[], MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dAlltoallw, PMPI_Ialltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm, r), sb, scs, rb, rcs);
}

int MPI_Reduce_scatter(const void* sb, void* rb, const int rcs[], MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  BLOCKING(comm, dReduceScatter, PMPI_Reduce_scatter(sb, rb, rcs, t, op, comm), sb, rb, rcs, t, op);
}
int MPI_Ireduce_scatter(const void* sb, void* rb, const int rcs[], MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                        MPI_Request* r) {
  NONBLOCKING(comm, r, dReduceScatter, PMPI_Ireduce_scatter(sb, rb, rcs, t, op, comm, r), sb, rb, rcs, t, op);
}

int MPI_Reduce_scatter_block(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  BLOCKING(comm, dReduceScatterBlock, PMPI_Reduce_scatter_block(sb, rb, n, t, op, comm), sb, rb, n, t, op);
}
int MPI_Ireduce_scatter_block(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                              MPI_Request* r) {
  NONBLOCKING(comm, r, dReduceScatterBlock, PMPI_Ireduce_scatter_block(sb, rb, n, t, op, comm, r), sb, rb, n, t,
              op);
}

int MPI_Scan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  BLOCKING(comm, dScan, PMPI_Scan(sb, rb, n, t, op, comm), sb, rb, n, t, op, Func::scan);
}
int MPI_Iscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dScan, PMPI_Iscan(sb, rb, n, t, op, comm, r), sb, rb, n, t, op, Func::scan);
}

int MPI_Exscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  BLOCKING(comm, dScan, PMPI_Exscan(sb, rb, n, t, op, comm), sb, rb, n, t, op, Func::exscan);
}
int MPI_Iexscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* r) {
  NONBLOCKING(comm, r, dScan, PMPI_Iexscan(sb, rb, n, t, op, comm, r), sb, rb, n, t, op, Func::exscan);
}

}  // extern "C"
