// A lecture step's caption under the grid, large: wrapped to the width
// (app/lang/line_break: at spaces, between Chinese characters) and laid out as
// scene text, so the window, the PNG and the SVG draw the same lines.
#pragma once

#include <string>
#include <vector>

#include "app/view/diagram_layout.h"
#include "app/view/palette.h"
#include "app/view/scene.h"

namespace collviz::ui {

struct CaptionParams {
  std::string text;
  float scale = 1.0f;   // pixels per layout unit
  float x = 0, y = 0;   // top-left
  float width = 0;      // wrap width
  MeasureText measure;  // null: estimate
  // A deck's step counter ("3 / 15"), right-aligned at `counter_right` on
  // the last line, smaller (keep `width` clear of it: captionCounterWidth).
  std::string counter;
  float counter_right = 0;
};

// The counter's width as placeCaptionLines sets it.
float captionCounterWidth(const CaptionParams& p);

// At most this many lines; a longer caption is cut with "…".
inline constexpr int kCaptionMaxLines = 3;
float captionTextSize(float scale);  // pixels
// Lines `p.text` wraps to (0 for an empty caption).
std::vector<std::string> captionLines(const CaptionParams& p);
// Height the caption area takes (0 for an empty caption).
float captionHeight(const CaptionParams& p);
std::vector<TextItem> captionTexts(const CaptionParams& p, const Theme& theme);
// The same from lines wrapped once (captionLines(p)): their height, and the
// lines set from `p.x`, `p.y` down (an exported figure: figure_text.h).
float captionHeight(std::size_t lines, float scale);
std::vector<TextItem> placeCaptionLines(const std::vector<std::string>& lines, const CaptionParams& p,
                                        const Theme& theme);

// A deck's title slide: the script's title large in the middle, under it
// the author and date when given. Sized to the slide (`width` x `height`).
struct TitleSlide {
  std::string title, byline;
  float width = 0, height = 0;
  MeasureText measure;  // null: estimate
};
std::vector<TextItem> titleSlideTexts(const TitleSlide& t, const Theme& theme);

}  // namespace collviz::ui
