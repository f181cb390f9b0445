// The NCCL communicator (see nccl_communicator.h). CUDA and NCCL headers
// come in through nccl_common.h; only nccl_*.cpp files include it.
#include "engine/worker/nccl_communicator.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/placement.h"
#include "engine/poison.h"
#include "engine/worker/nccl_common.h"

namespace collviz {
namespace {

using namespace nccl_detail;
using Clock = std::chrono::steady_clock;

// Page-locks the shared-memory ranges for one run, so the copies are real
// async DMA. Not cached across runs: the engine may remap shared memory at
// the same addresses, and a stale registration would copy the old pages.
class HostPin {
 public:
  HostPin() = default;
  HostPin(const HostPin&) = delete;
  HostPin& operator=(const HostPin&) = delete;
  ~HostPin() {
    for (void* p : pinned_) cudaHostUnregister(p);
  }
  // Returns an empty string, or why the copies stay pageable.
  std::string pin(const void* a, std::size_t an, const void* b, std::size_t bn) {
    tried_ = true;
    const std::uintptr_t page = 4096;
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> r;
    for (auto [p, n] : {std::pair{a, an}, std::pair{b, bn}}) {
      if (!p || n == 0) continue;
      const auto lo = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
      const auto hi = (reinterpret_cast<std::uintptr_t>(p) + n + page - 1) & ~(page - 1);
      if (!r.empty() && lo <= r[0].second && r[0].first <= hi) {  // overlap: one range
        r[0] = {std::min(lo, r[0].first), std::max(hi, r[0].second)};
      } else {
        r.emplace_back(lo, hi);
      }
    }
    for (auto [lo, hi] : r) {
      void* p = reinterpret_cast<void*>(lo);
      const cudaError_t e = cudaHostRegister(p, hi - lo, cudaHostRegisterDefault);
      if (e == cudaSuccess) {
        pinned_.push_back(p);
      } else {
        cudaGetLastError();
        if (e != cudaErrorHostMemoryAlreadyRegistered) return "cudaHostRegister: " + cudaText(e);
      }
    }
    return {};
  }
  // After a failure copies may still be in flight: leave the pages pinned
  // (the worker is about to be replaced).
  void keep() { pinned_.clear(); tried_ = false; }
  bool active() const { return tried_; }

 private:
  std::vector<void*> pinned_;
  bool tried_ = false;  // past allocation: copies may have been queued
};

struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t capacity = 0;
};

class NcclCommunicator final : public Communicator {
 public:
  explicit NcclCommunicator(int gpu) : gpu_(gpu), version_(runtimeVersion()) {}
  ~NcclCommunicator() override;
  Status init(int rank, int size, ControlStore& store, int timeout_ms) override;
  Result<OpTiming> run(const OpSpec& spec, const void* in, void* out,
                       const RunOptions& opts) override;
  BackendInfo describe() const override;
  BackendCaps caps() const override;

 private:
  enum Ev {
    copy_in_begin, copy_in_end, op_begin, op_end, copy_out_begin, copy_out_end,
    poison_begin, poison_end, kEvents
  };
  Result<OpTiming> runBody(const OpSpec& s, const void* in, void* out, const RunOptions& o,
                           HostPin& pin);
  Status reserve(DeviceBuffer& b, std::size_t bytes, const char* what);
  void freeBuffers();
  Status launch(const OpSpec& s, Clock::time_point deadline);
  Status poison(const OpSpec& s, std::size_t out_bytes);
  ncclResult_t sendRecv(Op op, const void* send, void* recv, std::size_t count,
                        ncclDataType_t t, std::size_t esize, int root);
  Status settle(ncclResult_t r, Clock::time_point deadline);
  Status wait(cudaEvent_t done, Clock::time_point deadline);
  void abort(const std::string& why);
  std::string who() const {
    return "rank " + std::to_string(rank_) + " (GPU " + std::to_string(gpu_) + ")";
  }

