// The Fortran bindings of the collectives, blocking and nonblocking
// (fortran.h). A nonblocking call's request is kept by its C handle, so a
// Wait from either binding finishes it.
#include "tap/mpi/fortran.h"

using namespace collviz::tap;
using namespace collviz::tap::mpi;
using F = MPI_Fint;

#define FB(p) fortranBuf(p)
#define BLOCKING(lower, comm, describe, ...)                                       \
  COLLVIZ_FORTRAN_REAL(lower)                                                      \
  Active a = COLLVIZ_TAP_BEGIN(fComm(comm), kFortran, describe __VA_OPT__(,) __VA_ARGS__)
#define DONE end(a, *ierr)
#define STARTED pending(a, *ierr, *ierr == MPI_SUCCESS ? fRequest(req) : MPI_REQUEST_NULL)
#define NB (kFortran | kNonblocking)
#define NONBLOCKING(lower, comm, describe, ...)                                    \
  COLLVIZ_FORTRAN_REAL(lower)                                                      \
  Active a = COLLVIZ_TAP_BEGIN(fComm(comm), NB, describe __VA_OPT__(,) __VA_ARGS__)

COLLVIZ_FORTRAN(mpi_barrier, MPI_BARRIER, (F* c, F* ierr)) {
  BLOCKING(mpi_barrier, c, dBarrier);
  real_(c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ibarrier, MPI_IBARRIER, (F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ibarrier, c, dBarrier);
  real_(c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_bcast, MPI_BCAST, (void* b, F* n, F* t, F* root, F* c, F* ierr)) {
  BLOCKING(mpi_bcast, c, dBcast, FB(b), *n, fType(t), *root);
  real_(b, n, t, root, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ibcast, MPI_IBCAST, (void* b, F* n, F* t, F* root, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ibcast, c, dBcast, FB(b), *n, fType(t), *root);
  real_(b, n, t, root, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_reduce, MPI_REDUCE, (void* sb, void* rb, F* n, F* t, F* op, F* root, F* c, F* ierr)) {
  BLOCKING(mpi_reduce, c, dReduce, FB(sb), FB(rb), *n, fType(t), fOp(op), *root);
  real_(sb, rb, n, t, op, root, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ireduce, MPI_IREDUCE, (void* sb, void* rb, F* n, F* t, F* op, F* root, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ireduce, c, dReduce, FB(sb), FB(rb), *n, fType(t), fOp(op), *root);
  real_(sb, rb, n, t, op, root, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_allreduce, MPI_ALLREDUCE, (void* sb, void* rb, F* n, F* t, F* op, F* c, F* ierr)) {
  BLOCKING(mpi_allreduce, c, dAllreduce, FB(sb), FB(rb), *n, fType(t), fOp(op));
  real_(sb, rb, n, t, op, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_iallreduce, MPI_IALLREDUCE, (void* sb, void* rb, F* n, F* t, F* op, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_iallreduce, c, dAllreduce, FB(sb), FB(rb), *n, fType(t), fOp(op));
  real_(sb, rb, n, t, op, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_gather, MPI_GATHER,
                (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* root, F* c, F* ierr)) {
  BLOCKING(mpi_gather, c, dGather, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt), *root);
  real_(sb, sc, st, rb, rc, rt, root, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_igather, MPI_IGATHER,
                (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* root, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_igather, c, dGather, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt), *root);
  real_(sb, sc, st, rb, rc, rt, root, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_gatherv, MPI_GATHERV,
                (void* sb, F* sc, F* st, void* rb, F* rcs, F* d, F* rt, F* root, F* c, F* ierr)) {
  BLOCKING(mpi_gatherv, c, dGatherv, FB(sb), *sc, fType(st), FB(rb), rcs, d, fType(rt), *root);
  real_(sb, sc, st, rb, rcs, d, rt, root, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_igatherv, MPI_IGATHERV,
                (void* sb, F* sc, F* st, void* rb, F* rcs, F* d, F* rt, F* root, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_igatherv, c, dGatherv, FB(sb), *sc, fType(st), FB(rb), rcs, d, fType(rt), *root);
  real_(sb, sc, st, rb, rcs, d, rt, root, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_scatter, MPI_SCATTER,
                (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* root, F* c, F* ierr)) {
  BLOCKING(mpi_scatter, c, dScatter, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt), *root);
  real_(sb, sc, st, rb, rc, rt, root, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_iscatter, MPI_ISCATTER,
                (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* root, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_iscatter, c, dScatter, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt), *root);
  real_(sb, sc, st, rb, rc, rt, root, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_scatterv, MPI_SCATTERV,
                (void* sb, F* scs, F* d, F* st, void* rb, F* rc, F* rt, F* root, F* c, F* ierr)) {
  BLOCKING(mpi_scatterv, c, dScatterv, FB(sb), scs, d, fType(st), FB(rb), *rc, fType(rt), *root);
  real_(sb, scs, d, st, rb, rc, rt, root, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_iscatterv, MPI_ISCATTERV,
                (void* sb, F* scs, F* d, F* st, void* rb, F* rc, F* rt, F* root, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_iscatterv, c, dScatterv, FB(sb), scs, d, fType(st), FB(rb), *rc, fType(rt), *root);
  real_(sb, scs, d, st, rb, rc, rt, root, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_allgather, MPI_ALLGATHER, (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* c, F* ierr)) {
  BLOCKING(mpi_allgather, c, dAllgather, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt));
  real_(sb, sc, st, rb, rc, rt, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_iallgather, MPI_IALLGATHER,
                (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_iallgather, c, dAllgather, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt));
  real_(sb, sc, st, rb, rc, rt, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_allgatherv, MPI_ALLGATHERV,
                (void* sb, F* sc, F* st, void* rb, F* rcs, F* d, F* rt, F* c, F* ierr)) {
  BLOCKING(mpi_allgatherv, c, dAllgatherv, FB(sb), *sc, fType(st), FB(rb), rcs, d, fType(rt));
  real_(sb, sc, st, rb, rcs, d, rt, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_iallgatherv, MPI_IALLGATHERV,
                (void* sb, F* sc, F* st, void* rb, F* rcs, F* d, F* rt, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_iallgatherv, c, dAllgatherv, FB(sb), *sc, fType(st), FB(rb), rcs, d, fType(rt));
  real_(sb, sc, st, rb, rcs, d, rt, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_alltoall, MPI_ALLTOALL, (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* c, F* ierr)) {
  BLOCKING(mpi_alltoall, c, dAlltoall, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt));
  real_(sb, sc, st, rb, rc, rt, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ialltoall, MPI_IALLTOALL,
                (void* sb, F* sc, F* st, void* rb, F* rc, F* rt, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ialltoall, c, dAlltoall, FB(sb), *sc, fType(st), FB(rb), *rc, fType(rt));
  real_(sb, sc, st, rb, rc, rt, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_alltoallv, MPI_ALLTOALLV,
                (void* sb, F* scs, F* sd, F* st, void* rb, F* rcs, F* rd, F* rt, F* c, F* ierr)) {
  BLOCKING(mpi_alltoallv, c, dAlltoallv, FB(sb), scs, sd, fType(st), FB(rb), rcs, rd, fType(rt));
  real_(sb, scs, sd, st, rb, rcs, rd, rt, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ialltoallv, MPI_IALLTOALLV,
                (void* sb, F* scs, F* sd, F* st, void* rb, F* rcs, F* rd, F* rt, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ialltoallv, c, dAlltoallv, FB(sb), scs, sd, fType(st), FB(rb), rcs, rd, fType(rt));
  real_(sb, scs, sd, st, rb, rcs, rd, rt, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_alltoallw, MPI_ALLTOALLW,
                (void* sb, F* scs, F* sd, F* sts, void* rb, F* rcs, F* rd, F* rts, F* c, F* ierr)) {
  BLOCKING(mpi_alltoallw, c, dAlltoallw, FB(sb), scs, FB(rb), rcs);
  real_(sb, scs, sd, sts, rb, rcs, rd, rts, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ialltoallw, MPI_IALLTOALLW,
                (void* sb, F* scs, F* sd, F* sts, void* rb, F* rcs, F* rd, F* rts, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ialltoallw, c, dAlltoallw, FB(sb), scs, FB(rb), rcs);
  real_(sb, scs, sd, sts, rb, rcs, rd, rts, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_reduce_scatter, MPI_REDUCE_SCATTER, (void* sb, void* rb, F* rcs, F* t, F* op, F* c, F* ierr)) {
  BLOCKING(mpi_reduce_scatter, c, dReduceScatter, FB(sb), FB(rb), rcs, fType(t), fOp(op));
  real_(sb, rb, rcs, t, op, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER,
                (void* sb, void* rb, F* rcs, F* t, F* op, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ireduce_scatter, c, dReduceScatter, FB(sb), FB(rb), rcs, fType(t), fOp(op));
  real_(sb, rb, rcs, t, op, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
                (void* sb, void* rb, F* n, F* t, F* op, F* c, F* ierr)) {
  BLOCKING(mpi_reduce_scatter_block, c, dReduceScatterBlock, FB(sb), FB(rb), *n, fType(t), fOp(op));
  real_(sb, rb, n, t, op, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK,
                (void* sb, void* rb, F* n, F* t, F* op, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_ireduce_scatter_block, c, dReduceScatterBlock, FB(sb), FB(rb), *n, fType(t), fOp(op));
  real_(sb, rb, n, t, op, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_scan, MPI_SCAN, (void* sb, void* rb, F* n, F* t, F* op, F* c, F* ierr)) {
  BLOCKING(mpi_scan, c, dScan, FB(sb), FB(rb), *n, fType(t), fOp(op), Func::scan);
  real_(sb, rb, n, t, op, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_iscan, MPI_ISCAN, (void* sb, void* rb, F* n, F* t, F* op, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_iscan, c, dScan, FB(sb), FB(rb), *n, fType(t), fOp(op), Func::scan);
  real_(sb, rb, n, t, op, c, req, ierr);
  STARTED;
}

COLLVIZ_FORTRAN(mpi_exscan, MPI_EXSCAN, (void* sb, void* rb, F* n, F* t, F* op, F* c, F* ierr)) {
  BLOCKING(mpi_exscan, c, dScan, FB(sb), FB(rb), *n, fType(t), fOp(op), Func::exscan);
  real_(sb, rb, n, t, op, c, ierr);
  DONE;
}
COLLVIZ_FORTRAN(mpi_iexscan, MPI_IEXSCAN, (void* sb, void* rb, F* n, F* t, F* op, F* c, F* req, F* ierr)) {
  NONBLOCKING(mpi_iexscan, c, dScan, FB(sb), FB(rb), *n, fType(t), fOp(op), Func::exscan);
  real_(sb, rb, n, t, op, c, req, ierr);
  STARTED;
}
