#include "app/view/caption.h"

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

// Code point length of the UTF-8 sequence starting with byte c.
size_t seqLen(unsigned char c) { return c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2; }
// A CJK character or full-width punctuation: a line may break before it.
bool breaksAnywhere(unsigned char lead) { return lead >= 0xe3; }
}  // namespace

float captionTextSize(float scale) { return kSize * scale; }

std::vector<std::string> captionLines(const CaptionParams& p) {
  std::vector<std::string> lines;
  std::string line;
  size_t last_break = std::string::npos;  // in `line`: where it may be cut
  for (size_t i = 0; i < p.text.size();) {
    const size_t n = std::min(seqLen(static_cast<unsigned char>(p.text[i])), p.text.size() - i);
    const std::string ch = p.text.substr(i, n);
    i += n;
    if (ch == "\n") {
      lines.push_back(line);
      line.clear();
      last_break = std::string::npos;
      continue;
    }
    if (ch == " " || breaksAnywhere(static_cast<unsigned char>(ch[0]))) last_break = line.size();
    line += ch;
    if (p.width > 0 && measureOf(p, line) > p.width) {
      if (last_break != std::string::npos && last_break > 0) {
        std::string rest = line.substr(last_break);
        line.resize(last_break);
        lines.push_back(line);
        line = rest.starts_with(" ") ? rest.substr(1) : rest;
        last_break = std::string::npos;
      } else if (line.size() > ch.size()) {
        // A word wider than the caption is cut where it overflows: lines
        // stay within the width, so laying out costs linear time however
        // long the word.
        line.resize(line.size() - ch.size());
        lines.push_back(line);
        line = ch;
      }
    }
    // Lines past the last one shown are never drawn: stop (long text costs
    // no more than the lines shown).
    if (int(lines.size()) > kCaptionMaxLines) break;
  }
  if (!line.empty() && int(lines.size()) <= kCaptionMaxLines) lines.push_back(line);
  if (int(lines.size()) > kCaptionMaxLines) {
    lines.resize(kCaptionMaxLines);
    lines.back() += "…";
  }
  return lines;
}

float captionHeight(const CaptionParams& p) {
  const size_t n = captionLines(p).size();
  if (n == 0) return 0;
  return float(n) * captionTextSize(p.scale) * kLineGap + 2 * kPad * p.scale;
}

std::vector<TextItem> captionTexts(const CaptionParams& p, const Theme& th) {
  std::vector<TextItem> out;
  const float size = captionTextSize(p.scale);
  float y = p.y + kPad * p.scale;
  for (const std::string& l : captionLines(p)) {
    out.push_back({{p.x, y}, 0, 0, l, th.text, size, TextStyle::heading});
    y += size * kLineGap;
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