  int gpu_;
  int version_;
  int rank_ = 0;
  int size_ = 0;
  int timeout_ms_ = 60000;
  GpuList gpus_;
  NativeOps native_;
  GpuSharing sharing_ = GpuSharing::host_id;
  ncclComm_t comm_ = nullptr;
  std::string broken_;  // why comm_ was aborted
  cudaStream_t op_stream_ = nullptr;
  cudaStream_t copy_stream_ = nullptr;  // the copies' own stream
  std::array<cudaEvent_t, kEvents> ev_{};
  DeviceBuffer in_, out_;
  std::string copy_note_;
};

NcclCommunicator::~NcclCommunicator() {
  if (comm_) {
    // Finalize flushes outstanding work; if peers are gone it cannot finish,
    // so it is bounded and then falls back to abort.
    ncclResult_t r = ncclCommFinalize(comm_);
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::min(timeout_ms_, 5000));
    if (r == ncclSuccess || r == ncclInProgress) r = settle(r, deadline) ? ncclSuccess : ncclSystemError;
    if (r == ncclSuccess) ncclCommDestroy(comm_); else ncclCommAbort(comm_);
  }
  freeBuffers();
  for (cudaEvent_t e : ev_)
    if (e) cudaEventDestroy(e);
  if (op_stream_) cudaStreamDestroy(op_stream_);
  if (copy_stream_) cudaStreamDestroy(copy_stream_);
}

