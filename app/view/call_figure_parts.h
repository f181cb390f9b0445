// The call figure's parts (call_figure.cpp draws, call_values.cpp decodes
// and splits): one side of one member's row as blocks. Internal to the view
// library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/view/call_figure.h"
#include "engine/spec.h"

namespace collviz::ui::call_figure_parts {

struct Block {
  int letter = 0;         // the member its data came from (A = member 0): its colour
  bool reduced = false;   // combined with the reduce op (neutral grey): Σ, Π, max, min, …
  bool unknown = false;   // where the data came from is not known (v-forms): no letter
  std::string label;      // "A", "B₂", "Σ₁", "max₁"
};

// One buffer of one member: its blocks of blockElems elements each.
struct Side {
  std::uint64_t elems = 0, blockElems = 0;
  std::uint64_t totalBytes = 0, keptBytes = 0;
  std::vector<Block> blocks;  // empty: no buffer (elems 0)
};
Side sideOf(const job::CapturedCall& call, int member, bool output);

}  // namespace collviz::ui::call_figure_parts
