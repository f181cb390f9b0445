#include "app/gl/fonts.h"

#include <cfloat>
#include <cstdlib>

#include "app/files/font_file.h"
#include "app/lang/lang.h"
#include "app/view/text.h"

namespace collviz::ui {

namespace {
constexpr float kBaseSize = 17.0f;
constexpr float kHeadingSize = 28.0f;
}  // namespace

std::string cjkMissingNotice() {
  if (const char* env = std::getenv("COLLVIZ_CJK_FONT"); env && *env) {
    if (std::string why = fontFileProblem(env, 0); !why.empty())
      return "COLLVIZ_CJK_FONT=" + std::string(env) + " " + why +
             "; Chinese needs a CJK font (fonts-noto-cjk or fonts-wqy-microhei); showing English";
  }
  return "Chinese needs a CJK font (fonts-noto-cjk or fonts-wqy-microhei; or set COLLVIZ_CJK_FONT); "
         "showing English";
}

std::string uiChineseText() {
  std::string all;
  for (const Translation& t : translations()) all += t.zh;
  return all;
}

namespace {
// CJK code points of `text` (everything from U+2E80 on: ideographs, CJK and
// full-width punctuation), as ImGui glyph ranges.
void cjkRanges(const std::string& text, ImVector<ImWchar>* out) {
  ImFontGlyphRangesBuilder b;
  for (char32_t c : toCodePoints(text))
    if (isCjk(c)) b.AddChar(ImWchar(c));
  out->clear();
  b.BuildRanges(out);
}

// Merge the CJK glyphs into the font just added, scaled so that the CJK
// font's own H is as tall as the Latin font's H (measured by load()).
void mergeCjk(ImGuiIO& io, float size, bool bold, const CjkScale& scale, const ImVector<ImWchar>& ranges) {
  int face = 0;
  const std::string path = findCjkFont(bold, &face);
  ImFontConfig cfg;
  cfg.MergeMode = true;
  cfg.FontNo = face;
  cfg.OversampleH = 1;  // CJK glyphs are dense; 1x keeps the atlas small
  cfg.OversampleV = 1;
  io.Fonts->AddFontFromFileTTF(path.c_str(), size * scale.pixel, &cfg, ranges.Data);
}
}  // namespace

void Fonts::load(float s, const std::string& text) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  scale = s;
  notice.clear();
  glyph_text = text;
  cjkRanges(text, &cjk_ranges);
  int face = 0;
  const bool want_cjk = cjk_ranges.Size > 1;
  const bool have_cjk = want_cjk && !findCjkFont(false, &face).empty();
  cjk_missing = want_cjk && !have_cjk;
  std::string dir = findFontDir();
  unicode = !dir.empty();
  std::string bad_font;  // a DejaVu file ImGui would abort on: fall back instead
  for (const char* f : {kDejaVuRegular, kDejaVuBold})
    if (std::string why = unicode ? fontFileProblem(dir + "/" + f, 0) : ""; !why.empty() && bad_font.empty())
      bad_font = dir + "/" + f + " " + why;
  if (!bad_font.empty()) unicode = false;
  for (CjkScale& c : cjk_scale) c = CjkScale{};
  cjk_family.clear();
  if (unicode && have_cjk) {
    int bold_face = 0;
    const std::string cjk_regular = findCjkFont(false, &face), cjk_bold = findCjkFont(true, &bold_face);
    cjk_scale[int(TextStyle::regular)] = measureCjkScale(dir + "/" + kDejaVuRegular, cjk_regular, face);
    cjk_scale[int(TextStyle::bold)] = cjk_scale[int(TextStyle::heading)] =
        measureCjkScale(dir + "/" + kDejaVuBold, cjk_bold, bold_face);
    cjk_family = cjk_scale[int(TextStyle::regular)].family;
  }
  if (unicode) {
    ranges.clear();
    ImFontGlyphRangesBuilder b;
    b.AddRanges(io.Fonts->GetGlyphRangesDefault());  // Latin + Latin-1 (·, ×)
    static const ImWchar kExtra[] = {
        0x0370, 0x03ff,  // Greek (Σ)
        0x1d62, 0x1d62,  // subscript i (Σᵢ)
        0x2010, 0x205e,  // dashes, bullets, … 
        0x2070, 0x209f,  // superscripts and subscripts (₀-₉)
        0x2190, 0x21ff,  // arrows
        0x2200, 0x22ff,  // maths operators (≠, −)
        0x2300, 0x23ff,  // technical: ceiling and floor (⌈log2 N⌉, ⌊N/2⌋)
        0x25a0, 0x25ff,  // geometric shapes (▶ ●)
        0x2713, 0x2717,  // ✓ ✗
        0,
    };
    b.AddRanges(kExtra);
    b.BuildRanges(&ranges);
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 2;
    std::string reg = dir + "/" + kDejaVuRegular, bld = dir + "/" + kDejaVuBold;
    regular = io.Fonts->AddFontFromFileTTF(reg.c_str(), kBaseSize * s, &cfg, ranges.Data);
    if (have_cjk) mergeCjk(io, kBaseSize * s, false, cjk_scale[int(TextStyle::regular)], cjk_ranges);
    bold = io.Fonts->AddFontFromFileTTF(bld.c_str(), kBaseSize * s, &cfg, ranges.Data);
    if (have_cjk) mergeCjk(io, kBaseSize * s, true, cjk_scale[int(TextStyle::bold)], cjk_ranges);
    heading = io.Fonts->AddFontFromFileTTF(bld.c_str(), kHeadingSize * s, &cfg, ranges.Data);
    if (have_cjk) mergeCjk(io, kHeadingSize * s, true, cjk_scale[int(TextStyle::heading)], cjk_ranges);
    unicode = regular && bold && heading;
  }
  if (!unicode) {
    io.Fonts->Clear();
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * s;
    regular = bold = heading = io.Fonts->AddFontDefault(&cfg);
    notice = bad_font.empty()
                 ? "font DejaVu Sans (DejaVuSans.ttf, DejaVuSans-Bold.ttf from fonts-dejavu-core) not "
                   "found; set COLLVIZ_FONT_DIR. Showing Σ as S and subscripts as _0."
                 : "font " + bad_font + "; using the built-in font (set COLLVIZ_FONT_DIR to DejaVu "
                   "Sans). Showing Σ as S and subscripts as _0.";
  }
  io.Fonts->Build();
}

ImFont* Fonts::font(TextStyle style) const {
  switch (style) {
    case TextStyle::bold: return bold;
    case TextStyle::heading: return heading;
    default: return regular;
  }
}

std::string Fonts::display(const std::string& utf8) const {
  return unicode ? utf8 : asciiFallback(utf8);
}

float Fonts::measure(const std::string& utf8, TextStyle style, float size) const {
  ImFont* f = font(style);
  if (!f) return 0.6f * size * float(codePoints(utf8));
  std::string t = display(utf8);
  return f->CalcTextSizeA(size, FLT_MAX, 0.0f, t.c_str(), t.c_str() + t.size()).x;
}

}  // namespace collviz::ui
