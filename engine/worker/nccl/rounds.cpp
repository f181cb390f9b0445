// An algorithm's rounds on NCCL (worker/round_runner.h): the rank's input is
// copied once to the device, the working buffer and the scratch live in
// device memory, each round's sends and receives are one ncclGroupStart ..
// ncclGroupEnd of ncclSend/ncclRecv on the op stream, and the combines,
// local copies and the final division are kernels and device copies queued
// behind it on the same stream, so the host never waits inside a call: the
// stream orders round after round, and the call waits once, for the copy of
// the working buffer back to host shared memory (where the engine reads it),
// under the watchdog as run() does. CUDA and NCCL headers come in through
// nccl/communicator_impl.h (nccl_* files only).
#include <string>

#include "engine/algo/schedule.h"
#include "engine/worker/nccl/communicator_impl.h"
#include "engine/worker/reduce_kind.h"
#include "engine/worker/round_runner.h"

namespace collviz::nccl_detail {
namespace {

// RoundDevice on device memory. Every call only queues work on `stream`;
// the first failure is kept and returned by the next exchange() and by
// failure().
class NcclRoundDevice final : public RoundDevice {
 public:
  NcclRoundDevice(std::mutex& mu, const ncclComm_t& comm, const Text& broken,
                  cudaStream_t stream, const OpSpec& s)
      : mu_(mu), comm_(comm), broken_(broken), stream_(stream),
        elem_(elemKind(s.dtype)), combine_(combineKind(s.redop)) {}

