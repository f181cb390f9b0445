// The stand-in NCCL's entry points (tests only; libnccl.so.2 of
// tests/standin/). Each call is checked as NCCL's documentation states it
// (nccl.h of 2.28 and the user guide): counts per op (ncclAllGather's
// sendcount, ncclReduceScatter's recvcount, ncclAlltoAll's per-peer count,
// ncclGather's and ncclScatter's per-rank count), the buffers each rank
// uses (recvbuff only at the root for ncclReduce and ncclGather, sendbuff
// only at the root for ncclBroadcast and ncclScatter), each checked against
// the device memory cudaMalloc gave this process, and buffers that overlap
// only in the in-place form NCCL documents for the op. A call returns once
// its work is queued on its stream; inside ncclGroupStart .. ncclGroupEnd
// the calls wait for the outermost ncclGroupEnd.
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "tap/nccl/comm_hash.h"
#include "tests/standin/elements.h"
#include "tests/standin/nccl_ops.h"
#include "tests/standin/nccl_profiler.h"

namespace collviz::standin {

int physicalDevice(int visible);  // runtime_devices.cpp
ncclResult_t splitComm(const std::shared_ptr<Comm>& parent, int color, int key, std::shared_ptr<Comm>* out);  // nccl_split.cpp

namespace {

constexpr std::uint64_t kCommMagic = 0x636f6c6c5354444eull;

// Never destroyed: stream threads may outlive main.
std::mutex& g_mu = *new std::mutex;
std::set<ncclComm*>& g_live = *new std::set<ncclComm*>;

thread_local int t_depth = 0;
thread_local std::vector<std::pair<std::shared_ptr<Comm>, Op>> t_ops;
thread_local ncclResult_t t_error = ncclSuccess;

ncclResult_t refuse(ncclResult_t r, const std::string& text) {
  setLastError("stand-in NCCL: " + text);
  if (t_depth > 0 && t_error == ncclSuccess) t_error = r;
  return r;
}

int version() {
  static const int v = [] {
    const char* e = std::getenv("COLLVIZ_STANDIN_NCCL_VERSION");
    return e && *e ? std::atoi(e) : NCCL_VERSION_CODE;
  }();
  return v;
}

// The opt-in and fault injection; `op` receives the actions acted on in
// the stream work (stall, async_error, kill).
ncclResult_t gate(const char* call, Fault* op = nullptr) {
  if (!optedIn()) return refuse(ncclInvalidUsage, notOptedIn());
  const Fault f = takeFault(call);
  if (f.kind == Fault::Kind::hang) hangForever(call);
  if (f.kind == Fault::Kind::error)
    return refuse(ncclResult_t(f.code), std::string(call) + ": injected error (" + f.rule + ")");
  if (op) *op = f;
  return ncclSuccess;
}

std::string hex(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

std::shared_ptr<Comm> live(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!comm || !g_live.count(comm) || comm->magic != kCommMagic) return nullptr;
  return comm->c;
}

// Queues the fused group of the calls made so far on this thread.
ncclResult_t launch() {
  auto all = std::move(t_ops);
  t_ops.clear();
  std::vector<std::shared_ptr<Comm>> order;
  for (auto& [c, op] : all)
    if (std::find(order.begin(), order.end(), c) == order.end()) order.push_back(c);
  for (const auto& c : order) {
    std::vector<Op> ops;
    for (auto& [cc, op] : all)
      if (cc == c) ops.push_back(op);
    std::uint64_t collectives = 0, index = 0;
    for (const Op& op : ops) collectives += op.kind != OpKind::send && op.kind != OpKind::recv;
    const std::uint64_t group = c->issue(collectives, &index);
    for (Op& op : ops)
      if (op.kind != OpKind::send && op.kind != OpKind::recv) op.index = index++;
    // One stream runs the group; the group's other streams wait for it,
    // and it waits for what they had queued before.
    std::vector<cudaStream_t> streams;
    for (const Op& op : ops)
      if (std::find(streams.begin(), streams.end(), op.stream) == streams.end()) streams.push_back(op.stream);
    for (std::size_t i = 1; i < streams.size(); ++i) waitFor(streams[0], mark(streams[i]));
    Profiled prof = profilerGroup(*c, ops);  // a profiler plugin's Coll events (nccl_profiler.cpp)
    enqueue(streams[0], [c, ops, group, prof]() mutable {
      profilerKernelStart(prof);
      execute(*c, ops, group);
      profilerKernelStop(prof);
    });
    profilerEnqueued(prof);
    for (std::size_t i = 1; i < streams.size(); ++i) waitFor(streams[i], mark(streams[0]));
  }
  return ncclSuccess;
}

bool overlap(const void* a, std::size_t an, const void* b, std::size_t bn) {
  const char *x = static_cast<const char*>(a), *y = static_cast<const char*>(b);
  return an && bn && x < y + bn && y < x + an;
}

// NCCL's documented buffers and in-place forms for one call.
ncclResult_t check(const char* call, const Comm& c, const Op& op) {
  const std::string name = call;
  if (typeSize(op.dtype) == 0)
    return refuse(ncclInvalidArgument, name + ": datatype " + std::to_string(op.dtype) +
                                           (op.dtype == ncclFloat8e4m3 || op.dtype == ncclFloat8e5m2
                                                ? " (fp8) is not implemented by the stand-in"
                                                : " is not an NCCL datatype"));
  const bool reduces = op.kind == OpKind::all_reduce || op.kind == OpKind::reduce || op.kind == OpKind::reduce_scatter;
  if (reduces && (op.redop < 0 || op.redop >= ncclNumOps))
    return refuse(ncclInvalidArgument, name + ": reduction op " + std::to_string(op.redop) +
                                           " is not a built-in one (the stand-in has no ncclRedOpCreatePreMulSum)");
  const bool rooted = op.kind == OpKind::broadcast || op.kind == OpKind::reduce || op.kind == OpKind::gather ||
                      op.kind == OpKind::scatter;
  if (rooted && (op.root < 0 || op.root >= c.nranks))
    return refuse(ncclInvalidArgument, name + ": root " + std::to_string(op.root) + " is not a rank of 0.." +
                                           std::to_string(c.nranks - 1));
  if ((op.kind == OpKind::send || op.kind == OpKind::recv) && (op.peer < 0 || op.peer >= c.nranks))
    return refuse(ncclInvalidArgument, name + ": peer " + std::to_string(op.peer) + " is not a rank of 0.." +
                                           std::to_string(c.nranks - 1));
  const int sd = streamDevice(op.stream);
  if (sd < 0) return refuse(ncclInvalidArgument, name + ": stream " + hex(op.stream) + " is not a live CUDA stream");
  if (sd != c.device)
    return refuse(ncclInvalidUsage, name + ": the stream is on device " + std::to_string(sd) +
                                        ", the communicator on device " + std::to_string(c.device));
  const std::size_t es = typeSize(op.dtype);
  if (op.count > (std::size_t(1) << 50) / es / std::size_t(c.nranks))
    return refuse(ncclInvalidArgument, name + ": count " + std::to_string(op.count) + " is too large");
  if (op.count == 0) return ncclSuccess;
  const std::size_t one = op.count * es, all = one * std::size_t(c.nranks);
  const bool root = c.rank == op.root;
  std::size_t sb = 0, rb = 0;  // the bytes each buffer must hold at this rank
  switch (op.kind) {
    case OpKind::all_reduce: sb = one, rb = one; break;
    case OpKind::broadcast: sb = root ? one : 0, rb = one; break;
    case OpKind::reduce: sb = one, rb = root ? one : 0; break;
    case OpKind::all_gather: sb = one, rb = all; break;
    case OpKind::reduce_scatter: sb = all, rb = one; break;
    case OpKind::all_to_all: sb = all, rb = all; break;
    case OpKind::gather: sb = one, rb = root ? all : 0; break;
    case OpKind::scatter: sb = root ? all : 0, rb = one; break;
    case OpKind::send: sb = one; break;
    case OpKind::recv: rb = one; break;
  }
  if (sb)
    if (std::string why = checkDeviceRange(op.send, sb, c.device, name + " sendbuff"); !why.empty())
      return refuse(ncclInvalidArgument, why);
  if (rb)
    if (std::string why = checkDeviceRange(op.recv, rb, c.device, name + " recvbuff"); !why.empty())
      return refuse(ncclInvalidArgument, why);
  if (!overlap(op.send, sb, op.recv, rb)) return ncclSuccess;
  const char* s = static_cast<const char*>(op.send);
  const char* r = static_cast<const char*>(op.recv);
  const std::size_t rank = std::size_t(c.rank), at_root = std::size_t(op.root);
  bool in_place = false;
  std::string form;
  switch (op.kind) {
    case OpKind::all_reduce: case OpKind::broadcast: case OpKind::reduce:
      in_place = s == r, form = "sendbuff == recvbuff";
      break;
    case OpKind::all_gather: in_place = s == r + rank * one, form = "sendbuff == recvbuff + rank * sendcount"; break;
    case OpKind::reduce_scatter: in_place = r == s + rank * one, form = "recvbuff == sendbuff + rank * recvcount"; break;
    case OpKind::gather: in_place = s == r + at_root * one, form = "sendbuff == recvbuff + root * count"; break;
    case OpKind::scatter: in_place = r == s + at_root * one, form = "recvbuff == sendbuff + root * count"; break;
    case OpKind::all_to_all: form = "none (NCCL documents no in-place ncclAlltoAll)"; break;
    case OpKind::send: case OpKind::recv: break;
  }
  if (in_place) return ncclSuccess;
  return refuse(ncclInvalidArgument, name + ": sendbuff " + hex(op.send) + " (" + std::to_string(sb) +
                                         " bytes) and recvbuff " + hex(op.recv) + " (" + std::to_string(rb) +
                                         " bytes) overlap, but not in NCCL's in-place form for it: " + form);
}

Op call(OpKind k, const void* send, void* recv, std::size_t count, int dtype, int redop, int root, int peer,
        cudaStream_t stream) {
  Op op{};
  op.kind = k;
  op.send = send, op.recv = recv, op.count = count, op.dtype = dtype, op.redop = redop, op.root = root;
  op.peer = peer, op.stream = stream;
  return op;
}

ncclResult_t post(const char* call, ncclComm_t comm, Op op) {
  Fault f;
  if (ncclResult_t r = gate(call, &f)) return r;
  auto c = live(comm);
  if (!c)
    return refuse(ncclInvalidArgument, std::string(call) + ": comm " + hex(comm) +
                                           " is not a live communicator (never made, or aborted or destroyed)");
  if (ncclResult_t r = check(call, *c, op)) return r;
  op.fault = f;
  t_ops.emplace_back(c, op);
  return t_depth == 0 ? launch() : ncclSuccess;
}

ncclResult_t initRank(ncclComm_t* out, int nranks, const ncclUniqueId& id, int rank, ncclConfig_t* config) {
  if (!out) return refuse(ncclInvalidArgument, "ncclCommInitRank: comm is a null pointer");
  *out = nullptr;
  if (nranks < 1) return refuse(ncclInvalidArgument, "ncclCommInitRank: nranks " + std::to_string(nranks) + " < 1");
  if (rank < 0 || rank >= nranks)
    return refuse(ncclInvalidArgument, "ncclCommInitRank: rank " + std::to_string(rank) + " is not in 0.." +
                                           std::to_string(nranks - 1));
  if (config) {
    if (config->magic != 0xcafebeef || config->size != sizeof(ncclConfig_t))
      return refuse(ncclInvalidArgument, "ncclCommInitRankConfig: config is not initialised with NCCL_CONFIG_INITIALIZER");
    if (config->blocking == 0)
      return refuse(ncclInvalidArgument, "ncclCommInitRankConfig: non-blocking communicators are not implemented by "
                                         "the stand-in");
  }
  if (t_depth > 0)
    return refuse(ncclInvalidUsage, "ncclCommInitRank inside a group is not implemented by the stand-in");
  const int device = currentDevice();
  if (device < 0 || device >= deviceCount())
    return refuse(ncclUnhandledCudaError, "ncclCommInitRank: no current CUDA device");
  std::shared_ptr<Comm> c;
  if (ncclResult_t r = bootstrap(id, nranks, rank, device, physicalDevice(device), version(), &c)) return r;
  auto* h = new ncclComm{kCommMagic, std::move(c)};
  profilerCommMade(*h->c, tap::nccl::commHashOfId(id.internal, sizeof id.internal));
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_live.insert(h);
  }
  setFaultRank(rank);
  *out = h;
  return ncclSuccess;
}

ncclComm* take(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!comm || !g_live.erase(comm)) return nullptr;
  return comm;
}

}  // namespace
}  // namespace collviz::standin

