// Round numbers for a chart's axis: 1, 2 or 5 times a power of ten, from 0
// up past the largest value (the bandwidth chart, the nccl-tests figure).
// A step of 0.0342 reads as noise; 0.02, 0.04 … read at a glance.
#pragma once

#include <string>
#include <vector>

namespace collviz::ui {

// Ticks 0, s, 2s, … up to the first at or above `top` (top > 0), s a round
// step giving at most `most` intervals (at least 2 ticks).
std::vector<double> roundTicks(double top, int most = 5);
// A tick's label with as many decimals as its step needs ("0.02", "1.5", "40").
std::string tickLabel(double v, double step);

}  // namespace collviz::ui
