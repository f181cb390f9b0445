// The figure of an NCCL log (app/view/nccl_log_figure.h) as pixels, drawn by
// cairo from the same shapes the SVG writer and the window draw: rectangles,
// the links' cubic arcs with their arrowheads, dashed inter-node links, text
// (Latin in DejaVu Sans, CJK runs in Noto Sans CJK, as the PDF deck sets
// them). Pure: no GL. Without cairo, an error says so.
#pragma once

#include "app/files/image_file.h"
#include "app/view/nccl_log_figure.h"

namespace collviz::ui {

// `scale`: pixels per figure unit (2 for a crisp 2x image), 0.25 to 8.
Result<Image> figureToImage(const NcclFigure& f, float scale);

}  // namespace collviz::ui
