// The MPI tap's insides (libcollviz-tap-mpi.so, preloaded into each rank of
// an Open MPI program): the wrappers in c_*.cpp and fortran_*.cpp describe a
// call (describe.cpp), record its entry (calls.cpp), forward the very same
// arguments to PMPI and record its exit; nonblocking calls end at
// Wait/Test (requests.cpp); communicators get their records and ids in
// comms.cpp; state.cpp opens the capture at MPI_Init.
//
// A guest in someone else's program: it forwards every argument unchanged
// and returns MPI's own return code; the tap's own trouble (no folder, a
// full disk, no memory) only counts records as lost in the capture's header.
// No lock is held across a PMPI call that could wait for another process.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "tap/capture_format.h"
#include "tap/capture_writer.h"

namespace collviz::tap::mpi {

extern CaptureWriter g_writer;

// ---- state.cpp ----
// True while calls are recorded (the capture open, MPI initialised and not
// finalised). Starts the tap lazily where MPI_Init went by unseen.
bool recording();
// MPI_Init / Init_thread returned MPI_SUCCESS: open the capture.
void started(int required, int provided, bool fortran);
// MPI_Finalize: before and after PMPI_Finalize.
void finalizing();
void finalized();
// A note in the capture (UTF-8 text).
void note(NoteCode code, const char* text);
// Whether this process takes part in the tap's id broadcast at a
// communicator's creation: every process whose COLLVIZ_TAP_OUT is set, so
// that all members of a new communicator do it whether or not their own
// capture opened (one rank's full disk must never leave the others waiting).
bool agreesIds();
// MPI_COMM_WORLD's group and rank (set at start).
MPI_Group worldGroup();
int worldRank();

// ---- comms.cpp ----
struct CommInfo {
  std::uint32_t num = 0;  // CommRecord::comm
  std::uint64_t id = 0;
  std::atomic<std::uint32_t> seq{0};
  int rank = 0, size = 0, remote_size = 0;
  bool inter = false;
  CommKind kind = CommKind::lazy;
};
// The tap's record of a communicator, registering it lazily (no
// communication) when first seen; nullptr when not recording or it could not.
CommInfo* commInfo(MPI_Comm comm);
// After a constructor returned MPI_SUCCESS: `made` (MPI_COMM_NULL on the
// processes left out) gets its record and its agreed id.
void commMade(CommKind kind, MPI_Comm parent, MPI_Comm made, int color, int key);
// At start: MPI_COMM_WORLD's record and the attribute key.
void commsStart();

// ---- describe.cpp: a call as the tap sees it ----
struct Buf {
  const void* p = nullptr;  // nullptr: nothing kept
  std::int64_t count = 0;   // in elements of `type`
  MPI_Datatype type = MPI_DATATYPE_NULL;
};
struct Desc {
  Func func = Func::none;
  std::uint16_t flags = 0;
  int root = -1;
  MPI_Datatype dtype = MPI_DATATYPE_NULL;  // what CallRecord::dtype names
  MPI_Op op = MPI_OP_NULL;
  std::int64_t in_bytes = 0, out_bytes = 0;  // what this process sends and receives
  Buf in, out;                               // what is kept of each
};
Desc dBarrier(const CommInfo& c);
Desc dBcast(const CommInfo& c, void* buf, int count, MPI_Datatype t, int root);
Desc dReduce(const CommInfo& c, const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op, int root);
Desc dAllreduce(const CommInfo& c, const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op);
Desc dGather(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root);
Desc dGatherv(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs, const int* displs,
              MPI_Datatype rt, int root);
Desc dScatter(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root);
Desc dScatterv(const CommInfo& c, const void* sb, const int* scs, const int* displs, MPI_Datatype st, void* rb, int rc,
               MPI_Datatype rt, int root);
Desc dAllgather(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt);
Desc dAllgatherv(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs,
                 const int* displs, MPI_Datatype rt);
Desc dAlltoall(const CommInfo& c, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt);
Desc dAlltoallv(const CommInfo& c, const void* sb, const int* scs, const int* sd, MPI_Datatype st, void* rb,
                const int* rcs, const int* rd, MPI_Datatype rt);
Desc dAlltoallw(const CommInfo& c, const void* sb, const int* scs, void* rb, const int* rcs);
Desc dReduceScatter(const CommInfo& c, const void* sb, void* rb, const int* rcs, MPI_Datatype t, MPI_Op op);
Desc dReduceScatterBlock(const CommInfo& c, const void* sb, void* rb, int rc, MPI_Datatype t, MPI_Op op);
Desc dScan(const CommInfo& c, const void* sb, void* rb, int count, MPI_Datatype t, MPI_Op op, Func f);

// ---- calls.cpp ----
struct Active {
  CallRecord* rec = nullptr;  // nullptr: not recorded
  std::uint8_t* out = nullptr;       // the record's output part
  std::uint32_t out_cap = 0;         // bytes reserved for it
  Buf out_src;                       // the receive buffer
  bool out_contiguous = false;       // copied as is; else packed at exit (blocking calls)
  std::uint32_t out_size = 0;        // its type's size
};
Active begin(CommInfo& c, const Desc& d, std::uint16_t flags);
// The call returned (blocking) or completed (nonblocking) with `rc`.
void end(Active& a, int rc, bool nonblocking = false);
// A nonblocking call was freed unfinished (MPI_Request_free): its exit is
// now, its output left out.
void endFreed(Active& a, int rc);
// Built-in datatypes and ops, looked up at start.
void typesStart();

// ---- requests.cpp ----
// A nonblocking collective returned `rc` and `req`: finished at Wait/Test.
void pending(Active& a, int rc, MPI_Request req);
// Whether any nonblocking collective is pending (Wait/Test's fast path).
bool anyPending();
// The request completed (its handle became MPI_REQUEST_NULL) with `rc`.
void completed(MPI_Request req, int rc);
void freed(MPI_Request req, int rc);

}  // namespace collviz::tap::mpi

// The wrappers' first lines: describe and begin only while recording.
#define COLLVIZ_TAP_BEGIN(comm, flags, describe, ...)                                            \
  ([&]() -> ::collviz::tap::mpi::Active {                                                         \
    ::collviz::tap::mpi::CommInfo* ci_ = ::collviz::tap::mpi::recording()                         \
                                             ? ::collviz::tap::mpi::commInfo(comm) : nullptr;     \
    return ci_ ? ::collviz::tap::mpi::begin(*ci_, ::collviz::tap::mpi::describe(*ci_ __VA_OPT__(,) __VA_ARGS__), \
                                            flags)                                                \
               : ::collviz::tap::mpi::Active{};                                                   \
  }())
