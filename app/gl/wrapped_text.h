// Wrapped text in ImGui broken where Chinese and English break
// (app/lang/line_break). ImGui's own wrap (TextWrapped, PushTextWrapPos)
// breaks only at spaces, so a Chinese line would break at its one space and
// leave a word alone, or run past the edge.
#pragma once

#include <string>

namespace collviz::ui {

// `utf8` in lines no wider than `width` pixels in the current font (<= 0:
// to the right edge of the window's content region), in the current text
// colour.
void WrappedText(const std::string& utf8, float width = 0);

}  // namespace collviz::ui
