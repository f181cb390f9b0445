// The Bandwidth panel: an nccl-tests-style sweep of the current op on the
// current backend (engine/bench/sweep.h's BenchJob: its own thread and its own
// workers, so the diagram's engine is never held up), with a progress bar, a
// Cancel button, busbw against size on a log-2 axis drawn with ImDrawList, the
// rows as a table, and one line on what busbw means.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "app/view/app_state.h"
#include "engine/bench/sweep.h"

namespace collviz::ui {

// The sweep table's column headings (through tr()).
inline constexpr const char* kBandwidthColumns[] = {"size", "time (us)", "algbw", "busbw", "#wrong"};

struct BandwidthPanel {
  // Sweep settings (the op, ranks, dtype, redop, root and backend come from
  // the app's current selection when Run is pressed).
  int min_exp = 10;  // 2^10 = 1 KiB
  int max_exp = 22;  // 2^22 = 4 MiB: seconds on Gloo; raise it on a GPU
  int factor = 4;
  int iters = 5;
  int warmup = 1;
  int check = 0;     // -c: checking big sizes costs more than the op

  std::unique_ptr<BenchJob> job;
  BenchJob::State shown;  // the copy the chart and table draw from
  uint64_t shown_version = 0;
  std::string refusal;    // the last refusal, shown until the next run
  // Wakes the window's loop (the app's engine's wake): the sweep's end is
  // drawn without input (BenchJob calls it once finished).
  std::function<void()> wake;

  void Draw(const char* title, bool* p_open, const AppState& app);
  bool running() const { return job && !job->finished(); }

 private:
  void start(const AppState& app);
  void drawChart(float height);
  void drawTable();
};

// The sweep the panel would start for this selection.
BenchConfig benchConfigFor(const AppState& app, int min_exp, int max_exp, int factor, int iters,
                           int warmup, int check);

}  // namespace collviz::ui
