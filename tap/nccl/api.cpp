// The NCCL API the tap wraps: each wrapper forwards its arguments unchanged
// to NCCL's own (resolve.cpp) and returns what NCCL returned; it records
// around the call only while recording (tap_nccl.h). A function this NCCL
// lacks (ncclAlltoAll, ncclGather and ncclScatter before 2.28) answers
// ncclInvalidUsage, as a program linked against that NCCL could never call
// it. ncclBcast is not wrapped: NCCL makes it a call of ncclBroadcast.
#include "tap/nccl/comm_hash.h"
#include "tap/nccl/tap_nccl.h"

namespace collviz::tap::nccl {
// The profiler plugin's part where it is built in (profiler.h); weak.
__attribute__((weak)) std::uint64_t lastInitCommHash();
}  // namespace collviz::tap::nccl

using namespace collviz::tap;
using namespace collviz::tap::nccl;

namespace {

template <typename F>
F real(std::atomic<void*>& cache, const char* name, void* self) {
  void* f = cache.load(std::memory_order_acquire);
  if (!f && (f = nextNccl(name, self))) cache.store(f, std::memory_order_release);
  return reinterpret_cast<F>(f);
}

#define REAL(name)                                                                                      \
  static std::atomic<void*> cache_;                                                                     \
  const auto next_ = real<decltype(&::name)>(cache_, #name, reinterpret_cast<void*>(&::name));         \
  if (!next_) return ncclInvalidUsage

// Records around `call` (a call of next_) when this communicator is recorded.
#define RECORDED(comm, stream, describe, call)                                  \
  CommInfo* ci_ = recording() ? commInfo(comm) : nullptr;                         \
  Active a_ = ci_ ? begin(*ci_, describe(*ci_), stream) : Active{};               \
  const ncclResult_t rc_ = call;                                                  \
  after(a_, rc_);                                                                 \
  return rc_

bool at(const void* p, const void* base, std::uint64_t offset) {
  return p == static_cast<const char*>(base) + offset;
}

std::uint64_t typeBytes(ncclDataType_t t) {
  static const std::uint8_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return int(t) >= 0 && int(t) < 12 ? sizes[int(t)] : 0;
}

// `in`/`out` nullptr: that buffer is not this rank's to keep (its count
// still said where NCCL's count is every rank's, as for broadcast and reduce).
Desc desc(Func f, ncclDataType_t t, const void* in, std::uint64_t in_elems, void* out, std::uint64_t out_elems,
          int root = -1, int redop = -1) {
  Desc d;
  d.func = f, d.dtype = t, d.root = root, d.redop = redop;
  d.in = in_elems ? in : nullptr, d.in_elems = in_elems;
  d.out = out_elems ? out : nullptr, d.out_elems = out_elems;
  return d;
}

std::uint64_t beforeInit() {
  beforeFirstInit();
  return lastInitCommHash ? lastInitCommHash() : 0;
}
// NCCL's commHash of a communicator made from `id`; the profiler plugin's
// (NCCL's own word) where NCCL gave it one during this init.
std::uint64_t initId(const ncclUniqueId& id, std::uint64_t before) {
  const std::uint64_t h = lastInitCommHash ? lastInitCommHash() : 0;
  return h && h != before ? h : commHashOfId(id.internal, sizeof id.internal);
}
bool blocking(const ncclConfig_t* config) { return !config || config->blocking != 0; }

}  // namespace

extern "C" {

ncclResult_t ncclAllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t st) {
  REAL(ncclAllReduce);
  auto d = [&](const CommInfo&) {
    Desc x = desc(Func::nccl_allreduce, t, s, n, r, n, -1, int(op));
    if (s == r) x.flags |= kInPlace;
    return x;
  };
  RECORDED(comm, st, d, next_(s, r, n, t, op, comm, st));
}

ncclResult_t ncclBroadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t st) {
  REAL(ncclBroadcast);
  auto d = [&](const CommInfo& c) {
    Desc x = desc(Func::nccl_broadcast, t, c.rank == root ? s : nullptr, n, r, n, root);
    if (s == r) x.flags |= kInPlace;
    return x;
  };
  RECORDED(comm, st, d, next_(s, r, n, t, root, comm, st));
}

ncclResult_t ncclReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t st) {
  REAL(ncclReduce);
  auto d = [&](const CommInfo& c) {
    Desc x = desc(Func::nccl_reduce, t, s, n, c.rank == root ? r : nullptr, n, root, int(op));
    if (s == r && c.rank == root) x.flags |= kInPlace;
    return x;
  };
  RECORDED(comm, st, d, next_(s, r, n, t, op, root, comm, st));
}

ncclResult_t ncclAllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t comm, cudaStream_t st) {
  REAL(ncclAllGather);
  auto d = [&](const CommInfo& c) {
    Desc x = desc(Func::nccl_allgather, t, s, n, r, n * std::uint64_t(c.size));
    if (at(s, r, std::uint64_t(c.rank) * n * typeBytes(t))) x.flags |= kInPlace;
    return x;
  };
  RECORDED(comm, st, d, next_(s, r, n, t, comm, st));
}

