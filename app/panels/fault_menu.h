// "Break it": the fault the next runs inject (COLLVIZ_FAULT, see
// engine/worker/fault.h), to show in a lecture what a broken collective
// looks like and that the picture catches it. The engine sends it with each
// run; the workers stay up.
#pragma once

#include "app/view/app_state.h"

namespace collviz::ui {

struct FaultMenu {
  void Draw(AppState& state);
  int delay_ms = 1500;  // for delay_ms:N
};

}  // namespace collviz::ui
