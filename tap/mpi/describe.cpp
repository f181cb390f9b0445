// Each collective as the tap records it: what this process sends ("in") and
// receives ("out"), and which part of each buffer is kept. Only the
// arguments significant at this process are looked at (a non-root's receive
// type may be anything). With MPI_IN_PLACE the input is this process's own
// part of the receive buffer at entry. On an intercommunicator the root is
// MPI_ROOT (this process), MPI_PROC_NULL (its group's others) or a rank of
// the other group, and "the others" are the remote group.
#include "tap/mpi/tap_mpi.h"

namespace collviz::tap::mpi {
namespace {

std::int64_t typeSize(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return 0;
  int s = 0;
  return PMPI_Type_size(t, &s) == MPI_SUCCESS ? s : 0;
}
std::int64_t typeExtent(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return 0;
  MPI_Aint lb = 0, extent = 0;
  return PMPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS ? extent : 0;
}
Buf buf(const void* p, std::int64_t count, MPI_Datatype t) { return Buf{count > 0 ? p : nullptr, count, t}; }
// Element `at` (of `t`) of the buffer at p.
const void* slot(const void* p, std::int64_t at, MPI_Datatype t) {
  return static_cast<const char*>(p) + at * typeExtent(t);
}
std::int64_t sum(const int* n, int k) {
  std::int64_t s = 0;
  for (int i = 0; n && i < k; ++i) s += n[i];
  return s;
}
// The elements a v-form's buffer spans from its start: max(displ + count).
std::int64_t span(const int* n, const int* d, int k) {
  std::int64_t s = 0;
  for (int i = 0; n && d && i < k; ++i)
    if (n[i] > 0 && std::int64_t(d[i]) + n[i] > s) s = std::int64_t(d[i]) + n[i];
  return s;
}
bool isRoot(const CommInfo& c, int root) { return c.inter ? root == MPI_ROOT : root == c.rank; }
// On an intercommunicator, a process of the root's group other than the root.
bool idle(const CommInfo& c, int root) { return c.inter && root == MPI_PROC_NULL; }
int peers(const CommInfo& c) { return c.inter ? c.remote_size : c.size; }

Desc base(Func f, MPI_Datatype t, MPI_Op op, int root) {
  Desc d;
  d.func = f, d.dtype = t, d.op = op, d.root = root;
  return d;
}

// Allreduce, Scan, Exscan.
Desc reduceLike(Func f, const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op) {
  Desc d = base(f, t, op, -1);
  const bool in_place = sb == MPI_IN_PLACE;
  d.flags = in_place ? kInPlace : 0;
  d.in_bytes = d.out_bytes = count * typeSize(t);
  d.in = buf(in_place ? rb : sb, count, t);
  d.out = buf(rb, count, t);
  return d;
}

}  // namespace

Desc dBarrier(const CommInfo&) { return base(Func::barrier, MPI_DATATYPE_NULL, MPI_OP_NULL, -1); }

Desc dBcast(const CommInfo& c, void* b, int count, MPI_Datatype t, int root) {
  Desc d = base(Func::bcast, t, MPI_OP_NULL, root);
  if (idle(c, root)) return d.dtype = MPI_DATATYPE_NULL, d;
  if (isRoot(c, root))
    d.in_bytes = count * typeSize(t), d.in = buf(b, count, t);
  else
    d.out_bytes = count * typeSize(t), d.out = buf(b, count, t);
  return d;
}

Desc dReduce(const CommInfo& c, const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op, int root) {
  Desc d = base(Func::reduce, t, op, root);
  if (idle(c, root)) return d.dtype = MPI_DATATYPE_NULL, d;
  const std::int64_t bytes = count * typeSize(t);
  if (isRoot(c, root)) {
    d.out_bytes = bytes, d.out = buf(rb, count, t);
    if (c.inter) return d;  // the other group sends
    const bool in_place = sb == MPI_IN_PLACE;
    d.flags = in_place ? kInPlace : 0;
    d.in_bytes = bytes, d.in = buf(in_place ? rb : sb, count, t);
  } else {
    d.in_bytes = bytes, d.in = buf(sb, count, t);
  }
  return d;
}

Desc dAllreduce(const CommInfo&, const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op) {
  return reduceLike(Func::allreduce, sb, rb, count, t, op);
}

Desc dScan(const CommInfo&, const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op, Func f) {
  return reduceLike(f, sb, rb, count, t, op);
}

Desc dGather(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
             int root) {
  Desc d = base(Func::gather, st, MPI_OP_NULL, root);
  if (idle(c, root)) return d.dtype = MPI_DATATYPE_NULL, d;
  if (isRoot(c, root)) {
    d.dtype = rt;
    d.out_bytes = std::int64_t(rc) * peers(c) * typeSize(rt), d.out = buf(rb, std::int64_t(rc) * peers(c), rt);
    if (c.inter) return d;
    if (sb == MPI_IN_PLACE) {
      d.flags = kInPlace;
      d.in_bytes = rc * typeSize(rt), d.in = buf(slot(rb, std::int64_t(root) * rc, rt), rc, rt);
      return d;
    }
  }
  d.in_bytes = sc * typeSize(st), d.in = buf(sb, sc, st);
  return d;
}

Desc dGatherv(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs,
              const int* displs, MPI_Datatype rt, int root) {
  Desc d = base(Func::gatherv, st, MPI_OP_NULL, root);
  if (idle(c, root)) return d.dtype = MPI_DATATYPE_NULL, d;
  if (isRoot(c, root)) {
    d.dtype = rt;
    d.out_bytes = sum(rcs, peers(c)) * typeSize(rt), d.out = buf(rb, span(rcs, displs, peers(c)), rt);
    if (c.inter) return d;
    if (sb == MPI_IN_PLACE) {
      d.flags = kInPlace;
      const int n = rcs ? rcs[root] : 0;
      d.in_bytes = n * typeSize(rt), d.in = buf(slot(rb, displs ? displs[root] : 0, rt), n, rt);
      return d;
    }
  }
  d.in_bytes = sc * typeSize(st), d.in = buf(sb, sc, st);
  return d;
}

Desc dScatter(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
              int root) {
  Desc d = base(Func::scatter, rt, MPI_OP_NULL, root);
  if (idle(c, root)) return d.dtype = MPI_DATATYPE_NULL, d;
  if (isRoot(c, root)) {
    d.dtype = st;
    d.in_bytes = std::int64_t(sc) * peers(c) * typeSize(st), d.in = buf(sb, std::int64_t(sc) * peers(c), st);
    if (c.inter) return d;
    if (rb == MPI_IN_PLACE) return d.flags = kInPlace, d;  // the root keeps its part where it is
  }
  d.out_bytes = rc * typeSize(rt), d.out = buf(rb, rc, rt);
  return d;
}

Desc dScatterv(const CommInfo& c, const void* sb, const int* scs, const int* displs, MPI_Datatype st, void* rb,
               int rc, MPI_Datatype rt, int root) {
  Desc d = base(Func::scatterv, rt, MPI_OP_NULL, root);
  if (idle(c, root)) return d.dtype = MPI_DATATYPE_NULL, d;
  if (isRoot(c, root)) {
    d.dtype = st;
    d.in_bytes = sum(scs, peers(c)) * typeSize(st), d.in = buf(sb, span(scs, displs, peers(c)), st);
    if (c.inter) return d;
    if (rb == MPI_IN_PLACE) return d.flags = kInPlace, d;
  }
  d.out_bytes = rc * typeSize(rt), d.out = buf(rb, rc, rt);
  return d;
}

Desc dAllgather(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt) {
  Desc d = base(Func::allgather, rt, MPI_OP_NULL, -1);
  d.out_bytes = std::int64_t(rc) * peers(c) * typeSize(rt), d.out = buf(rb, std::int64_t(rc) * peers(c), rt);
  if (sb == MPI_IN_PLACE) {
    d.flags = kInPlace;
    d.in_bytes = rc * typeSize(rt), d.in = buf(slot(rb, std::int64_t(c.rank) * rc, rt), rc, rt);
  } else {
    d.in_bytes = sc * typeSize(st), d.in = buf(sb, sc, st);
  }
  return d;
}

Desc dAllgatherv(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs,
                 const int* displs, MPI_Datatype rt) {
  Desc d = base(Func::allgatherv, rt, MPI_OP_NULL, -1);
  d.out_bytes = sum(rcs, peers(c)) * typeSize(rt), d.out = buf(rb, span(rcs, displs, peers(c)), rt);
  if (sb == MPI_IN_PLACE) {
    d.flags = kInPlace;
    const int n = rcs ? rcs[c.rank] : 0;
    d.in_bytes = n * typeSize(rt), d.in = buf(slot(rb, displs ? displs[c.rank] : 0, rt), n, rt);
  } else {
    d.in_bytes = sc * typeSize(st), d.in = buf(sb, sc, st);
  }
  return d;
}

Desc dAlltoall(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt) {
  Desc d = base(Func::alltoall, rt, MPI_OP_NULL, -1);
  const std::int64_t n = std::int64_t(rc) * peers(c);
  d.out_bytes = n * typeSize(rt), d.out = buf(rb, n, rt);
  if (sb == MPI_IN_PLACE)
    d.flags = kInPlace, d.in_bytes = d.out_bytes, d.in = buf(rb, n, rt);
  else
    d.in_bytes = std::int64_t(sc) * peers(c) * typeSize(st), d.in = buf(sb, std::int64_t(sc) * peers(c), st);
  return d;
}

Desc dAlltoallv(const CommInfo& c, const void* sb, const int* scs, const int* sd, MPI_Datatype st, void* rb,
                const int* rcs, const int* rd, MPI_Datatype rt) {
  Desc d = base(Func::alltoallv, rt, MPI_OP_NULL, -1);
  d.out_bytes = sum(rcs, peers(c)) * typeSize(rt), d.out = buf(rb, span(rcs, rd, peers(c)), rt);
  if (sb == MPI_IN_PLACE)
    d.flags = kInPlace, d.in_bytes = d.out_bytes, d.in = d.out;
  else
    d.in_bytes = sum(scs, peers(c)) * typeSize(st), d.in = buf(sb, span(scs, sd, peers(c)), st);
  return d;
}

// A type per peer: the counts are said (in elements of their own types), the
// bytes left out.
Desc dAlltoallw(const CommInfo& c, const void* sb, const int* scs, void*, const int* rcs) {
  Desc d = base(Func::alltoallw, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
  d.flags = kBytesLeftOut | (sb == MPI_IN_PLACE ? kInPlace : 0);
  d.in_bytes = sum(sb == MPI_IN_PLACE ? rcs : scs, peers(c));
  d.out_bytes = sum(rcs, peers(c));
  return d;
}

Desc dReduceScatter(const CommInfo& c, const void* sb, void* rb, const int* rcs, MPI_Datatype t, MPI_Op op) {
  Desc d = base(Func::reduce_scatter, t, op, -1);
  const std::int64_t all = sum(rcs, c.size), mine = rcs && !c.inter ? rcs[c.rank] : 0;
  const bool in_place = sb == MPI_IN_PLACE;
  d.flags = in_place ? kInPlace : 0;
  d.in_bytes = all * typeSize(t), d.in = buf(in_place ? rb : sb, all, t);
  d.out_bytes = mine * typeSize(t), d.out = buf(rb, mine, t);
  return d;
}

Desc dReduceScatterBlock(const CommInfo& c, const void* sb, void* rb, int rc, MPI_Datatype t, MPI_Op op) {
  Desc d = base(Func::reduce_scatter_block, t, op, -1);
  const std::int64_t all = std::int64_t(rc) * c.size;
  const bool in_place = sb == MPI_IN_PLACE;
  d.flags = in_place ? kInPlace : 0;
  d.in_bytes = all * typeSize(t), d.in = buf(in_place ? rb : sb, all, t);
  d.out_bytes = rc * typeSize(t), d.out = buf(rb, rc, t);
  return d;
}

}  // namespace collviz::tap::mpi
