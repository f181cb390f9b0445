// Above the diagram: trace buttons All / R0 … R(N−1) with the direction
// toggle, the decomposition stepper, "run again" and "Screenshot (F12)".
#pragma once

#include "app/view/app_state.h"
#include "app/gl/fonts.h"

#include <string>

namespace collviz::ui {

// The decomposition stepper's three names (through tr()).
inline constexpr const char* kDecompositionSteps[] = {"input", "after reduce-scatter",
                                                      "after all-gather"};

struct TraceBar {
  // Returns true when the user asked to run again.
  bool Draw(AppState& state, const Fonts& fonts, bool busy);
  bool screenshot_clicked = false;  // set by Draw
  std::string screenshot_note;      // shown after the button ("saved …")
  std::string screenshot_path;      // the full path, on hover
  bool screenshot_ok = true;
};

}  // namespace collviz::ui
