// Beside the algorithm view's grid: the link view (ranks on a circle, this
// round's messages as arrows whose thickness is their bytes, so a ring reads
// as a ring and a tree as a tree), the bytes each rank has sent and received
// so far against the formula, and the time of every round. Pure.
#pragma once

#include <string>

#include "app/view/layout_builder.h"
#include "app/view/round_model.h"

namespace collviz::ui {

// Where rank r sits on a circle of n ranks (R0 at the top, clockwise).
Vec2 linkNodePosition(Vec2 centre, float radius, int r, int n);
// "96 B", "1.5 KiB", "2.00 MiB".
std::string byteText(double bytes);
// A round's time in the unit of the view's slowest round (one unit per
// view): "9.20 ms" and "0.70 ms" beside a 9.2 ms round, "80 µs" below 1 ms.
std::string roundTimeText(double us, double slowest);

namespace layout {
// Draws into `area`; returns the lowest y used.
float layoutSidePanel(Builder& b, const RoundModel& rm, Rect area);
// The same three parts side by side in `area` (under the grid).
float layoutPanelBelow(Builder& b, const RoundModel& rm, Rect area);
}  // namespace layout

}  // namespace collviz::ui
