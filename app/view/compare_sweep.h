// The compare window's size sweep: both algorithms at every size of
// sweepElems (compare_model.h), each size a few repetitions of the whole
// schedule back to back (Request::every_round = false, one warm-up call),
// the output checked each time; a point's time is the median of its
// repetitions. Runs on its own thread with its own Engine (its own rank
// workers), like the Bandwidth panel's BenchJob, so the diagram's requests
// never wait behind it. state() each frame; the destructor cancels and joins.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/view/compare_model.h"
#include "engine/engine.h"

namespace collviz::ui {

struct CompareSweepConfig {
  OpSpec spec;                      // its elems is one of the sizes
  std::string a, b;                 // the two algorithms
  BackendKind backend = BackendKind::automatic;
  int reps = 5;                     // repetitions per size (median)
  std::vector<int64_t> elems;       // empty: sweepElems(spec), split as a file needs (splittable)
  std::string fault;                // "Break it" (AppState::fault): every run injects it
};

class CompareSweep {
 public:
  struct State {
    std::vector<SweepSeries> series;  // [0] = a, [1] = b; sizes in sweep order
    int done = 0, total = 0;          // requests finished / planned
    std::string current;              // "ring 128 KiB, 2/5"
    bool finished = false;
    std::string error;                // the sweep stopped on this
    uint64_t version = 0;
  };

  explicit CompareSweep(CompareSweepConfig c, EngineOptions eo = {});
  ~CompareSweep();
  CompareSweep(const CompareSweep&) = delete;
  CompareSweep& operator=(const CompareSweep&) = delete;

  State state() const;
  const CompareSweepConfig& config() const { return config_; }
  void cancel() { cancel_ = true; }

 private:
  void run(EngineOptions eo);
  CompareSweepConfig config_;
  std::atomic<bool> cancel_{false};
  mutable std::mutex mu_;
  State state_;
  std::thread thread_;
};

}  // namespace collviz::ui
