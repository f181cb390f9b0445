// Engine: one thread that owns the rank workers, takes requests from a queue
// without blocking the caller, and publishes immutable snapshots.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "engine/devices.h"
#include "engine/placement.h"
#include "engine/snapshot.h"
#include "engine/spec.h"

namespace collviz {

class RankGroup;
struct Pattern;
struct Provenance;
struct RunOptions;

struct EngineOptions {
  std::string worker_path;  // collviz-rank; empty: next to this executable
  std::chrono::milliseconds deadline{5000};  // per op, before a rank counts as hung
  // Called on the engine thread before each round of an algorithm run round
  // by round (progress; tests use it to break a rank mid-schedule).
  std::function<void(int round, int rounds)> on_round;
  PlacementOptions placement;  // how NCCL ranks share a GPU (host-id or multi-rank route)
  // Called on the engine thread after each snapshot is published, so a
  // viewer that sleeps until something happens (the window) wakes for it.
  std::function<void()> wake;
};

struct Request {
  enum class Kind : uint8_t { run, reconfigure, shutdown };
  Kind kind = Kind::run;
  Program program = Program::single;
  OpSpec spec;
  BackendKind backend = BackendKind::automatic;
  // Untimed calls first. One by default: the op time is not the first
  // call's (Gloo connects its pairs then), and a backend that writes only
  // on the first call is caught (the output is poisoned before the last).
  int warmup = 1;
  int iters = 1;       // timed repetitions; op times are their average
  bool verify = true;  // decode and check the outputs (of the last repetition)
  // The algorithm (engine/algo/algorithms.h): "native" is the backend's own
  // call; any other runs its schedule of point-to-point rounds.
  std::string algo = "native";
  // Algorithm: a snapshot of every rank after every round, checked against
  // the reference, and the final state compared with the native op. False
  // (benchmarks): the rounds back to back, the output checked once.
  bool every_round = true;
  // COLLVIZ_FAULT for the workers (engine/worker/fault.h), sent with the
  // run: unset keeps the workers' environment's, "" means none.
  std::optional<std::string> fault;
  uint64_t id = 0;     // filled by the engine
};

class Engine {
 public:
  explicit Engine(EngineOptions opts = {});
  ~Engine();  // shuts down, joins the thread, ends the workers
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Enqueue; returns at once with the request id. A newer run request
  // replaces queued (not yet started) run requests: the UI wants the latest.
  uint64_t run(const OpSpec& spec, Program program = Program::single,
               BackendKind backend = BackendKind::automatic);
  // Any request (run with repetitions, reconfigure); returns its id.
  uint64_t submit(Request r);
  // Start (or restart) the workers for `ranks` on `backend` ahead of a run.
  uint64_t reconfigure(int ranks, BackendKind backend);
  // How NCCL ranks share a GPU from the next run on (a group started with
  // another route is replaced then).
  void setPlacement(const PlacementOptions& p);

  // The newest snapshot (nullptr before the first). Never waits on an op.
  std::shared_ptr<const Snapshot> latest() const;
  // Block until the snapshot answering `request` (or a later one) is out.
  std::shared_ptr<const Snapshot> waitFor(uint64_t request,
                                          std::chrono::milliseconds timeout) const;
  bool busy() const { return busy_.load(); }
  const EngineOptions& options() const { return opts_; }

  // Backends and devices (probes collviz-rank once, cached).
  const DeviceReport& devices();
  // The worker processes of the current group (for tests and diagnostics).
  std::vector<pid_t> workerPids() const;

 private:
  void loop();
  void handle(const Request& r);
  void publish(std::shared_ptr<Snapshot> s);
  void outOfMemory(const Request& r);
  Status ensureGroup(int ranks, BackendKind backend, std::string* notice);
  Result<StepResult> runStep(StepResult step, const Pattern& p, const Provenance& prov,
                             const RunOptions& opts);
  void compareWithAllReduce(Snapshot& snap, const Pattern& p);
  void runAlgorithm(const Request& r, Snapshot& snap, const BackendStatus& backend);
  StepResult patternInputs(const OpSpec& s, const Pattern& p);

  EngineOptions opts_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;  // queue and publication
  std::deque<Request> queue_;
  uint64_t next_id_ = 1;
  uint64_t next_seq_ = 1;
  std::shared_ptr<const Snapshot> latest_;
  std::atomic<bool> busy_{false};
  bool stop_ = false;
  std::atomic<bool> cancel_{false};  // shutdown: stop waiting on workers
  std::vector<pid_t> pids_;

  std::mutex devices_mu_;
  std::unique_ptr<DeviceReport> devices_;

  PlacementOptions placement_;  // under mu_: setPlacement's newest choice
  std::unique_ptr<RankGroup> group_;  // engine thread only
  GpuSharing group_sharing_ = GpuSharing::host_id;  // engine thread only: group_'s route
  bool verify_ = true;                // engine thread only: current request's
  std::unique_ptr<StepResult> input_cache_;  // engine thread only: last inputs
  std::thread thread_;
};

}  // namespace collviz
