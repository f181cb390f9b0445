// The op spec the view tests draw: `op` on `n` ranks rooted at `root`, the
// rest OpSpec's defaults (4 elements a block, f32, sum).
#pragma once

#include "engine/spec.h"

namespace collviz::ui {

inline OpSpec spec(Op op, int n, int root = 0) {
  OpSpec s;
  s.op = op;
  s.ranks = n;
  s.root = root;
  return s;
}

}  // namespace collviz::ui
