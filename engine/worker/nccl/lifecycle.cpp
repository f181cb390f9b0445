// The NCCL communicator's life: init (the ncclUniqueId exchange and a
// blocking ncclCommInitRankConfig under one deadline), the watchdog's abort,
// and teardown with every return code checked.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "engine/worker/nccl/communicator_impl.h"

namespace collviz::nccl_detail {
namespace {

constexpr int kStuckExitCode = 3;  // the watchdog could not abort: see nccl/communicator.h

long long msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<milliseconds>(b - a).count();
}

// Connects this rank to every peer for point-to-point traffic (what gather,
// scatter and all_to_all use), which NCCL otherwise does at the first such
// op, inside the op's call. Collectives are connected at init
// (NCCL_RUNTIME_CONNECT=0). Blocking; on the init helper thread.
ncclResult_t connectPeers(ncclComm_t comm, int rank, int size, Text* text) {
  if (size < 2) return ncclSuccess;
  cudaStream_t stream = nullptr;
  float* buf = nullptr;
  auto cuda = [&](cudaError_t e, const char* what) {
    if (e != cudaSuccess && text->empty()) *text = lit(std::string(what) + ": " + cudaText(e));
    return e == cudaSuccess;
  };
  ncclResult_t r = ncclUnhandledCudaError;
  if (cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate") &&
      cuda(cudaMalloc(&buf, 2 * sizeof(float) * std::size_t(size)), "cudaMalloc") &&
      cuda(cudaMemset(buf, 0, 2 * sizeof(float) * std::size_t(size)), "cudaMemset")) {
    r = ncclGroupStart();
    for (int p = 0; p < size && r == ncclSuccess; ++p) {
      if (p == rank) continue;
      r = ncclSend(buf + p, 1, ncclFloat32, p, comm, stream);
      if (r == ncclSuccess) r = ncclRecv(buf + size + p, 1, ncclFloat32, p, comm, stream);
    }
    const ncclResult_t end = ncclGroupEnd();
    if (r == ncclSuccess) r = end;
    if (r != ncclSuccess) *text = say("connecting to the peers: {0}", ncclText(r));
    else if (!cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) r = ncclUnhandledCudaError;
  }
  if (buf) cuda(cudaFree(buf), "cudaFree");
  if (stream) cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return r;
}

// The result of ncclCommInitRankConfig on its helper thread.
struct InitJob {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  ncclComm_t comm = nullptr;
  ncclResult_t result = ncclSuccess;
  Text text;  // NCCL's own error text (ncclGetLastError is per thread)
};

}  // namespace

NcclCommunicator::~NcclCommunicator() {
  // A thread still inside ncclCommInitRankConfig owns NCCL and CUDA state we
  // cannot reclaim safely: leave it all to the process exit that follows.
  if (init_abandoned_) return;
  teardown();
  watchdog_.reset();
}

void NcclCommunicator::log(const std::string& line) const {
  std::fprintf(stderr, "collviz-rank: %s: %s\n", who().english().c_str(), line.c_str());
}

// Every teardown return code is checked; failures are logged on stderr
// (the worker's stderr is the app's log, never the JSON on stdout).
void NcclCommunicator::teardown() {
  if (comm_) {
    // Abort, not finalize and destroy: those wait on the peers, which may be
    // gone (a peer that timed out has aborted already), and nothing is
    // outstanding here (PyTorch's process group does the same). Bounded by
    // the watchdog, which ends the process if it stays stuck.
    // At least 5 s however short the op deadline: an abort joins NCCL's own
    // threads, which can take a while on a busy or shared GPU.
    if (watchdog_)
      watchdog_->arm(Clock::now() + milliseconds(std::max(5000, std::min(timeout_ms_, 30000))),
                     "teardown");
    {
      std::lock_guard<std::mutex> lock(nccl_mu_);
      if (comm_) {
        const ncclResult_t a = ncclCommAbort(comm_);
        if (a != ncclSuccess) log("ncclCommAbort at teardown failed: " + ncclText(a));
        comm_ = nullptr;
      }
    }
    if (watchdog_) watchdog_->disarm();
  }
  freeBuffers();
  auto check = [&](cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    cudaGetLastError();
    log(std::string(what) + " failed: " + cudaText(e));
  };
  for (cudaEvent_t& e : ev_)
    if (e) check(cudaEventDestroy(e), "cudaEventDestroy"), e = nullptr;
  if (op_stream_) check(cudaStreamDestroy(op_stream_), "cudaStreamDestroy");
  if (copy_stream_) check(cudaStreamDestroy(copy_stream_), "cudaStreamDestroy");
  op_stream_ = copy_stream_ = nullptr;
}

