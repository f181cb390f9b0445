// The C bindings around the collectives: MPI_Init/Init_thread (the capture
// opens), MPI_Finalize (flagged), the communicator constructors (a record
// and an agreed id each; frees are seen by comms.cpp's attribute callback)
// and the Wait/Test family (a nonblocking collective's exit). Each forwards
// its arguments unchanged and returns PMPI's return code.
#include <new>

#include "tap/mpi/tap_mpi.h"

using namespace collviz::tap;
using namespace collviz::tap::mpi;

namespace {

// The handles of a request array before a Wait/Test: those that became
// MPI_REQUEST_NULL completed.
class Saved {
 public:
  Saved(int n, const MPI_Request* r) {
    if (n <= 0 || !r) return;
    p_ = n <= int(sizeof stack_ / sizeof stack_[0]) ? stack_ : new (std::nothrow) MPI_Request[std::size_t(n)];
    if (!p_) {
      g_writer.lose(Lost::no_memory);
      return;
    }
    for (int i = 0; i < n; ++i) p_[i] = r[i];
    n_ = n;
  }
  ~Saved() {
    if (p_ != stack_) delete[] p_;
  }
  Saved(const Saved&) = delete;
  Saved& operator=(const Saved&) = delete;
  // `statuses` follow the requests (Waitall, Testall): a failed one's own
  // code is taken from its status under MPI_ERR_IN_STATUS.
  void after(const MPI_Request* now, int rc, const MPI_Status* statuses) const {
    for (int i = 0; i < n_; ++i) {
      if (p_[i] == MPI_REQUEST_NULL || now[i] != MPI_REQUEST_NULL) continue;
      const bool own = rc == MPI_ERR_IN_STATUS && statuses && statuses != MPI_STATUSES_IGNORE;
      completed(p_[i], own ? statuses[i].MPI_ERROR : rc);
    }
  }

 private:
  MPI_Request stack_[64];
  MPI_Request* p_ = nullptr;
  int n_ = 0;
};

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) started(MPI_THREAD_SINGLE, -1, false);
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) started(required, provided ? *provided : -1, false);
  return rc;
}

int MPI_Finalize() {
  finalizing();
  const int rc = PMPI_Finalize();
  finalized();
  return rc;
}

// ---- communicator constructors ----
#define MADE(kind, parent, out, color, key, call)                           \
  const int rc = call;                                                      \
  if (rc == MPI_SUCCESS && out) commMade(CommKind::kind, parent, *out, color, key); \
  return rc

int MPI_Comm_dup(MPI_Comm c, MPI_Comm* n) { MADE(dup, c, n, -1, -1, PMPI_Comm_dup(c, n)); }
int MPI_Comm_dup_with_info(MPI_Comm c, MPI_Info info, MPI_Comm* n) {
  MADE(dup, c, n, -1, -1, PMPI_Comm_dup_with_info(c, info, n));
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm* n) {
  MADE(split, c, n, color, key, PMPI_Comm_split(c, color, key, n));
}
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm* n) {
  MADE(split_type, c, n, type, key, PMPI_Comm_split_type(c, type, key, info, n));
}
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm* n) { MADE(create, c, n, -1, -1, PMPI_Comm_create(c, g, n)); }
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm* n) {
  MADE(create_group, c, n, -1, -1, PMPI_Comm_create_group(c, g, tag, n));
}
int MPI_Cart_create(MPI_Comm c, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* n) {
  MADE(cart_create, c, n, -1, -1, PMPI_Cart_create(c, ndims, dims, periods, reorder, n));
}
int MPI_Cart_sub(MPI_Comm c, const int remain[], MPI_Comm* n) {
  MADE(cart_sub, c, n, -1, -1, PMPI_Cart_sub(c, remain, n));
}
int MPI_Graph_create(MPI_Comm c, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm* n) {
  MADE(graph_create, c, n, -1, -1, PMPI_Graph_create(c, nnodes, index, edges, reorder, n));
}
int MPI_Dist_graph_create(MPI_Comm c, int k, const int nodes[], const int degrees[], const int targets[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* n) {
  MADE(dist_graph_create, c, n, -1, -1,
       PMPI_Dist_graph_create(c, k, nodes, degrees, targets, weights, info, reorder, n));
}
int MPI_Dist_graph_create_adjacent(MPI_Comm c, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* n) {
  MADE(dist_graph_create, c, n, -1, -1,
       PMPI_Dist_graph_create_adjacent(c, indegree, sources, sourceweights, outdegree, destinations, destweights,
                                       info, reorder, n));
}
int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm bridge, int remote_leader, int tag,
                         MPI_Comm* n) {
  MADE(intercomm_create, local, n, -1, -1,
       PMPI_Intercomm_create(local, local_leader, bridge, remote_leader, tag, n));
}
int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm* n) {
  MADE(intercomm_merge, inter, n, -1, -1, PMPI_Intercomm_merge(inter, high, n));
}

