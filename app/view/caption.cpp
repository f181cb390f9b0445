#include "app/view/caption.h"

#include "app/lang/line_break.h"
#include "app/view/text.h"

namespace collviz::ui {

namespace {
constexpr float kSize = 26.0f;
constexpr float kLineGap = 1.35f;
constexpr float kPad = 12.0f;

float measureOf(const CaptionParams& p, const std::string& t) {
  const float size = captionTextSize(p.scale);
  return p.measure ? p.measure(t, TextStyle::heading, size) : 0.6f * size * float(codePoints(t));
}

}  // namespace

float captionTextSize(float scale) { return kSize * scale; }

namespace {
constexpr float kCounterSize = 0.8f;  // of the caption's text size, as the live lecture's
}  // namespace

float captionCounterWidth(const CaptionParams& p) {
  if (p.counter.empty()) return 0;
  const float size = kCounterSize * captionTextSize(p.scale);
  return p.measure ? p.measure(p.counter, TextStyle::heading, size) : 0.6f * size * float(codePoints(p.counter));
}

std::vector<std::string> captionLines(const CaptionParams& p) {
  WrapParams w;
  w.width = p.width;
  w.measure = [&](const std::string& t) { return measureOf(p, t); };
  w.max_lines = kCaptionMaxLines;
  w.cut_wide_pieces = true;  // a caption stays on the slide
  return wrapText(p.text, w);
}

float captionHeight(const CaptionParams& p) { return captionHeight(captionLines(p).size(), p.scale); }

float captionHeight(std::size_t n, float scale) {
  if (n == 0) return 0;
  return float(n) * captionTextSize(scale) * kLineGap + 2 * kPad * scale;
}

std::vector<TextItem> captionTexts(const CaptionParams& p, const Theme& th) {
  return placeCaptionLines(captionLines(p), p, th);
}

std::vector<TextItem> placeCaptionLines(const std::vector<std::string>& lines, const CaptionParams& p,
                                        const Theme& th) {
  std::vector<TextItem> out;
  const float size = captionTextSize(p.scale);
  float y = p.y + kPad * p.scale;
  for (const std::string& l : lines) {
    out.push_back({{p.x, y}, 0, 0, l, th.text, size, TextStyle::heading});
    y += size * kLineGap;
  }
  if (!p.counter.empty() && !out.empty()) {
    const float cs = kCounterSize * size;
    out.push_back({{p.counter_right, out.back().anchor.y + (size - cs) / 2}, 1.0f, 0, p.counter, th.muted_text, cs,
                   TextStyle::heading});
  }
  return out;
}

std::vector<TextItem> titleSlideTexts(const TitleSlide& t, const Theme& th) {
  auto width = [&](const std::string& s, TextStyle st, float size) {
    return t.measure ? t.measure(s, st, size) : 0.6f * size * float(codePoints(s));
  };
  // As large as a tenth of the slide's height, narrower than 90 % of its width.
  float size = t.height * 0.09f;
  const float w = width(t.title, TextStyle::heading, size);
  if (w > t.width * 0.9f) size *= t.width * 0.9f / w;
  std::vector<TextItem> out;
  out.push_back({{t.width / 2, t.height * 0.42f}, 0.5f, 0.5f, t.title, th.text, size, TextStyle::heading});
  if (!t.byline.empty()) {
    float by = t.height * 0.04f;
    const float bw = width(t.byline, TextStyle::regular, by);
    if (bw > t.width * 0.9f) by *= t.width * 0.9f / bw;
    out.push_back({{t.width / 2, t.height * 0.42f + size * 0.9f + by}, 0.5f, 0.5f, t.byline, th.muted_text, by,
                   TextStyle::regular});
  }
  return out;
}

}  // namespace collviz::ui
