// The NCCL communicator's runs (see nccl/communicator.h): copies, the op on
// a blocking communicator timed with CUDA events, the wait. CUDA and NCCL
// headers come in through nccl/communicator_impl.h (nccl_* files only).
#include "engine/worker/nccl/communicator.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "engine/verify/poison.h"
#include "engine/worker/nccl/communicator_impl.h"

namespace collviz {
namespace nccl_detail {

Status NcclCommunicator::reserve(DeviceBuffer& b, std::size_t bytes, const Text& what) {
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
  return Error{say("cudaMalloc of {0} bytes for the {1} on GPU {2} failed: {3}; {4} bytes free of {5}", bytes,
                   what, gpu_, cudaText(e), free_b, total_b)};
}

void NcclCommunicator::freeBuffers() {
  for (DeviceBuffer* b : {&in_, &out_, &scratch_}) {
    if (b->ptr) {
      const cudaError_t e = cudaFree(b->ptr);
      if (e != cudaSuccess) {
        cudaGetLastError();
        log("cudaFree failed: " + cudaText(e));
      }
    }
    *b = {};
  }
}

// The calling thread sleeps between checks: it never competes with NCCL's
// own threads for the CPU, and the op's CUDA events do not see it.
Status NcclCommunicator::waitFor(cudaEvent_t done) {
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    const cudaError_t q = cudaEventQuery(done);
    if (q == cudaSuccess) return {};
    if (q != cudaErrorNotReady) return Error{say("CUDA error: {0}", cudaText(q))};
    if (watchdog_->expired()) return Error{say("timed out")};
    {
      std::lock_guard<std::mutex> lock(nccl_mu_);
      if (!comm_) return Error{say("timed out")};
      ncclResult_t state = ncclSuccess;
      if (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state != ncclSuccess &&
          state != ncclInProgress)
        return Error{say("NCCL async error: {0}", ncclText(state))};
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
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

// One enqueue of the op. The communicator is blocking: the call returns once
// the work is queued (or NCCL failed), never ncclInProgress.
Status NcclCommunicator::launch(const OpSpec& s) {
  const ncclDataType_t t = ncclType(s.dtype);
  const ncclRedOp_t op = ncclOp(s.redop);
  const std::size_t E = std::size_t(s.elems);
  const std::size_t in_count = std::size_t(inputBlocks(s.op, s.ranks, rank_, s.root)) * E;
  const std::size_t out_count = std::size_t(outputBlocks(s.op, s.ranks, rank_, s.root)) * E;
  const bool root = rank_ == s.root;
  void* din = in_.ptr;
  void* dout = out_.ptr;
  std::lock_guard<std::mutex> lock(nccl_mu_);
  if (!comm_) return Error{say("communicator aborted ({0})", broken_)};
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
  if (r != ncclSuccess) return Error{lit(ncclText(r))};  // NCCL's own words
  return {};
}

Result<OpTiming> NcclCommunicator::run(const OpSpec& s, const void* in, void* out,
                                       const RunOptions& opts) {
  return guarded<OpTiming>(say("NCCL {0} on {1}", name(s.op), who()), opts,
                           [&](HostPin& pin) { return runBody(s, in, out, opts, pin); });
}

// The device output is reused from run to run: poison it on the op stream
// before the call whose result is copied out, so a call that does not write
// shows the poison, never an earlier run's result (engine/verify/poison.h).
// After op_end is recorded: copy `bytes` of the device output (out_) back to
// `host` on the copy stream once the op stream is done, wait under the
// watchdog, and read the op, copy-in and copy-out times off the events.
Result<NcclCommunicator::EventTimes> NcclCommunicator::copyBackAndTime(void* host,
                                                                        std::size_t bytes) {
  CUDA_TRY(cudaStreamWaitEvent(copy_stream_, ev_[op_end], 0));
  CUDA_TRY(cudaEventRecord(ev_[copy_out_begin], copy_stream_));
  if (bytes) CUDA_TRY(cudaMemcpyAsync(host, out_.ptr, bytes, cudaMemcpyDeviceToHost, copy_stream_));
  CUDA_TRY(cudaEventRecord(ev_[copy_out_end], copy_stream_));
  if (Status st = waitFor(ev_[copy_out_end]); !st) return st.error();
  EventTimes t;
  CUDA_TRY(cudaEventElapsedTime(&t.op_ms, ev_[op_begin], ev_[op_end]));
  CUDA_TRY(cudaEventElapsedTime(&t.in_ms, ev_[copy_in_begin], ev_[copy_in_end]));
  CUDA_TRY(cudaEventElapsedTime(&t.out_ms, ev_[copy_out_begin], ev_[copy_out_end]));
  return t;
}

Status NcclCommunicator::poison(const OpSpec& s, std::size_t out_bytes) {
  if (out_bytes == 0) return {};
  CUDA_TRY(cudaMemsetAsync(out_.ptr, poisonByte(s.dtype), out_bytes, op_stream_));
  return {};
}

Result<OpTiming> NcclCommunicator::runBody(const OpSpec& s, const void* in, void* out,
                                           const RunOptions& o, HostPin& pin) {
  {
    std::lock_guard<std::mutex> lock(nccl_mu_);
    if (!comm_) return Error{say("communicator aborted earlier ({0})", broken_)};
  }
  if (s.ranks != size_)
    return Error{say("spec has {0} ranks, the group {1}", s.ranks, size_)};
  const std::size_t in_bytes = inputBytes(s, rank_), out_bytes = outputBytes(s, rank_);
  if ((in_bytes && !in) || (out_bytes && !out)) return Error{say("missing host buffer")};
  if (s.op == Op::all_to_all && inputBlocks(s.op, s.ranks, rank_, s.root) % size_ != 0)
    return Error{say("input blocks not divisible by the ranks")};
  const int warmup = std::max(0, o.warmup), iters = std::max(1, o.iters);

  CUDA_TRY(cudaSetDevice(gpu_));
  if (Status st = reserve(in_, in_bytes, say("input")); !st) return st.error();
  if (Status st = reserve(out_, out_bytes, say("output")); !st) return st.error();
  pin.pin(in, in_bytes, out, out_bytes);
  queued_ = true;  // from here a failure may leave work on the streams

  // Copy in on the copy stream; the op stream waits for it.
  CUDA_TRY(cudaEventRecord(ev_[copy_in_begin], copy_stream_));
  if (in_bytes) CUDA_TRY(cudaMemcpyAsync(in_.ptr, in, in_bytes, cudaMemcpyHostToDevice, copy_stream_));
  CUDA_TRY(cudaEventRecord(ev_[copy_in_end], copy_stream_));
  CUDA_TRY(cudaStreamWaitEvent(op_stream_, ev_[copy_in_end], 0));

  for (int i = 0; i < warmup; ++i)
    if (Status st = launch(s); !st) return st.error();
  if (iters == 1)  // outside the timed region
    if (Status st = poison(s, out_bytes); !st) return st.error();
  CUDA_TRY(cudaEventRecord(ev_[op_begin], op_stream_));
  for (int i = 0; i < iters; ++i) {
    if (i == iters - 1 && iters > 1) {
      // Inside the timed region: timed on its own and taken out of the op time.
      CUDA_TRY(cudaEventRecord(ev_[poison_begin], op_stream_));
      if (Status st = poison(s, out_bytes); !st) return st.error();
      CUDA_TRY(cudaEventRecord(ev_[poison_end], op_stream_));
    }
    if (Status st = launch(s); !st) return st.error();
  }
  CUDA_TRY(cudaEventRecord(ev_[op_end], op_stream_));
  auto times = copyBackAndTime(out, out_bytes);
  if (!times) return times.error();
  float op_ms = times->op_ms;
  const float in_ms = times->in_ms, out_ms = times->out_ms;
  if (iters > 1) {
    float poison_ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&poison_ms, ev_[poison_begin], ev_[poison_end]));
    op_ms = std::max(0.0f, op_ms - poison_ms);
  }
  return OpTiming{1000.0 * op_ms / iters, 1000.0 * (in_ms + out_ms), pin.describe()};
}

BackendInfo NcclCommunicator::describe() const {
  BackendInfo b;
  b.name = "nccl";
  b.version = ncclVersionString(version_);
  if (version_ != NCCL_VERSION_CODE)
    b.version += " (runtime; built against " + ncclVersionString(NCCL_VERSION_CODE) + ")";
  const int g = int(gpus_.names.size());
  b.devices = say("{0}; {1} ranks, up to {2} per GPU", describeGpus(gpus_), size_, ranksPerGpu(size_, g));
  b.transport = describeTransport(size_, g, sharing_);
  Text sharing;
  if (size_ > g && g > 0)
    sharing = sharing_ == GpuSharing::multi_rank_gpu
                  ? say("GPU sharing: multi-rank route (NCCL_MULTI_RANK_GPU_ENABLE=1)")
                  : say("GPU sharing: host-id route (NCCL_HOSTID per slot; socket transport on loopback, "
                        "host bandwidth, not NVLink)");
  b.notes = joined({nativeOpsNote(native_), say("avg: ncclAvg"), say("blocking communicator, watchdog abort"),
                    say("copies: page-locked or pageable per run (each rank's \"copies\")"), sharing});
  return b;
}

BackendCaps NcclCommunicator::caps() const {
  return BackendCaps{"nccl", ncclDTypes(version_), ncclRedOps(version_), kMaxRanks,
                     maxRankBytes(gpus_)};
}

}  // namespace nccl_detail

std::unique_ptr<Communicator> makeNcclCommunicator(int gpu,
                                                   std::chrono::steady_clock::time_point started) {
  return std::make_unique<nccl_detail::NcclCommunicator>(gpu, started);
}

}  // namespace collviz