using namespace collviz::standin;

extern "C" {

const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}

const char* ncclGetLastError(ncclComm_t) { return lastError(); }

ncclResult_t ncclGetVersion(int* v) {
  if (ncclResult_t r = gate("ncclGetVersion")) return r;
  if (!v) return refuse(ncclInvalidArgument, "ncclGetVersion: null pointer");
  *v = version();
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (ncclResult_t r = gate("ncclGetUniqueId")) return r;
  if (!id) return refuse(ncclInvalidArgument, "ncclGetUniqueId: null pointer");
  makeUniqueId(id);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t* config) {
  if (ncclResult_t r = gate("ncclCommInitRankConfig")) return r;
  return initRank(comm, nranks, id, rank, config);
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  if (ncclResult_t r = gate("ncclCommInitRank")) return r;
  return initRank(comm, nranks, id, rank, nullptr);
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (ncclResult_t r = gate("ncclCommAbort")) return r;
  if (!comm) return ncclSuccess;
  ncclComm* h = take(comm);
  if (!h) return refuse(ncclInvalidArgument, "ncclCommAbort: comm " + hex(comm) + " is not a live communicator");
  h->c->abort();
  profilerCommGone(*h->c);
  delete h;
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (ncclResult_t r = gate("ncclCommDestroy")) return r;
  if (!comm) return ncclSuccess;
  ncclComm* h = take(comm);
  if (!h) return refuse(ncclInvalidArgument, "ncclCommDestroy: comm " + hex(comm) + " is not a live communicator");
  h->c->drain();  // its queued work first
  profilerCommGone(*h->c);
  h->c->abort();
  delete h;
  return ncclSuccess;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config) {
  if (ncclResult_t r = gate("ncclCommSplit")) return r;
  auto c = live(comm);
  if (!c || !newcomm) return refuse(ncclInvalidArgument, "ncclCommSplit: not a live communicator, or a null pointer");
  *newcomm = nullptr;
  if (t_depth > 0) return refuse(ncclInvalidUsage, "ncclCommSplit inside a group is not implemented by the stand-in");
  if (config && config->blocking == 0)
    return refuse(ncclInvalidArgument, "ncclCommSplit: non-blocking communicators are not implemented by the stand-in");
  std::shared_ptr<Comm> made;
  const std::uint64_t hash = profilerSplitHash(*c, color);  // NCCL counts every split of the parent
  if (ncclResult_t r = splitComm(c, color, key, &made)) return r;
  if (!made) return ncclSuccess;  // NCCL_SPLIT_NOCOLOR
  auto* h = new ncclComm{kCommMagic, std::move(made)};
  profilerCommMade(*h->c, hash);
  std::lock_guard<std::mutex> lock(g_mu);
  g_live.insert(h);
  *newcomm = h;
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* err) {
  if (ncclResult_t r = gate("ncclCommGetAsyncError")) return r;
  auto c = live(comm);
  if (!c || !err) return refuse(ncclInvalidArgument, "ncclCommGetAsyncError: not a live communicator, or a null pointer");
  *err = c->asyncError();
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int* n) {
  if (ncclResult_t r = gate("ncclCommCount")) return r;
  auto c = live(comm);
  if (!c || !n) return refuse(ncclInvalidArgument, "ncclCommCount: not a live communicator, or a null pointer");
  *n = c->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  if (ncclResult_t r = gate("ncclCommUserRank")) return r;
  auto c = live(comm);
  if (!c || !rank) return refuse(ncclInvalidArgument, "ncclCommUserRank: not a live communicator, or a null pointer");
  *rank = c->rank;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  if (ncclResult_t r = gate("ncclCommCuDevice")) return r;
  auto c = live(comm);
  if (!c || !device) return refuse(ncclInvalidArgument, "ncclCommCuDevice: not a live communicator, or a null pointer");
  *device = c->device;
  return ncclSuccess;
}

