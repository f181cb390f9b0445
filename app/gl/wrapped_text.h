// Wrapped text in ImGui broken where Chinese and English break
// (app/lang/line_break). ImGui's own wrap (TextWrapped, PushTextWrapPos)
// breaks only at spaces, so a Chinese line would break at its one space and
// leave a word alone, or run past the edge.
#pragma once

#include <string>

namespace collviz::ui {

// `utf8` in lines no wider than `width` pixels in the current font (<= 0:
// to the right edge of the window's content region), in the current text
// colour. `cut_wide`: a piece wider than a line (a long path) is cut between
// code points instead of running past the edge.
void WrappedText(const std::string& utf8, float width = 0, bool cut_wide = false);

// A row of items that wraps (the trace bar, the status line): call between
// two items with the next one's width. It keeps the next item on this line
// when it fits in the window's content region after `spacing` (< 0: the
// style's item spacing), and returns true; else the next item starts a new
// line, and it returns false. At 2x in a narrow window nothing runs off
// the edge.
bool SameLineIfFits(float width, float spacing = -1.0f);
// The widths of the items above, in the current font and style.
float RadioWidth(const char* label);
float ButtonWidth(const char* label);

}  // namespace collviz::ui
