// The compare window's plot, drawn with ImGui's draw list (no ImPlot in
// Debian): time against block size on log-log axes, each algorithm's
// measured medians as dots and the fitted α–β model as a line.
#pragma once

#include <vector>

#include "app/gl/fonts.h"
#include "app/view/compare_model.h"

namespace collviz::ui {

void drawComparePlot(const std::vector<SweepSeries>& series, const AlphaBeta& fit, const Fonts& fonts);

}  // namespace collviz::ui
