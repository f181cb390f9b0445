// What NCCL built, as an SVG figure (collviz export --nccl-log): ranks in
// rows grouped by node, one channel's ring as the cycle NCCL built (arcs on
// the right, in ring order) and its trees as parent -> child arrows (arcs on
// the left), or every channel's rings at once (--channel all: one arc per
// link, as thick as the channels that use it, with their count); links
// coloured by transport, inter-node links dashed; the collectives table
// below. The theme's colours and font, as the window's SVG (svg_writer).
// Every arc is a <path> with data-from, data-to (and data-channel or
// data-count) so that a test can check it against the log. Pure.
#pragma once

#include <functional>
#include <string>

#include "app/view/palette.h"
#include "engine/algo/nccl_log/nccl_log.h"

namespace collviz::ui {

struct NcclFigureParams {
  int channel = -1;  // -1: all channels' rings, overlaid
  std::size_t comm = 0;
  ThemeKind theme = ThemeKind::light;
  std::function<std::string(const Text&)> say;  // the reader's language
};

// The SVG, or an error naming what is missing (no such channel, no communicator).
Result<std::string> ncclLogSvg(const nccl_log::Log& log, const NcclFigureParams& p);

}  // namespace collviz::ui