// ---- Wait and Test ----
int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  if (!anyPending() || !r) return PMPI_Wait(r, s);
  const MPI_Request before = *r;
  const int rc = PMPI_Wait(r, s);
  if (*r == MPI_REQUEST_NULL) completed(before, rc);
  return rc;
}

int MPI_Test(MPI_Request* r, int* flag, MPI_Status* s) {
  if (!anyPending() || !r) return PMPI_Test(r, flag, s);
  const MPI_Request before = *r;
  const int rc = PMPI_Test(r, flag, s);
  if (*r == MPI_REQUEST_NULL) completed(before, rc);
  return rc;
}

int MPI_Waitall(int n, MPI_Request rs[], MPI_Status* ss) {
  if (!anyPending() || !rs) return PMPI_Waitall(n, rs, ss);
  const Saved saved(n, rs);
  const int rc = PMPI_Waitall(n, rs, ss);
  saved.after(rs, rc, ss);
  return rc;
}

int MPI_Testall(int n, MPI_Request rs[], int* flag, MPI_Status ss[]) {
  if (!anyPending() || !rs) return PMPI_Testall(n, rs, flag, ss);
  const Saved saved(n, rs);
  const int rc = PMPI_Testall(n, rs, flag, ss);
  saved.after(rs, rc, ss);
  return rc;
}

int MPI_Waitany(int n, MPI_Request rs[], int* index, MPI_Status* s) {
  if (!anyPending() || !rs) return PMPI_Waitany(n, rs, index, s);
  const Saved saved(n, rs);
  const int rc = PMPI_Waitany(n, rs, index, s);
  saved.after(rs, rc, nullptr);
  return rc;
}

int MPI_Testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* s) {
  if (!anyPending() || !rs) return PMPI_Testany(n, rs, index, flag, s);
  const Saved saved(n, rs);
  const int rc = PMPI_Testany(n, rs, index, flag, s);
  saved.after(rs, rc, nullptr);
  return rc;
}

int MPI_Waitsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status ss[]) {
  if (!anyPending() || !rs) return PMPI_Waitsome(n, rs, outcount, indices, ss);
  const Saved saved(n, rs);
  const int rc = PMPI_Waitsome(n, rs, outcount, indices, ss);
  saved.after(rs, rc, nullptr);
  return rc;
}

int MPI_Testsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status ss[]) {
  if (!anyPending() || !rs) return PMPI_Testsome(n, rs, outcount, indices, ss);
  const Saved saved(n, rs);
  const int rc = PMPI_Testsome(n, rs, outcount, indices, ss);
  saved.after(rs, rc, nullptr);
  return rc;
}

int MPI_Request_free(MPI_Request* r) {
  if (!anyPending() || !r) return PMPI_Request_free(r);
  const MPI_Request before = *r;
  const int rc = PMPI_Request_free(r);
  if (rc == MPI_SUCCESS) freed(before, rc);
  return rc;
}

}  // extern "C"
