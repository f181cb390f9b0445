// The Fortran bindings around the collectives: MPI_INIT, MPI_INIT_THREAD,
// MPI_FINALIZE, the communicator constructors and the Wait/Test family
// (fortran.h), and how the Fortran wrappers find libmpi_mpifh.
#include <dlfcn.h>

#include <new>

#include "tap/mpi/fortran.h"

using namespace collviz::tap;
using namespace collviz::tap::mpi;
using F = MPI_Fint;

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM (common blocks in libmpi;
// weak: one a compiler does not name is absent).
extern "C" {
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));
}

namespace collviz::tap::mpi {

void* fortranReal(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  // A libmpi_mpifh loaded with RTLD_LOCAL (a dlopened module) is not in
  // RTLD_NEXT's reach; its handle is.
  for (const char* lib : {"libmpi_mpifh.so.40", "libmpi_mpifh.so"})
    if (void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD))
      if (void* f = dlsym(h, name)) return f;
  return nullptr;
}

void* fortranBuf(void* p) {
  const auto is = [p](int* sym) { return sym && p == static_cast<void*>(sym); };
  if (is(&mpi_fortran_in_place_) || is(&mpi_fortran_in_place) || is(&mpi_fortran_in_place__) ||
      is(&MPI_FORTRAN_IN_PLACE))
    return MPI_IN_PLACE;
  if (is(&mpi_fortran_bottom_) || is(&mpi_fortran_bottom) || is(&mpi_fortran_bottom__) || is(&MPI_FORTRAN_BOTTOM))
    return MPI_BOTTOM;
  return p;
}

}  // namespace collviz::tap::mpi

namespace {

F fNull() { return PMPI_Request_c2f(MPI_REQUEST_NULL); }

// The C handles of a Fortran request array before a Wait/Test.
class FSaved {
 public:
  FSaved(const F* n, const F* r) {
    if (!n || *n <= 0 || !r) return;
    p_ = *n <= 64 ? stack_ : new (std::nothrow) MPI_Request[std::size_t(*n)];
    if (!p_) {
      g_writer.lose(Lost::no_memory);
      return;
    }
    for (int i = 0; i < *n; ++i) p_[i] = fRequest(&r[i]);
    n_ = *n;
  }
  ~FSaved() {
    if (p_ != stack_) delete[] p_;
  }
  FSaved(const FSaved&) = delete;
  FSaved& operator=(const FSaved&) = delete;
  void after(const F* now, int rc) const {
    const F null = fNull();
    for (int i = 0; i < n_; ++i)
      if (p_[i] != MPI_REQUEST_NULL && now[i] == null) completed(p_[i], rc);
  }

 private:
  MPI_Request stack_[64];
  MPI_Request* p_ = nullptr;
  int n_ = 0;
};

void made(CommKind kind, const F* parent, const F* out, const F* ierr, int color = -1, int key = -1) {
  if (*ierr == MPI_SUCCESS) commMade(kind, fComm(parent), fComm(out), color, key);
}

}  // namespace

COLLVIZ_FORTRAN(mpi_init, MPI_INIT, (F * ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_init);
  real_(ierr);
  if (*ierr == MPI_SUCCESS) started(MPI_THREAD_SINGLE, -1, true);
}

COLLVIZ_FORTRAN(mpi_init_thread, MPI_INIT_THREAD, (F * required, F* provided, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_init_thread);
  real_(required, provided, ierr);
  if (*ierr == MPI_SUCCESS) started(*required, *provided, true);
}

COLLVIZ_FORTRAN(mpi_finalize, MPI_FINALIZE, (F * ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_finalize);
  finalizing();
  real_(ierr);
  finalized();
}

