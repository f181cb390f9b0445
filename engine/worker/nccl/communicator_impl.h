// The NCCL communicator's class, shared by its source files:
// nccl/lifecycle.cpp (init, the watchdog's abort, teardown),
// nccl/communicator.cpp (runs) and nccl/rounds.cpp (an algorithm's rounds).
// Includes CUDA and NCCL headers: include it only from nccl_*.cpp files
// (built into collviz-rank by nccl.cmake).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "engine/group/placement.h"
#include "engine/worker/communicator.h"
#include "engine/worker/nccl/common.h"
#include "engine/worker/nccl/host_pin.h"
#include "engine/worker/nccl/watchdog.h"

namespace collviz::nccl_detail {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t capacity = 0;
};

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(int gpu, Clock::time_point started)
      : gpu_(gpu), version_(runtimeVersion()), started_(started) {}
  ~NcclCommunicator() override;
  Status init(int rank, int size, ControlStore& store, int timeout_ms) override;
  Result<OpTiming> run(const OpSpec& spec, const void* in, void* out,
                       const RunOptions& opts) override;
  Result<RoundsTiming> runRounds(const algo::Schedule& s, int from, int to, const void* in,
                                 void* work, const RunOptions& opts) override;
  BackendInfo describe() const override;
  BackendCaps caps() const override;

 private:
  enum Ev {
    copy_in_begin, copy_in_end, op_begin, op_end, copy_out_begin, copy_out_end,
    poison_begin, poison_end, kEvents
  };
  Status join(const ncclUniqueId& id, Clock::time_point deadline, milliseconds budget);
  // Runs body(pin) under the watchdog, armed for `reps` deadlines of the
  // call (RunOptions::timeout_ms, the engine's deadline for this op scaled
  // with its bytes; the init's when 0) less 10 %; a failure (or the
  // watchdog's expiry) aborts the communicator and names `what`.
  template <typename T, typename Body>
  Result<T> guarded(const Text& what, const RunOptions& opts, Body&& body);
  Result<OpTiming> runBody(const OpSpec& s, const void* in, void* out, const RunOptions& o,
                           HostPin& pin);
  Result<RoundsTiming> roundsBody(const algo::Schedule& s, int from, int to, const void* in,
                                  void* work, const RunOptions& o, HostPin& pin);
  Status reserve(DeviceBuffer& b, std::size_t bytes, const Text& what);
  void freeBuffers();
  Status launch(const OpSpec& s);
  Status poison(const OpSpec& s, std::size_t out_bytes);
  ncclResult_t sendRecv(Op op, const void* send, void* recv, std::size_t count,
                        ncclDataType_t t, std::size_t esize, int root);
  Status waitFor(cudaEvent_t done);
  struct EventTimes {
    float op_ms = 0, in_ms = 0, out_ms = 0;
  };
  Result<EventTimes> copyBackAndTime(void* host, std::size_t bytes);
  void expire(const std::string& what);       // the watchdog's, on its thread
  void abortLocked(const Text& why);  // nccl_mu_ held
  void teardown();
  void log(const std::string& line) const;
  Text who() const { return say("rank {0} (GPU {1})", rank_, gpu_); }

  int gpu_;
  int version_;
  Clock::time_point started_;
  int rank_ = 0;
  int size_ = 0;
  int timeout_ms_ = 60000;
  GpuList gpus_;
  NativeOps native_;
  GpuSharing sharing_ = GpuSharing::host_id;
  std::mutex nccl_mu_;  // held around every call on comm_ (the watchdog aborts under it)
  ncclComm_t comm_ = nullptr;
  Text broken_;  // why comm_ was aborted
  Text armed_;   // what the watchdog is armed for (guarded(), before arm())
  bool init_abandoned_ = false;  // a helper thread is still inside NCCL init
  cudaStream_t op_stream_ = nullptr;
  cudaStream_t copy_stream_ = nullptr;  // the copies' own stream
  std::array<cudaEvent_t, kEvents> ev_{};
  DeviceBuffer in_, out_;  // rounds: the input's copy and the working buffer
  DeviceBuffer scratch_;   // rounds: received data before it is combined
  bool queued_ = false;    // the current call has queued work on a stream
  std::unique_ptr<Watchdog> watchdog_;
};

template <typename T, typename Body>
Result<T> NcclCommunicator::guarded(const Text& what, const RunOptions& opts, Body&& body) {
  if (!watchdog_)
    return Error{say("{0}: {1}", what,
                     broken_.empty() ? say("communicator not initialised")
                                     : say("communicator aborted earlier ({0})", broken_))};
  // The call's deadline per repetition, as the engine counts, less 10% so
  // that this rank reports (and aborts) before the engine gives up on it.
  const int reps = std::max(0, opts.warmup) + std::max(1, opts.iters);
  const int64_t per_rep = opts.timeout_ms > 0 ? opts.timeout_ms : timeout_ms_;
  const milliseconds budget(per_rep * reps * 9 / 10);
  HostPin pin;
  queued_ = false;
  armed_ = what;
  watchdog_->arm(Clock::now() + budget, what.english());
  Result<T> r = body(pin);
  const bool expired = watchdog_->disarm();
  if (expired || (!r.ok() && r.error().message == "timed out"))
    r = Error{say("{0}: timed out after {1} ms; the watchdog aborted the communicator", what,
                  budget.count())};
  else if (!r.ok())
    r = Error{say("{0}: {1}", what, r.error().text)};
  // A failure before anything was queued (a cudaMalloc refused, a bad
  // range) leaves the communicator and the streams as they were: the next
  // request runs on them. Anything later aborts.
  if (!r.ok() && (expired || queued_)) {
    std::lock_guard<std::mutex> lock(nccl_mu_);
    if (comm_) abortLocked(r.error().text);
    // Work may still be queued on the streams: leave the pages pinned rather
    // than unregister memory a copy might still touch (the engine restarts
    // the group).
    if (pin.active()) pin.keep();
  }
  return r;
}

}  // namespace collviz::nccl_detail
