// Text helpers that need no font: UTF-8 handling and the ASCII fallback used
// when DejaVu Sans is missing (ImGui's built-in font has no Σ or subscripts).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace collviz::ui {

// "Σ₀ → A₁ — x·y" -> "S_0 -> A_1 - x*y": every glyph outside ASCII replaced
// by a legible ASCII stand-in.
std::string asciiFallback(std::string_view utf8);

// The code points of a UTF-8 string (invalid bytes as U+FFFD).
std::u32string toCodePoints(std::string_view utf8);

// Number of code points (for rough width estimates in tests).
int codePoints(std::string_view utf8);

// CJK: ideographs, kana, CJK and full-width punctuation (U+2E80..U+FFFF),
// the code points merged in from the CJK font and scaled to the Latin cap
// height (font_metrics.h).
bool isCjk(char32_t c);

// About how wide `utf8` is set at `size`, with no font at hand (the figures
// laid out before they are drawn: a job's, a captured call's): CJK a full
// em, capitals 0.72 em, the rest 0.62 em (DejaVu Sans' mean advance). A
// process group's name is mostly capitals ("EXPERT_MODEL_PARALLEL_GROUP"):
// at 0.62 a verdict naming one came out a quarter wider than estimated.
float approxWidth(std::string_view utf8, float size);

// The text cut into runs of CJK and of other code points, in order (the SVG
// and PDF writers set each run in its own font and size).
struct TextRun {
  std::string text;
  bool cjk = false;
};
std::vector<TextRun> cjkRuns(std::string_view utf8);

}  // namespace collviz::ui
