// The figure of an NCCL log (app/view/nccl_log_figure.h) as SVG: the theme's
// colours and font, as the window's SVG (svg_writer). Pure.
#pragma once

#include <string>

#include "app/files/font_metrics.h"
#include "app/view/nccl_log_figure.h"

namespace collviz::ui {

// CJK runs are set in `fonts.cjk` at its natural size (FigureFonts).
std::string figureToSvg(const NcclFigure& f, const FigureFonts& fonts = figureFonts());
// ncclLogFigure then figureToSvg.
Result<std::string> ncclLogSvg(const nccl_log::Log& log, const NcclFigureParams& p);

}  // namespace collviz::ui
