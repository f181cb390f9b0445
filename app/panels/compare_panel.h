// The compare window: two algorithms for the current op and spec side by
// side (rounds, the busiest rank's bytes, measured time, the α–β estimate).
// Both runs go through Runs, one at a time, and the window never waits.
#pragma once

#include <string>

#include "app/gl/fonts.h"
#include "app/view/app_state.h"
#include "app/view/runs.h"

namespace collviz::ui {

struct ComparePanel {
  std::string a, b;  // the chosen pair ("" until the window first opens)
  Op op = Op::all_reduce;
  bool waiting = false;  // a run of the pair is in flight or still to send
  void Draw(AppState& state, Runs& runs, const Fonts& fonts);
};

}  // namespace collviz::ui
