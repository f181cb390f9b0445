// Text helpers that need no font: UTF-8 handling and the ASCII fallback used
// when DejaVu Sans is missing (ImGui's built-in font has no Σ or subscripts).
#pragma once

#include <string>
#include <string_view>

namespace collviz::ui {

// "Σ₀ → A₁ — x·y" -> "S_0 -> A_1 - x*y": every glyph outside ASCII replaced
// by a legible ASCII stand-in.
std::string asciiFallback(std::string_view utf8);

// The code points of a UTF-8 string (invalid bytes as U+FFFD).
std::u32string toCodePoints(std::string_view utf8);

// Number of code points (for rough width estimates in tests).
int codePoints(std::string_view utf8);

}  // namespace collviz::ui
