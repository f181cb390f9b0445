// The compare window: two algorithms for the current op and spec side by
// side (message rounds, the busiest rank's bytes, measured time, the α–β
// model). Opening it starts a size sweep of both (view/compare_sweep.h, its
// own Engine and thread) with a progress bar; α and β are fitted to the
// sweep and shown with their error, and a plot holds measured against
// modelled time across the sizes. The window never waits.
#pragma once

#include <memory>
#include <string>

#include "app/gl/fonts.h"
#include "app/view/app_state.h"
#include "app/view/compare_sweep.h"
#include "app/view/runs.h"

namespace collviz::ui {

struct ComparePanel {
  std::string a, b;  // the chosen pair ("" until the window first opens)
  Op op = Op::all_reduce;
  bool waiting = false;  // the sweep is running
  std::unique_ptr<CompareSweep> sweep;  // for the shown pair and spec
  void Draw(AppState& state, Runs& runs, const Fonts& fonts);
};

}  // namespace collviz::ui