ncclResult_t ncclReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t st) {
  REAL(ncclReduceScatter);
  auto d = [&](const CommInfo& c) {
    Desc x = desc(Func::nccl_reducescatter, t, s, n * std::uint64_t(c.size), r, n, -1, int(op));
    if (at(r, s, std::uint64_t(c.rank) * n * typeBytes(t))) x.flags |= kInPlace;
    return x;
  };
  RECORDED(comm, st, d, next_(s, r, n, t, op, comm, st));
}

ncclResult_t ncclAlltoAll(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t comm, cudaStream_t st) {
  REAL(ncclAlltoAll);
  auto d = [&](const CommInfo& c) {
    return desc(Func::nccl_alltoall, t, s, n * std::uint64_t(c.size), r, n * std::uint64_t(c.size));
  };
  RECORDED(comm, st, d, next_(s, r, n, t, comm, st));
}

ncclResult_t ncclGather(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
                        cudaStream_t st) {
  REAL(ncclGather);
  auto d = [&](const CommInfo& c) {
    const bool me = c.rank == root;
    Desc x = desc(Func::nccl_gather, t, s, n, me ? r : nullptr, me ? n * std::uint64_t(c.size) : 0, root);
    if (me && at(s, r, std::uint64_t(c.rank) * n * typeBytes(t))) x.flags |= kInPlace;
    return x;
  };
  RECORDED(comm, st, d, next_(s, r, n, t, root, comm, st));
}

ncclResult_t ncclScatter(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t comm,
                         cudaStream_t st) {
  REAL(ncclScatter);
  auto d = [&](const CommInfo& c) {
    const bool me = c.rank == root;
    Desc x = desc(Func::nccl_scatter, t, me ? s : nullptr, me ? n * std::uint64_t(c.size) : 0, r, n, root);
    if (me && at(r, s, std::uint64_t(c.rank) * n * typeBytes(t))) x.flags |= kInPlace;
    return x;
  };
  RECORDED(comm, st, d, next_(s, r, n, t, root, comm, st));
}

ncclResult_t ncclSend(const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  REAL(ncclSend);
  auto d = [&](const CommInfo&) { return desc(Func::nccl_send, t, s, n, nullptr, 0, peer); };
  RECORDED(comm, st, d, next_(s, n, t, peer, comm, st));
}

ncclResult_t ncclRecv(void* r, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  REAL(ncclRecv);
  auto d = [&](const CommInfo&) { return desc(Func::nccl_recv, t, nullptr, 0, r, n, peer); };
  RECORDED(comm, st, d, next_(r, n, t, peer, comm, st));
}

ncclResult_t ncclGroupStart() {
  REAL(ncclGroupStart);
  const ncclResult_t rc = next_();
  if (rc == ncclSuccess) groupStarted();
  return rc;
}

ncclResult_t ncclGroupEnd() {
  REAL(ncclGroupEnd);
  const ncclResult_t rc = next_();
  groupEnded(rc);
  return rc;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  REAL(ncclCommInitRank);
  const std::uint64_t before = beforeInit();
  const ncclResult_t rc = next_(comm, nranks, id, rank);
  if ((rc == ncclSuccess || rc == ncclInProgress) && comm)
    commMade(*comm, initId(id, before), 0, -1, -1, rc == ncclSuccess && !inGroup());
  return rc;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t* config) {
  REAL(ncclCommInitRankConfig);
  const std::uint64_t before = beforeInit();
  const ncclResult_t rc = next_(comm, nranks, id, rank, config);
  if ((rc == ncclSuccess || rc == ncclInProgress) && comm)
    commMade(*comm, initId(id, before), 0, -1, -1, rc == ncclSuccess && blocking(config) && !inGroup());
  return rc;
}

// One process, ndev devices: its ranks are all this process's (the
// capture's rank is the first one's).
// NCCL makes its unique id inside: the id is the commHash the profiler
// plugin was given, else one of the tap's own (the same for every handle:
// they are ranks of one communicator).
ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  REAL(ncclCommInitAll);
  static std::atomic<std::uint64_t> calls{0};
  const std::uint64_t before = beforeInit();
  const ncclResult_t rc = next_(comms, ndev, devlist);
  if (rc != ncclSuccess || !comms) return rc;
  const std::uint64_t h = lastInitCommHash ? lastInitCommHash() : 0;
  const std::uint64_t key[3] = {0x696e6974616c6cull, std::uint64_t(ndev), calls.fetch_add(1) + 1};
  const std::uint64_t id = h && h != before ? h : kLazyBit | (commHashOfId(key, sizeof key) & ~kLazyBit);
  for (int i = 0; i < ndev; ++i) commMade(comms[i], id, 0, -1, -1, false);
  return rc;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config) {
  REAL(ncclCommSplit);
  const CommInfo* parent = recording() ? commInfo(comm) : nullptr;
  const std::uint64_t id = parent ? splitId(comm, color) : 0;
  const ncclResult_t rc = next_(comm, color, key, newcomm, config);
  if ((rc == ncclSuccess || rc == ncclInProgress) && newcomm && *newcomm)
    commMade(*newcomm, id, parent ? parent->id : 0, color, key, rc == ncclSuccess && blocking(config) && !inGroup());
  return rc;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  REAL(ncclCommDestroy);
  pollSome();
  const ncclResult_t rc = next_(comm);
  if (rc == ncclSuccess) commGone(comm);
  return rc;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  REAL(ncclCommAbort);
  const ncclResult_t rc = next_(comm);
  if (rc == ncclSuccess) commGone(comm);
  return rc;
}

}  // extern "C"