  // One group of every send and receive of the round, in the runner's
  // order: NCCL matches the messages between two ranks in the order they
  // are posted, which is the order of the schedule's moves on both sides
  // (the tags, which NCCL has no use for, follow the same order).
  Status exchange(const std::vector<Post>& sends, const std::vector<Post>& recvs) override {
    if (!error_.empty()) return Error{error_};
    std::lock_guard<std::mutex> lock(mu_);
    if (!comm_) return Error{say("communicator aborted ({0})", broken_)};
    ncclResult_t first = ncclGroupStart();
    if (first != ncclSuccess) return Error{lit("ncclGroupStart: " + ncclText(first))};
    auto keep = [&](ncclResult_t r) { if (first == ncclSuccess) first = r; };
    for (const Post& p : sends) keep(ncclSend(p.ptr, p.bytes, ncclInt8, p.peer, comm_, stream_));
    for (const Post& p : recvs) keep(ncclRecv(p.ptr, p.bytes, ncclInt8, p.peer, comm_, stream_));
    const ncclResult_t end = ncclGroupEnd();  // always closes the group
    if (first != ncclSuccess) return Error{lit("ncclSend/ncclRecv: " + ncclText(first))};
    if (end != ncclSuccess) return Error{lit("ncclGroupEnd: " + ncclText(end))};
    return {};
  }
  void reduce(std::byte* dst, const std::byte* src, std::size_t elems) override {
    kernel(say("the reduce kernel"),
           reduce_ops::launchReduce(elem_, combine_, dst, src, elems, stream_));
  }
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    cuda("cudaMemcpyAsync", cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
  }
  void zero(std::byte* dst, std::size_t bytes) override {
    cuda("cudaMemsetAsync", cudaMemsetAsync(dst, 0, bytes, stream_));
  }
  // `src` is the device copy of the rank's input (see roundsBody).
  void load(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    cuda("cudaMemcpyAsync", cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
  }
  void divide(std::byte* p, std::size_t elems, int n) override {
    kernel(say("the divide kernel"), reduce_ops::launchDivide(elem_, p, elems, n, stream_));
  }
  // A fault on purpose (round_corrupt): the byte's round trip through the
  // host, in stream order; speed does not matter here.
  void flipLowBit(std::byte* p) override {
    unsigned char b = 0;
    cuda("cudaMemcpyAsync", cudaMemcpyAsync(&b, p, 1, cudaMemcpyDeviceToHost, stream_));
    cuda("cudaStreamSynchronize", cudaStreamSynchronize(stream_));
    b ^= 1u;
    cuda("cudaMemcpyAsync", cudaMemcpyAsync(p, &b, 1, cudaMemcpyHostToDevice, stream_));
    cuda("cudaStreamSynchronize", cudaStreamSynchronize(stream_));
  }
  const Text& failure() const { return error_; }

 private:
  void cuda(const char* what, cudaError_t e) {
    if (e == cudaSuccess || !error_.empty()) return;
    cudaGetLastError();
    error_ = say("{0} failed: {1}", what, cudaText(e));
  }
  void kernel(Text what, int e) {
    if (e == 0 || !error_.empty()) return;
    error_ = say("launching {0} failed: {1}", std::move(what), cudaText(cudaError_t(e)));
  }

  std::mutex& mu_;
  const ncclComm_t& comm_;  // the communicator's: the watchdog's abort sets it null
  const Text& broken_;
  cudaStream_t stream_;
  reduce_ops::ElemKind elem_;
  reduce_ops::CombineKind combine_;
  Text error_;
};

}  // namespace

Result<RoundsTiming> NcclCommunicator::runRounds(const algo::Schedule& s, int from, int to,
                                                 const void* in, void* work,
                                                 const RunOptions& opts) {
  const Text what = say("NCCL {0} {1} on {2}", s.algo, name(s.spec.op), who());
  return guarded<RoundsTiming>(what, opts, [&](HostPin& pin) {
    return roundsBody(s, from, to, in, work, opts, pin);
  });
}

// Round 0 starts the working buffer from the input; a later first round
// continues from the working buffer in shared memory (what the previous call
// left there). Repetitions repeat rounds [from, to), as on Gloo.
Result<RoundsTiming> NcclCommunicator::roundsBody(const algo::Schedule& s, int from, int to,
                                                  const void* in, void* work,
                                                  const RunOptions& o, HostPin& pin) {
  {
    std::lock_guard<std::mutex> lock(nccl_mu_);
    if (!comm_) return Error{say("communicator aborted earlier ({0})", broken_)};
  }
  if (s.spec.ranks != size_)
    return Error{say("spec has {0} ranks, the group {1}", s.spec.ranks, size_)};
  const RoundRunner runner(s, rank_, o.round_fault);
  if (!runner.status()) return runner.status().error();
  if (from < 0 || to > runner.rounds() || from > to)
    return Error{say("rounds {0} to {1} are outside the schedule's {2}", from, to, runner.rounds())};
  const std::size_t in_bytes = from == 0 ? inputBytes(s.spec, rank_) : 0;
  const std::size_t work_bytes = s.workBytes();
  if ((in_bytes && !in) || !work) return Error{say("missing host buffer")};
  const int warmup = std::max(0, o.warmup), iters = std::max(1, o.iters);

  CUDA_TRY(cudaSetDevice(gpu_));
  if (Status st = reserve(in_, in_bytes, say("input")); !st) return st.error();
  if (Status st = reserve(out_, work_bytes, say("working buffer")); !st) return st.error();
  if (Status st = reserve(scratch_, runner.scratchBytes(), say("round scratch")); !st)
    return st.error();
  pin.pin(in, in_bytes, work, work_bytes);
  queued_ = true;  // from here a failure may leave work on the streams
  auto* w = static_cast<std::byte*>(out_.ptr);
  auto* scratch = static_cast<std::byte*>(scratch_.ptr);
  const auto* din = static_cast<const std::byte*>(in_.ptr);

  // Copy in on the copy stream: the input (round 0) or the working buffer.
  CUDA_TRY(cudaEventRecord(ev_[copy_in_begin], copy_stream_));
  if (from == 0 && in_bytes)
    CUDA_TRY(cudaMemcpyAsync(in_.ptr, in, in_bytes, cudaMemcpyHostToDevice, copy_stream_));
  if (from > 0 && work_bytes)
    CUDA_TRY(cudaMemcpyAsync(out_.ptr, work, work_bytes, cudaMemcpyHostToDevice, copy_stream_));
  CUDA_TRY(cudaEventRecord(ev_[copy_in_end], copy_stream_));
  CUDA_TRY(cudaStreamWaitEvent(op_stream_, ev_[copy_in_end], 0));

  NcclRoundDevice dev(nccl_mu_, comm_, broken_, op_stream_, s.spec);
  RoundCounts counts;
  auto repetition = [&]() -> Status {
    counts = {};
    if (from == 0) runner.start(dev, w, din);
    for (int k = from; k < to; ++k)
      if (Status st = runner.round(dev, k, w, scratch, counts); !st)
        return Error{say("round {0}: {1}", k + 1, st.text())};
    if (to == runner.rounds()) runner.finish(dev, w);
    if (!dev.failure().empty()) return Error{dev.failure()};
    return {};
  };
  for (int i = 0; i < warmup; ++i)
    if (Status st = repetition(); !st) return st.error();
  CUDA_TRY(cudaEventRecord(ev_[op_begin], op_stream_));
  for (int i = 0; i < iters; ++i)
    if (Status st = repetition(); !st) return st.error();
  CUDA_TRY(cudaEventRecord(ev_[op_end], op_stream_));
  // The working buffer back to shared memory once the last round is done.
  auto times = copyBackAndTime(work, work_bytes);
  if (!times) return times.error();
  RoundsTiming t;
  t.op_us = 1000.0 * times->op_ms / iters;
  t.copy_us = 1000.0 * (times->in_ms + times->out_ms);
  t.sent = counts.sent;
  t.received = counts.received;
  return t;
}

}  // namespace collviz::nccl_detail
