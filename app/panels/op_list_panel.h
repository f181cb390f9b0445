// The op list: 01-08 with the article's verb phrases, then the
// decomposition "All-reduce = Reduce-scatter + All-gather".
#pragma once

#include "app/view/app_state.h"
#include "app/gl/fonts.h"

namespace collviz::ui {

struct OpListPanel {
  void Draw(AppState& state, const Fonts& fonts);
};

}  // namespace collviz::ui