// ---- communicator constructors ----
COLLVIZ_FORTRAN(mpi_comm_dup, MPI_COMM_DUP, (F * c, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_comm_dup);
  real_(c, n, ierr);
  made(CommKind::dup, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_comm_dup_with_info, MPI_COMM_DUP_WITH_INFO, (F * c, F* info, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_comm_dup_with_info);
  real_(c, info, n, ierr);
  made(CommKind::dup, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_comm_split, MPI_COMM_SPLIT, (F * c, F* color, F* key, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_comm_split);
  real_(c, color, key, n, ierr);
  made(CommKind::split, c, n, ierr, *color, *key);
}
COLLVIZ_FORTRAN(mpi_comm_split_type, MPI_COMM_SPLIT_TYPE, (F * c, F* type, F* key, F* info, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_comm_split_type);
  real_(c, type, key, info, n, ierr);
  made(CommKind::split_type, c, n, ierr, *type, *key);
}
COLLVIZ_FORTRAN(mpi_comm_create, MPI_COMM_CREATE, (F * c, F* g, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_comm_create);
  real_(c, g, n, ierr);
  made(CommKind::create, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_comm_create_group, MPI_COMM_CREATE_GROUP, (F * c, F* g, F* tag, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_comm_create_group);
  real_(c, g, tag, n, ierr);
  made(CommKind::create_group, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_cart_create, MPI_CART_CREATE,
                (F * c, F* ndims, F* dims, void* periods, void* reorder, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_cart_create);
  real_(c, ndims, dims, periods, reorder, n, ierr);
  made(CommKind::cart_create, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_cart_sub, MPI_CART_SUB, (F * c, void* remain, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_cart_sub);
  real_(c, remain, n, ierr);
  made(CommKind::cart_sub, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_graph_create, MPI_GRAPH_CREATE,
                (F * c, F* nnodes, F* index, F* edges, void* reorder, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_graph_create);
  real_(c, nnodes, index, edges, reorder, n, ierr);
  made(CommKind::graph_create, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_dist_graph_create, MPI_DIST_GRAPH_CREATE,
                (F * c, F* k, F* sources, F* degrees, F* dests, F* weights, F* info, void* reorder, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_dist_graph_create);
  real_(c, k, sources, degrees, dests, weights, info, reorder, n, ierr);
  made(CommKind::dist_graph_create, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT,
                (F * c, F* indegree, F* sources, F* sourceweights, F* outdegree, F* dests, F* destweights, F* info,
                 void* reorder, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_dist_graph_create_adjacent);
  real_(c, indegree, sources, sourceweights, outdegree, dests, destweights, info, reorder, n, ierr);
  made(CommKind::dist_graph_create, c, n, ierr);
}
COLLVIZ_FORTRAN(mpi_intercomm_create, MPI_INTERCOMM_CREATE,
                (F * local, F* local_leader, F* bridge, F* remote_leader, F* tag, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_intercomm_create);
  real_(local, local_leader, bridge, remote_leader, tag, n, ierr);
  made(CommKind::intercomm_create, local, n, ierr);
}
COLLVIZ_FORTRAN(mpi_intercomm_merge, MPI_INTERCOMM_MERGE, (F * inter, void* high, F* n, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_intercomm_merge);
  real_(inter, high, n, ierr);
  made(CommKind::intercomm_merge, inter, n, ierr);
}

// ---- Wait and Test ----
COLLVIZ_FORTRAN(mpi_wait, MPI_WAIT, (F * r, F* status, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_wait);
  if (!anyPending()) return real_(r, status, ierr);
  const MPI_Request before = fRequest(r);
  real_(r, status, ierr);
  if (*r == fNull()) completed(before, *ierr);
}
COLLVIZ_FORTRAN(mpi_test, MPI_TEST, (F * r, void* flag, F* status, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_test);
  if (!anyPending()) return real_(r, flag, status, ierr);
  const MPI_Request before = fRequest(r);
  real_(r, flag, status, ierr);
  if (*r == fNull()) completed(before, *ierr);
}
COLLVIZ_FORTRAN(mpi_request_free, MPI_REQUEST_FREE, (F * r, F* ierr)) {
  COLLVIZ_FORTRAN_REAL(mpi_request_free);
  if (!anyPending()) return real_(r, ierr);
  const MPI_Request before = fRequest(r);
  real_(r, ierr);
  if (*ierr == MPI_SUCCESS) freed(before, *ierr);
}

#define ARRAY(lower, ...)                           \
  COLLVIZ_FORTRAN_REAL(lower);                      \
  if (!anyPending()) return real_(__VA_ARGS__);     \
  const FSaved saved(n, rs);                        \
  real_(__VA_ARGS__);                               \
  saved.after(rs, *ierr)

COLLVIZ_FORTRAN(mpi_waitall, MPI_WAITALL, (F * n, F* rs, F* statuses, F* ierr)) {
  ARRAY(mpi_waitall, n, rs, statuses, ierr);
}
COLLVIZ_FORTRAN(mpi_testall, MPI_TESTALL, (F * n, F* rs, void* flag, F* statuses, F* ierr)) {
  ARRAY(mpi_testall, n, rs, flag, statuses, ierr);
}
COLLVIZ_FORTRAN(mpi_waitany, MPI_WAITANY, (F * n, F* rs, F* index, F* status, F* ierr)) {
  ARRAY(mpi_waitany, n, rs, index, status, ierr);
}
COLLVIZ_FORTRAN(mpi_testany, MPI_TESTANY, (F * n, F* rs, F* index, void* flag, F* status, F* ierr)) {
  ARRAY(mpi_testany, n, rs, index, flag, status, ierr);
}
COLLVIZ_FORTRAN(mpi_waitsome, MPI_WAITSOME, (F * n, F* rs, F* outcount, F* indices, F* statuses, F* ierr)) {
  ARRAY(mpi_waitsome, n, rs, outcount, indices, statuses, ierr);
}
COLLVIZ_FORTRAN(mpi_testsome, MPI_TESTSOME, (F * n, F* rs, F* outcount, F* indices, F* statuses, F* ierr)) {
  ARRAY(mpi_testsome, n, rs, outcount, indices, statuses, ierr);
}
