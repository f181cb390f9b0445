// Above the diagram: trace buttons All / R0 … R(N−1) with the direction
// toggle, the decomposition stepper, and "run again".
#pragma once

#include "app/ui/app_state.h"
#include "app/ui/fonts.h"

namespace collviz::ui {

struct TraceBar {
  // Returns true when the user asked to run again.
  bool Draw(AppState& state, const Fonts& fonts, bool busy);
};

}  // namespace collviz::ui
