// What NCCL built, laid out as shapes (collviz export --nccl-log, and the
// window's File → Open NCCL log…): ranks in rows grouped by node, one
// channel's ring as the cycle NCCL built (arcs on the right, in ring order)
// and its trees as parent -> child arrows (arcs on the left), or every
// channel's rings at once (channel -1: one arc per link, as thick as the
// channels that use it, with their count); links coloured by transport,
// inter-node links dashed; the collectives table below. The SVG writer
// (app/files/nccl_log_svg) and the window (panels/nccl_log_window) draw the
// same shapes. Every arc carries data-from, data-to (and data-channel or
// data-count) so that a test can check it against the log. Pure.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/view/palette.h"
#include "engine/job/nccl_log/nccl_log.h"

namespace collviz::ui {

struct NcclFigureParams {
  int channel = -1;  // -1: all channels' rings, overlaid
  std::size_t comm = 0;
  ThemeKind theme = ThemeKind::light;
  std::function<std::string(const Text&)> say;  // the reader's language
};

struct NcclShape {
  enum class Kind { rect, arc, text, line } kind = Kind::text;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;     // rect: corner and size; arc, line: ends
  float cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0;  // arc: the cubic's control points
  float radius = 0, width = 1, size = 12;    // rect corners, stroke width, text size
  Rgba fill, stroke;
  bool filled = false, dashed = false, arrow = false, bold = false;
  int anchor = 0;  // text: 0 start, 1 middle, 2 end
  std::string text, cls, data;  // data: SVG attributes (data-from="0" ...)
  std::string marker;           // arc: the arrowhead's class (p2p, net, ...)
  int call = -1;                // a job figure's tile: its Job::calls index (a click opens it)
};

struct NcclFigure {
  float width = 0, height = 0;
  Rgba background;
  std::string title;
  std::vector<NcclShape> shapes;
  std::vector<std::pair<std::string, Rgba>> markers;  // arrowhead classes and colours
};

// The figure, or an error naming what is missing (no such channel, no communicator).
Result<NcclFigure> ncclLogFigure(const nccl_log::Log& log, const NcclFigureParams& p);

}  // namespace collviz::ui
