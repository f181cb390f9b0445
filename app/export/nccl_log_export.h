// collviz export --nccl-log FILE...: the figure of an NCCL log (SVG, PNG, HTML).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/view/nccl_log_figure.h"

namespace collviz {

struct NcclLogExportArgs {
  std::vector<std::string> logs;
  std::string output, format, theme = "light";
  std::string channel = "all";
  int comm = 0;
  std::string scale = "1";   // PNG: pixels per figure unit (0.25 to 8)
  bool theme_given = false;  // HTML: one theme; else light and dark by the reader's scheme
};

int runNcclLogExport(const NcclLogExportArgs& a);

// A figure of shapes (the NCCL log's, a job's) written as --format or the
// output's extension say: svg, png (at --scale), or html (a page around
// the SVG, light and dark by the reader's scheme unless a theme was given:
// `redraw` draws the dark one). Prints "wrote FILE"; an exit code.
using ShapeRedraw = std::function<Result<ui::NcclFigure>(ui::ThemeKind)>;
std::string shapeFigureFormat(const std::string& format, const std::string& output);
int writeShapeFigure(const ui::NcclFigure& fig, const ShapeRedraw& redraw, const std::string& format, const std::string& scale,
                     const std::string& out, ui::ThemeKind theme, bool theme_given);

}  // namespace collviz