ncclResult_t ncclGroupStart() {
  if (ncclResult_t r = gate("ncclGroupStart")) return r;
  ++t_depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (t_depth == 0) return refuse(ncclInvalidUsage, "ncclGroupEnd without an ncclGroupStart");
  --t_depth;
  if (ncclResult_t r = gate("ncclGroupEnd")) {
    if (t_depth == 0) t_ops.clear(), t_error = ncclSuccess;
    return r;
  }
  if (t_depth > 0) return ncclSuccess;
  if (t_error != ncclSuccess) {  // a call of the group failed: nothing of it runs
    const ncclResult_t r = t_error;
    t_ops.clear();
    t_error = ncclSuccess;
    setLastError(std::string("stand-in NCCL: ncclGroupEnd: a call of the group failed, so none of it was queued: ") +
                 lastError());
    return r;
  }
  return launch();
}

ncclResult_t ncclAllReduce(const void* s, void* r, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t st) {
  return post("ncclAllReduce", comm, call(OpKind::all_reduce, s, r, count, t, op, 0, 0, st));
}
ncclResult_t ncclBroadcast(const void* s, void* r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t st) {
  return post("ncclBroadcast", comm, call(OpKind::broadcast, s, r, count, t, 0, root, 0, st));
}
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t st) {
  return post("ncclBcast", comm, call(OpKind::broadcast, buff, buff, count, t, 0, root, 0, st));
}
ncclResult_t ncclReduce(const void* s, void* r, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t st) {
  return post("ncclReduce", comm, call(OpKind::reduce, s, r, count, t, op, root, 0, st));
}
ncclResult_t ncclAllGather(const void* s, void* r, size_t sendcount, ncclDataType_t t, ncclComm_t comm,
                           cudaStream_t st) {
  return post("ncclAllGather", comm, call(OpKind::all_gather, s, r, sendcount, t, 0, 0, 0, st));
}
ncclResult_t ncclReduceScatter(const void* s, void* r, size_t recvcount, ncclDataType_t t, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t st) {
  return post("ncclReduceScatter", comm, call(OpKind::reduce_scatter, s, r, recvcount, t, op, 0, 0, st));
}
ncclResult_t ncclAlltoAll(const void* s, void* r, size_t count, ncclDataType_t t, ncclComm_t comm, cudaStream_t st) {
  return post("ncclAlltoAll", comm, call(OpKind::all_to_all, s, r, count, t, 0, 0, 0, st));
}
ncclResult_t ncclGather(const void* s, void* r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                        cudaStream_t st) {
  return post("ncclGather", comm, call(OpKind::gather, s, r, count, t, 0, root, 0, st));
}
ncclResult_t ncclScatter(const void* s, void* r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                         cudaStream_t st) {
  return post("ncclScatter", comm, call(OpKind::scatter, s, r, count, t, 0, root, 0, st));
}
ncclResult_t ncclSend(const void* s, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  return post("ncclSend", comm, call(OpKind::send, s, nullptr, count, t, 0, 0, peer, st));
}
ncclResult_t ncclRecv(void* r, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  return post("ncclRecv", comm, call(OpKind::recv, nullptr, r, count, t, 0, 0, peer, st));
}

