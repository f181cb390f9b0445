// The algorithm selector under the op list (native, then the engine's
// algorithms for the op) and, with one chosen, the round bar: where the
// rounds stand, step buttons, a round slider, play and its speed.
#pragma once

#include "app/gl/fonts.h"
#include "app/view/app_state.h"

namespace collviz::ui {

struct AlgoPanel {
  // `bar`: the round bar's text ("reduce-scatter 2/3 · all-gather 0/3").
  void Draw(AppState& state, const std::string& bar, const Fonts& fonts);
};

}  // namespace collviz::ui
