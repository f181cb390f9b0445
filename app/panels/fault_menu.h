// "Break it": the fault the next runs inject (COLLVIZ_FAULT, see
// engine/worker/fault.h), to show in a lecture what a broken collective
// looks like and that the picture catches it. The engine sends it with each
// run; the workers stay up.
#pragma once

#include "app/view/app_state.h"

namespace collviz::ui {

struct FaultChoice {
  const char* mode;  // COLLVIZ_FAULT's word ("" none)
  const char* what;  // what the viewer will see (through tr())
  bool in_round = false;  // round_*:K, offered on an algorithm's rounds only
};
inline constexpr FaultChoice kFaultChoices[] = {
    {"", "nothing: real results"},
    {"skip", "skip: return without running (output never written)"},
    {"skip_after_first", "skip_after_first: run once, then stop writing"},
    {"corrupt", "corrupt: flip one element"},
    {"swap", "swap: exchange the first and last blocks"},
    {"delay_ms", "delay: reply late (past the deadline: hung)"},
    {"round_skip_recv", "in round K: drop what the rank receives", true},
    {"round_skip_reduce", "in round K: drop what the rank should add", true},
    {"round_corrupt", "after round K: flip one element", true},
    {"round_swap", "after round K: exchange the first and last slots", true},
};

struct FaultMenu {
  void Draw(AppState& state);
  int delay_ms = 1500;  // for delay_ms:N
  int round = 1;        // for round_*:K
};

}  // namespace collviz::ui