Status NcclCommunicator::init(int rank, int size, ControlStore& store, int timeout_ms) {
  if (comm_ || watchdog_) return Error{say("NCCL communicator already initialised")};
  rank_ = rank;
  size_ = size;
  if (timeout_ms > 0) timeout_ms_ = timeout_ms;
  // One deadline for the whole init, from the worker's start.
  const milliseconds budget = joinBudget(milliseconds(timeout_ms_)) * 9 / 10;
  const Clock::time_point deadline = started_ + budget;
  gpus_ = listGpus();
  if (!gpus_.error.empty()) return Error{say("NCCL unavailable on {0}: {1}", who(), gpus_.error)};
  if (gpu_ < 0 || gpu_ >= int(gpus_.names.size()))
    return Error{say("GPU {0} does not exist ({1} visible)", gpu_, gpus_.names.size())};
  native_ = loadNativeOps(version_);
  // Every connection is made inside init (under its deadline), none inside
  // an op's call, where only the watchdog could end a wait for a lost peer.
  ::setenv("NCCL_RUNTIME_CONNECT", "0", 0);
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
    if (!s) return Error{say("publishing the ncclUniqueId: {0}", s.text())};
  } else {
    const long long left = msBetween(Clock::now(), deadline);
    if (left <= 0)
      return Error{say("{0}: no time left for the ncclUniqueId (init budget {1} ms from the worker's start)",
                       who(), budget.count())};
    auto v = store.get(key, int(left));
    if (!v) return Error{say("{0}: no ncclUniqueId from rank 0: {1}", who(), v.error().text)};
    if (v->size() != sizeof id.internal) return Error{say("ncclUniqueId of the wrong size")};
    std::memcpy(id.internal, v->data(), sizeof id.internal);
  }
  if (Status s = join(id, deadline, budget); !s) return s;
  watchdog_ = std::make_unique<Watchdog>([this](const std::string& what) { expire(what); });
  return {};
}

// A blocking ncclCommInitRankConfig on a helper thread, so that the caller
// can give up at the deadline when a peer never arrives.
Status NcclCommunicator::join(const ncclUniqueId& id, Clock::time_point deadline,
                              milliseconds budget) {
  auto job = std::make_shared<InitJob>();
  std::thread([job, id, gpu = gpu_, size = size_, rank = rank_] {
    ncclComm_t comm = nullptr;
    ncclResult_t r = ncclSuccess;
    Text text;
    const cudaError_t e = cudaSetDevice(gpu);
    if (e != cudaSuccess) {
      r = ncclUnhandledCudaError;
      text = lit("cudaSetDevice: " + cudaText(e));
    } else {
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 1;
      r = ncclCommInitRankConfig(&comm, size, id, rank, &config);
      if (r != ncclSuccess) text = lit("ncclCommInitRankConfig: " + ncclText(r));
      else r = connectPeers(comm, rank, size, &text);
    }
    std::lock_guard<std::mutex> lock(job->mu);
    job->comm = comm;
    job->result = r;
    job->text = text;
    job->done = true;
    job->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(job->mu);
  if (!job->cv.wait_until(lock, deadline, [&] { return job->done; })) {
    init_abandoned_ = true;
    return Error{say("NCCL init of {0} of {1} ranks did not finish within {2} ms of the worker's start "
                     "(ncclUniqueId exchange, ncclCommInitRankConfig, connecting to the peers); another "
                     "rank may have failed first: see its error",
                     who(), size_, budget.count())};
  }
  if (job->result != ncclSuccess) {
    if (job->comm) {
      const ncclResult_t a = ncclCommAbort(job->comm);
      if (a != ncclSuccess) log("ncclCommAbort after a failed init failed: " + ncclText(a));
    }
    return Error{say("NCCL init of {0} of {1} ranks failed: {2}", who(), size_, job->text)};
  }
  comm_ = job->comm;
  return {};
}

void NcclCommunicator::abortLocked(const Text& why) {
  if (comm_) {
    const ncclResult_t r = ncclCommAbort(comm_);
    if (r != ncclSuccess) log("ncclCommAbort failed: " + ncclText(r));
  }
  comm_ = nullptr;
  broken_ = why;
}

// Runs on the watchdog's thread. Aborting while this rank's thread is inside
// an NCCL call on the same communicator is not allowed (the abort frees what
// the call uses), so the abort waits for the call to return; a call that does
// not return within a second ends the process, which the engine reports.
void NcclCommunicator::expire(const std::string& what) {
  cudaSetDevice(gpu_);  // this thread's current device, for the abort
  std::unique_lock<std::mutex> lock(nccl_mu_, std::defer_lock);
  const auto give_up = Clock::now() + milliseconds(1000);
  while (!lock.try_lock()) {
    if (Clock::now() > give_up) {
      std::fprintf(stderr,
                   "collviz-rank: %s: %s passed its deadline inside an NCCL call that does not "
                   "return; exiting (code %d) so that the engine replaces the group\n",
                   who().english().c_str(), what.c_str(), kStuckExitCode);
      std::fflush(stderr);
      ::_exit(kStuckExitCode);
    }
    std::this_thread::sleep_for(milliseconds(1));
  }
  // armed_ is what `what` says, as a message (set before the watchdog was armed).
  abortLocked(say("{0} timed out; the watchdog aborted the communicator", armed_));
}

}  // namespace collviz::nccl_detail
