// What hovering a block says (the window's tooltip, an HTML page's tile
// title): its place and label, its contributors, where the label comes
// from, and its first values as the run returned them. Pure.
#pragma once

#include <string>

#include "app/view/diagram_model.h"
#include "app/view/scene.h"

namespace collviz::ui {

struct TileTip {
  std::string head;        // "R2 · Output block 1:  A₂"
  std::string who;         // "contributors: R0"
  std::string source;      // "label decoded from the returned bytes", or the oracle's
  std::string bad;         // "3 element(s) failed verification", or empty
  std::string values;      // "values (float32): 1, 2, …", or empty
  bool expected = false;   // the oracle's shape, not a run
};

TileTip tileTip(const DiagramModel& m, const HitBox& hit);

// The tip as lines of plain text (head first), for a page's tile title.
std::string tileTipText(const TileTip& t);

}  // namespace collviz::ui

namespace collviz::ui {

// The figure in words, for an SVG's <desc>: each column and what each row
// holds ("Input: R0 A₀ B₀ …; R1 —. Output: …").
std::string figureDesc(const DiagramModel& m);

}  // namespace collviz::ui
