// The bandwidth sweep through the engine (`collviz bench`, the Bandwidth
// panel). Every size is one or more Engine::submit requests with warm-up and
// timed repetitions; the rank workers time the communicator call and the
// slowest rank's average is the row's time (engine/bench/bench.h has the formulas).
//
// -c K (checks): the -n timed iterations of a size are split into K
// consecutive requests (as equal as possible; the warm-up runs in the first),
// and the engine verifies the final iteration of each against the oracle:
// every element of every rank's output, value and provenance. So K of the n
// timed iterations are checked; #wrong is the number of wrong elements
// (each counted once, whatever checks it fails) summed over those K checks. K = 0: one request, nothing checked
// (Request::verify = false), #wrong is "N/A" (null in JSON). Verification runs
// after the timed loop, so it never enters the op time, only the overhead.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engine/bench/bench.h"
#include "engine/engine.h"

namespace collviz {

struct BenchRow {
  Op op = Op::all_reduce;
  std::size_t size = 0;  // bytes (nccl-tests' size column)
  int64_t count = 0;     // elements (nccl-tests' count column)
  int64_t elems = 0;     // collviz elements per block
  DType dtype = DType::f32;
  RedOp redop = RedOp::sum;  // printed "none" when !reduces(op)
  int root = -1;             // -1 when !usesRoot(op)
  int ranks = 0;
  double time_us = 0;   // slowest rank's average op time over the -n iterations
  double algbw = 0;     // GB/s
  double busbw = 0;     // GB/s
  int checks = 0;       // iterations verified
  int64_t wrong = -1;   // wrong elements over the checks; -1: not checked
  Said problem;         // an algorithm's first wrong check, by round (Snapshot::problem)
  std::vector<double> rank_us;  // each rank's average op time
  double engine_us = 0;    // the size's requests, wall time inside the engine
  double overhead_us = 0;  // engine_us minus the time the engine waited for the ranks
                           // (measured from sending the op to the last reply): inputs,
                           // poison, copies, verification, the snapshot. Never < 0
  int requests = 0;
};

struct BenchResult {
  std::vector<BenchRow> rows;
  BackendInfo backend;
  Said notice;             // e.g. "NCCL unavailable ...; using Gloo"
  Said error;              // non-empty: the sweep stopped on this failure
  bool cancelled = false;  // stopped by the cancel flag
};

struct BenchCallbacks {
  // After each size: the new row and how many of the planned points are done.
  std::function<void(const BenchRow&, int done, int total)> on_row;
  // Before each size.
  std::function<void(const BenchPoint&, int index, int total)> on_start;
};

// The per-op deadline a sweep needs: a hang detector must not fire on a slow
// big op (Gloo on 2 cores: seconds per 128 MiB all_reduce). 5 s plus 2 s per
// 16 MiB of the largest size.
std::chrono::milliseconds benchDeadline(const BenchConfig& c);

// Resolve the backend, check every planned point against its caps, and run
// the sweep on `engine`, blocking. Use an Engine of its own: a run request
// submitted meanwhile by someone else replaces a queued sweep request (the
// sweep then stops with an error). `cancel` is read every 50 ms: when set the
// sweep returns at once with the rows so far and cancelled = true; the request
// in flight goes on inside the engine until the Engine is destroyed (its
// destructor kills the workers), which is what the CLI and BenchJob do.
// Refusals before anything ran (bad size for the backend) come back as Error.
Result<BenchResult> runSweep(Engine& engine, const BenchConfig& c, const BenchCallbacks& cb,
                             const std::atomic<bool>* cancel);

// JSON of one row (every column) and of a whole result.
nlohmann::json toJson(const BenchRow& r);
nlohmann::json toJson(const BenchResult& r, const BenchConfig& c);

// A sweep on its own thread with its own Engine (its own workers), for a
// window: start it, read state() each frame, cancel() from a button. The
// destructor cancels and joins; the Engine's destructor ends the workers.
class BenchJob {
 public:
  struct State {
    std::vector<BenchRow> rows;
    int done = 0, total = 0;   // points finished / planned (0 until planned)
    std::string current;       // "all_reduce 128M" while it runs
    bool finished = false;     // no more changes (done, failed or cancelled)
    bool cancelled = false;
    Said error;                // refusal or failure, for a dialog
    Said notice;
    BackendInfo backend;
    uint64_t version = 0;      // bumps on every change: rebuild the chart when it moves
  };

  // eo.wake: called at each of its engine's snapshots and once more when the
  // sweep has finished (state().finished is then true), so a window that
  // sleeps until woken draws the end without input.
  explicit BenchJob(BenchConfig c, EngineOptions eo = {});
  ~BenchJob();
  BenchJob(const BenchJob&) = delete;
  BenchJob& operator=(const BenchJob&) = delete;

  void cancel() { cancel_ = true; }
  State state() const;          // a copy, taken under a short lock
  uint64_t version() const;     // cheap: compare before copying state()
  bool finished() const;
  const BenchConfig& config() const { return config_; }

 private:
  void run(EngineOptions eo);
  BenchConfig config_;
  std::atomic<bool> cancel_{false};
  mutable std::mutex mu_;
  State state_;
  std::thread thread_;
};

}  // namespace collviz
