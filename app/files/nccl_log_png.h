// The figure of an NCCL log (app/view/nccl_log_figure.h) as pixels, drawn by
// cairo from the same shapes the SVG writer and the window draw: rectangles,
// the links' cubic arcs with their arrowheads, dashed inter-node links, text
// (Latin in DejaVu Sans, CJK runs in the CJK font at its natural size, as
// every figure sets them: FigureFonts). Pure: no GL. Without cairo, an error
// says so.
#pragma once

#include "app/files/font_metrics.h"
#include "app/files/image_file.h"
#include "app/view/nccl_log_figure.h"

namespace collviz::ui {

// `scale`: pixels per figure unit (2 for a crisp 2x image), 0.25 to 8.
Result<Image> figureToImage(const NcclFigure& f, float scale, const FigureFonts& fonts = figureFonts());

}  // namespace collviz::ui
