// ImGui styling for the two themes, scaled for the UI scale, and a spinner.
#pragma once

#include <imgui.h>

#include "app/view/palette.h"

namespace collviz::ui {

void applyStyle(const Theme& theme, float scale);
// A small rotating arc, sized to the current line.
void Spinner(const char* id);
ImVec4 toImVec4(Rgba c);

}  // namespace collviz::ui
