// A shape figure (app/view/nccl_log_figure.h's shapes: the NCCL log's and a
// job's figures) drawn with ImGui's draw list, the same shapes the SVG and
// PNG exports write.
#pragma once

#include <imgui.h>

#include "app/view/nccl_log_figure.h"

namespace collviz::ui {

// At screen point `o`, `k` pixels per figure unit, in the current window.
void drawFigure(const NcclFigure& f, ImVec2 o, float k);

}  // namespace collviz::ui