Status NcclCommunicator::init(int rank, int size, ControlStore& store, int timeout_ms) {
  if (comm_) return Error{"NCCL communicator already initialised"};
  rank_ = rank;
  size_ = size;
  if (timeout_ms > 0) timeout_ms_ = timeout_ms;
  gpus_ = listGpus();
  if (!gpus_.error.empty()) return Error{"NCCL unavailable on " + who() + ": " + gpus_.error};
  if (gpu_ < 0 || gpu_ >= int(gpus_.names.size()))
    return Error{"GPU " + std::to_string(gpu_) + " does not exist (" +
                 std::to_string(gpus_.names.size()) + " visible)"};
  native_ = loadNativeOps(version_);
  sharing_ = std::getenv("NCCL_MULTI_RANK_GPU_ENABLE") ? GpuSharing::multi_rank_gpu
                                                        : GpuSharing::host_id;
  CUDA_TRY(cudaSetDevice(gpu_));
  CUDA_TRY(cudaStreamCreateWithFlags(&op_stream_, cudaStreamNonBlocking));
  CUDA_TRY(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
  for (cudaEvent_t& e : ev_) CUDA_TRY(cudaEventCreate(&e));

  // Rendezvous through the engine's control channel: rank 0 makes the id.
  ncclUniqueId id{};
  const std::string key = "nccl/unique_id";
  if (rank == 0) {
    NCCL_TRY(ncclGetUniqueId(&id));
    Status s = store.set(key, std::vector<char>(id.internal, id.internal + sizeof id.internal));
    if (!s) return Error{"publishing the ncclUniqueId: " + s.message()};
  } else {
    auto v = store.get(key, std::max(timeout_ms_, 10000) * 9 / 10);
    if (!v) return Error{who() + ": no ncclUniqueId from rank 0: " + v.error().message};
    if (v->size() != sizeof id.internal) return Error{"ncclUniqueId of the wrong size"};
    std::memcpy(id.internal, v->data(), sizeof id.internal);
  }
  // Non-blocking so a missing peer is a deadline, not a hang.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  const ncclResult_t r = ncclCommInitRankConfig(&comm, size, id, rank, &config);
  comm_ = comm;
  if (r != ncclSuccess && r != ncclInProgress) {
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
    return Error{"ncclCommInitRankConfig on " + who() + " failed: " + ncclText(r)};
  }
  // The engine allows max(timeout, 10 s) for a group to start; stay inside it.
  const auto init_budget = std::chrono::milliseconds(std::max(timeout_ms_, 10000) * 9 / 10);
  if (Status s = settle(r, Clock::now() + init_budget); !s) {
    abort(s.message());
    return Error{"NCCL init of " + who() + " of " + std::to_string(size) + ": " + s.message() +
                 "; communicator aborted"};
  }
  return {};
}

Status NcclCommunicator::reserve(DeviceBuffer& b, std::size_t bytes, const char* what) {
  if (bytes <= b.capacity) return {};
  if (b.ptr) cudaFree(b.ptr);
  b = {};
  const cudaError_t e = cudaMalloc(&b.ptr, bytes);
  if (e == cudaSuccess) {
    b.capacity = bytes;
    return {};
  }
  b.ptr = nullptr;
  cudaGetLastError();
  freeBuffers();  // nothing stays allocated after a failed request
  std::size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  return Error{"cudaMalloc of " + std::to_string(bytes) + " bytes for the " + what + " on GPU " +
               std::to_string(gpu_) + " failed: " + cudaText(e) + "; " +
               std::to_string(free_b) + " bytes free of " + std::to_string(total_b)};
}

void NcclCommunicator::freeBuffers() {
  for (DeviceBuffer* b : {&in_, &out_}) {
    if (b->ptr) cudaFree(b->ptr);
    *b = {};
  }
}

void NcclCommunicator::abort(const std::string& why) {
  if (comm_) ncclCommAbort(comm_);
  comm_ = nullptr;
  broken_ = why;
}

// A non-blocking communicator may return ncclInProgress from any call; the
// call has finished on the host once the async state leaves ncclInProgress.
Status NcclCommunicator::settle(ncclResult_t r, Clock::time_point deadline) {
  if (r == ncclSuccess) return {};
  if (r != ncclInProgress) return Error{ncclText(r)};
  for (int spins = 0;; ++spins) {
    ncclResult_t state = ncclInProgress;
    const ncclResult_t q = ncclCommGetAsyncError(comm_, &state);
    if (q != ncclSuccess) return Error{"ncclCommGetAsyncError: " + ncclText(q)};
    if (state == ncclSuccess) return {};
    if (state != ncclInProgress) return Error{"NCCL async error: " + ncclText(state)};
    if (Clock::now() > deadline) return Error{"timed out"};
    if (spins < 1000) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

Status NcclCommunicator::wait(cudaEvent_t done, Clock::time_point deadline) {
  for (int spins = 0;; ++spins) {
    const cudaError_t q = cudaEventQuery(done);
    if (q == cudaSuccess) return {};
    if (q != cudaErrorNotReady) return Error{"CUDA error: " + cudaText(q)};
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state != ncclSuccess &&
        state != ncclInProgress)
      return Error{"NCCL async error: " + ncclText(state)};
    if (Clock::now() > deadline) return Error{"timed out"};
    if (spins < 1000) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

ncclResult_t NcclCommunicator::sendRecv(Op op, const void* send, void* recv, std::size_t count,
                                        ncclDataType_t t, std::size_t esize, int root) {
  const std::size_t step = count * esize;
  auto sendAt = [&](std::size_t i) { return static_cast<const char*>(send) + i * step; };
  auto recvAt = [&](std::size_t i) { return static_cast<char*>(recv) + i * step; };
  ncclResult_t first = ncclGroupStart();
  if (first != ncclSuccess) return first;
  auto keep = [&](ncclResult_t r) { if (first == ncclSuccess) first = r; };
  for (int p = 0; p < size_; ++p) {
    if (op == Op::gather && rank_ == root) keep(ncclRecv(recvAt(p), count, t, p, comm_, op_stream_));
    if (op == Op::scatter && rank_ == root) keep(ncclSend(sendAt(p), count, t, p, comm_, op_stream_));
    if (op == Op::all_to_all) {
      keep(ncclSend(sendAt(p), count, t, p, comm_, op_stream_));
      keep(ncclRecv(recvAt(p), count, t, p, comm_, op_stream_));
    }
  }
  if (op == Op::gather) keep(ncclSend(send, count, t, root, comm_, op_stream_));
  if (op == Op::scatter) keep(ncclRecv(recv, count, t, root, comm_, op_stream_));
  const ncclResult_t end = ncclGroupEnd();  // always closes the group
  return first != ncclSuccess ? first : end;
}

Status NcclCommunicator::launch(const OpSpec& s, Clock::time_point deadline) {
  const ncclDataType_t t = ncclType(s.dtype);
  const ncclRedOp_t op = ncclOp(s.redop);
  const std::size_t E = std::size_t(s.elems);
  const std::size_t in_count = std::size_t(inputBlocks(s.op, s.ranks, rank_, s.root)) * E;
  const std::size_t out_count = std::size_t(outputBlocks(s.op, s.ranks, rank_, s.root)) * E;
  const bool root = rank_ == s.root;
  void* din = in_.ptr;
  void* dout = out_.ptr;
  ncclResult_t r = ncclSuccess;
  switch (s.op) {
    case Op::broadcast:  // non-roots have no input: in place on the output
      r = ncclBroadcast(root ? din : dout, dout, out_count, t, s.root, comm_, op_stream_);
      break;
    case Op::reduce:
      r = ncclReduce(din, root ? dout : nullptr, in_count, t, op, s.root, comm_, op_stream_);
      break;
    case Op::all_gather: r = ncclAllGather(din, dout, in_count, t, comm_, op_stream_); break;
    case Op::reduce_scatter:
      r = ncclReduceScatter(din, dout, out_count, t, op, comm_, op_stream_);
      break;
    case Op::all_reduce: r = ncclAllReduce(din, dout, in_count, t, op, comm_, op_stream_); break;
    case Op::gather:
      r = native_.gather ? native_.gather(din, root ? dout : nullptr, in_count, t, s.root, comm_, op_stream_)
                         : sendRecv(s.op, din, dout, in_count, t, dtypeSize(s.dtype), s.root);
      break;
    case Op::scatter:
      r = native_.scatter ? native_.scatter(root ? din : nullptr, dout, out_count, t, s.root, comm_, op_stream_)
                          : sendRecv(s.op, din, dout, out_count, t, dtypeSize(s.dtype), s.root);
      break;
    case Op::all_to_all: {
      const std::size_t per_peer = in_count / std::size_t(size_);
      r = native_.alltoall ? native_.alltoall(din, dout, per_peer, t, comm_, op_stream_)
                           : sendRecv(s.op, din, dout, per_peer, t, dtypeSize(s.dtype), s.root);
      break;
    }
  }
  return settle(r, deadline);
}

// The device output is reused from run to run: poison it on the op stream
// before the call whose result is copied out, so a call that does not write
// shows the poison, never an earlier run's result (engine/poison.h).
Status NcclCommunicator::poison(const OpSpec& s, std::size_t out_bytes) {
  if (out_bytes == 0) return {};
  CUDA_TRY(cudaMemsetAsync(out_.ptr, poisonByte(s.dtype), out_bytes, op_stream_));
  return {};
}

Result<OpTiming> NcclCommunicator::run(const OpSpec& s, const void* in, void* out,
                                       const RunOptions& opts) {
  HostPin pin;
  Result<OpTiming> r = runBody(s, in, out, opts, pin);
  if (!r.ok() && pin.active()) {
    // Work may still be queued on the streams: end the group rather than
    // unregister memory a copy might still touch (the engine restarts it).
    if (comm_) abort(r.error().message);
    pin.keep();
  }
  return r;
}

Result<OpTiming> NcclCommunicator::runBody(const OpSpec& s, const void* in, void* out,
                                           const RunOptions& o, HostPin& pin) {
  const std::string what = "NCCL " + std::string(name(s.op)) + " on " + who();
  if (!comm_)
    return Error{what + ": " + (broken_.empty() ? "communicator not initialised"
                                                : "communicator aborted earlier (" + broken_ + ")")};
  if (s.ranks != size_)
    return Error{what + ": spec has " + std::to_string(s.ranks) + " ranks, the group " +
                 std::to_string(size_)};
  const std::size_t in_bytes = inputBytes(s, rank_), out_bytes = outputBytes(s, rank_);
  if ((in_bytes && !in) || (out_bytes && !out)) return Error{what + ": missing host buffer"};
  if (s.op == Op::all_to_all && inputBlocks(s.op, s.ranks, rank_, s.root) % size_ != 0)
    return Error{what + ": input blocks not divisible by the ranks"};
  const int warmup = std::max(0, o.warmup), iters = std::max(1, o.iters);
  // timeout_ms per iteration, as the engine counts, less 10% so that this
  // rank reports (and aborts) before the engine gives up on it.
  const auto budget =
      std::chrono::milliseconds(int64_t(timeout_ms_) * std::max(1, warmup + iters) * 9 / 10);
  const auto deadline = Clock::now() + budget;

  CUDA_TRY(cudaSetDevice(gpu_));
  if (Status st = reserve(in_, in_bytes, "input"); !st) return Error{what + ": " + st.message()};
  if (Status st = reserve(out_, out_bytes, "output"); !st) return Error{what + ": " + st.message()};
  copy_note_ = pin.pin(in, in_bytes, out, out_bytes);

  // Copy in on the copy stream; the op stream waits for it.
  CUDA_TRY(cudaEventRecord(ev_[copy_in_begin], copy_stream_));
  if (in_bytes) CUDA_TRY(cudaMemcpyAsync(in_.ptr, in, in_bytes, cudaMemcpyHostToDevice, copy_stream_));
  CUDA_TRY(cudaEventRecord(ev_[copy_in_end], copy_stream_));
  CUDA_TRY(cudaStreamWaitEvent(op_stream_, ev_[copy_in_end], 0));

  Status st;
  for (int i = 0; st && i < warmup; ++i) st = launch(s, deadline);
  if (st && iters == 1) st = poison(s, out_bytes);  // outside the timed region
  if (st) CUDA_TRY(cudaEventRecord(ev_[op_begin], op_stream_));
  for (int i = 0; st && i < iters; ++i) {
    if (i == iters - 1 && iters > 1) {
      // Inside the timed region: timed on its own and taken out of the op time.
      CUDA_TRY(cudaEventRecord(ev_[poison_begin], op_stream_));
      st = poison(s, out_bytes);
      if (st) CUDA_TRY(cudaEventRecord(ev_[poison_end], op_stream_));
    }
    if (st) st = launch(s, deadline);
  }
  if (st) {
    CUDA_TRY(cudaEventRecord(ev_[op_end], op_stream_));
    // Copy out on the copy stream once the last iteration is done.
    CUDA_TRY(cudaStreamWaitEvent(copy_stream_, ev_[op_end], 0));
    CUDA_TRY(cudaEventRecord(ev_[copy_out_begin], copy_stream_));
    if (out_bytes)
      CUDA_TRY(cudaMemcpyAsync(out, out_.ptr, out_bytes, cudaMemcpyDeviceToHost, copy_stream_));
    CUDA_TRY(cudaEventRecord(ev_[copy_out_end], copy_stream_));
    st = wait(ev_[copy_out_end], deadline);
  }
  if (!st) {
    std::string why = st.message();
    if (why == "timed out") why = "timed out after " + std::to_string(budget.count()) + " ms";
    abort(why);
    return Error{what + ": " + why + "; communicator aborted"};
  }
  float op_ms = 0, in_ms = 0, out_ms = 0;
  CUDA_TRY(cudaEventElapsedTime(&op_ms, ev_[op_begin], ev_[op_end]));
  CUDA_TRY(cudaEventElapsedTime(&in_ms, ev_[copy_in_begin], ev_[copy_in_end]));
  CUDA_TRY(cudaEventElapsedTime(&out_ms, ev_[copy_out_begin], ev_[copy_out_end]));
  if (iters > 1) {
    float poison_ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&poison_ms, ev_[poison_begin], ev_[poison_end]));
    op_ms = std::max(0.0f, op_ms - poison_ms);
  }
  return OpTiming{1000.0 * op_ms / iters, 1000.0 * (in_ms + out_ms)};
}

BackendInfo NcclCommunicator::describe() const {
  BackendInfo b;
  b.name = "nccl";
  b.version = ncclVersionString(version_);
  if (version_ != NCCL_VERSION_CODE)
    b.version += " (runtime; built against " + ncclVersionString(NCCL_VERSION_CODE) + ")";
  const int g = int(gpus_.names.size());
  b.devices = describeGpus(gpus_) + "; " + std::to_string(size_) + " ranks, up to " +
              std::to_string(ranksPerGpu(size_, g)) + " per GPU";
  b.transport = describeTransport(size_, g, sharing_);
  b.notes = nativeOpsNote(native_) + "; avg: ncclAvg";
  b.notes += copy_note_.empty() ? "; copies: shared memory page-locked (cudaHostRegister)"
                                : "; copies: pageable (" + copy_note_ + ")";
  if (size_ > g && g > 0 && sharing_ == GpuSharing::host_id)
    b.notes += "; ranks sharing a GPU use NCCL's socket transport on loopback (host bandwidth, not NVLink)";
  return b;
}

BackendCaps NcclCommunicator::caps() const {
  return BackendCaps{"nccl", ncclDTypes(version_), ncclRedOps(version_), kMaxRanks,
                     maxRankBytes(gpus_)};
}

}  // namespace

std::unique_ptr<Communicator> makeNcclCommunicator(int gpu) {
  return std::make_unique<NcclCommunicator>(gpu);
}

}  // namespace collviz