// NCCL's profiling names (pncclX, which a tool's ncclX calls after its own
// work), as NCCL exports them: the very same functions under a second name.
#define COLLVIZ_PNCCL(name) __attribute__((alias(#name))) decltype(name) p##name;
COLLVIZ_PNCCL(ncclGetErrorString) COLLVIZ_PNCCL(ncclGetLastError) COLLVIZ_PNCCL(ncclGetVersion)
COLLVIZ_PNCCL(ncclGetUniqueId) COLLVIZ_PNCCL(ncclCommInitRankConfig) COLLVIZ_PNCCL(ncclCommInitRank)
COLLVIZ_PNCCL(ncclCommAbort) COLLVIZ_PNCCL(ncclCommDestroy) COLLVIZ_PNCCL(ncclCommSplit)
COLLVIZ_PNCCL(ncclCommGetAsyncError) COLLVIZ_PNCCL(ncclCommCount) COLLVIZ_PNCCL(ncclCommUserRank)
COLLVIZ_PNCCL(ncclCommCuDevice) COLLVIZ_PNCCL(ncclGroupStart) COLLVIZ_PNCCL(ncclGroupEnd)
COLLVIZ_PNCCL(ncclAllReduce) COLLVIZ_PNCCL(ncclBroadcast) COLLVIZ_PNCCL(ncclBcast) COLLVIZ_PNCCL(ncclReduce)
COLLVIZ_PNCCL(ncclAllGather) COLLVIZ_PNCCL(ncclReduceScatter) COLLVIZ_PNCCL(ncclAlltoAll) COLLVIZ_PNCCL(ncclGather)
COLLVIZ_PNCCL(ncclScatter) COLLVIZ_PNCCL(ncclSend) COLLVIZ_PNCCL(ncclRecv)
#undef COLLVIZ_PNCCL

}  // extern "C"
