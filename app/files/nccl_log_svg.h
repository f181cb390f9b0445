// The figure of an NCCL log (app/view/nccl_log_figure.h) as SVG: the theme's
// colours and font, as the window's SVG (svg_writer). Pure.
#pragma once

#include <string>

#include "app/view/nccl_log_figure.h"

namespace collviz::ui {

std::string figureToSvg(const NcclFigure& f);
// ncclLogFigure then figureToSvg.
Result<std::string> ncclLogSvg(const nccl_log::Log& log, const NcclFigureParams& p);

}  // namespace collviz::ui
