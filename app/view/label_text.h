// A block's label when its full text does not fit its tile. The rule
// (docs/presentation.md, "Long partial sums"), for a partial reduction of k
// contributors in shard s:
//   1. the full label:                        A₁+C₁+D₁
//   2. (three or more terms) contributors that follow one another in rank order, wrapping past the
//      last rank (k ≥ 3), as a range:         Σ{C–A}₁   (C, D, A)
//      otherwise the first two and the count: A+C+…(5)₁   (A·C·… for a
//      product, max{A,C,…}(5)₁ for min/max)
//   3. the reduce op and the count only:      Σ(5)₁
//   4. the reduce op and an ellipsis:         Σ…₁  (a partial sum; its stripes
//      name the contributors)
// The tile takes the first form that fits at no less than kFullLabelFloor
// of the label's full size, else the one drawn largest; a figure that draws
// a short form explains it in its key ("Σ{C–A}₁ = C₁+D₁+A₁"). The stripes
// along the tile always show every contributor, and hovering shows the full
// label. Pure.
#pragma once

#include <string>
#include <vector>

#include "engine/snapshot.h"

namespace collviz::ui {

// A tile keeps the full label while it fits at this fraction of its size or
// more (the window, the files, English and 中文 alike at teaching sizes),
// and at the fit's least label size (11 px) or more where 3/4 of its size is.
inline constexpr float kFullLabelFloor = 0.6f;

// The forms a label may take, longest first (one form for a label that is
// not a partial reduction; forms 3 and 4 only for two terms); `ranks`: N,
// where runs wrap.
std::vector<std::string> labelForms(const BlockLabel& l, RedOp redop, int ranks);

}  // namespace collviz::ui
