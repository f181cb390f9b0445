#include "app/files/font_metrics.h"

#include <stb_truetype.h>  // the implementation is in libstb

#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "app/files/font_file.h"

namespace collviz::ui {

namespace {
// A font file's bytes and stb_truetype's view of face `face`; "" or why not.
struct LoadedFont {
  std::vector<unsigned char> data;
  stbtt_fontinfo info{};
};
std::string load(const std::string& path, int face, LoadedFont* f) {
  // stb_truetype trusts its input: only a file font_file has checked.
  if (std::string bad = fontFileProblem(path, face); !bad.empty()) return path + " " + bad;
  std::ifstream in(path, std::ios::binary);
  f->data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const int offset = f->data.empty() ? -1 : stbtt_GetFontOffsetForIndex(f->data.data(), face);
  if (offset < 0 || !stbtt_InitFont(&f->info, f->data.data(), offset))
    return path + " cannot be read by stb_truetype";
  return "";
}
}  // namespace

GlyphHeights glyphHeights(const std::string& path, int face, char32_t glyph) {
  GlyphHeights h;
  LoadedFont f;
  if (h.why = load(path, face, &f); !h.why.empty()) return h;
  const stbtt_fontinfo& info = f.info;
  int ascent = 0, descent = 0, gap = 0, x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  stbtt_GetFontVMetrics(&info, &ascent, &descent, &gap);
  const int index = stbtt_FindGlyphIndex(&info, int(glyph));
  if (index == 0 || !stbtt_GetGlyphBox(&info, index, &x0, &y0, &x1, &y1) || y1 <= y0) {
    h.why = path + " has no glyph U+" + std::to_string(unsigned(glyph));
    return h;
  }
  h.units_per_em = 1.0f / stbtt_ScaleForMappingEmToPixels(&info, 1.0f);
  h.line = float(ascent - descent);
  h.height = float(y1 - y0);
  return h;
}

std::string fontFamily(const std::string& path, int face) {
  LoadedFont f;
  if (!load(path, face, &f).empty()) return "";
  // The typographic family (name 16), else the family (1); Windows/Unicode, US English.
  for (int id : {16, 1}) {
    int len = 0;
    const char* name = stbtt_GetFontNameString(&f.info, &len, STBTT_PLATFORM_ID_MICROSOFT,
                                               STBTT_MS_EID_UNICODE_BMP, STBTT_MS_LANG_ENGLISH, id);
    std::string out;
    for (int i = 0; name && i + 1 < len; i += 2) {  // UTF-16BE; family names are ASCII
      const unsigned c = unsigned(static_cast<unsigned char>(name[i])) << 8 | static_cast<unsigned char>(name[i + 1]);
      if (c < 0x20 || c >= 0x7f) return "";
      out += char(c);
    }
    if (!out.empty()) return out;
  }
  return "";
}

CjkScale measureCjkScale(const std::string& latin, const std::string& cjk, int cjk_face) {
  static std::mutex m;
  static std::map<std::tuple<std::string, std::string, int>, CjkScale> cache;
  const auto key = std::make_tuple(latin, cjk, cjk_face);
  std::lock_guard<std::mutex> lock(m);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  CjkScale s;
  const GlyphHeights cap = glyphHeights(latin, 0, U'H');
  // The CJK font's own Latin H: its designer's balance between its
  // ideographs and Latin (中 then stands about 1.26 H tall in Noto Sans CJK).
  const GlyphHeights own = cjk.empty() ? GlyphHeights{0, 0, 0, "no CJK font"} : glyphHeights(cjk, cjk_face, U'H');
  if (!cap.why.empty() || !own.why.empty() || cap.line <= 0 || own.line <= 0) {
    s.why = !cap.why.empty() ? cap.why : !own.why.empty() ? own.why : "a font has no line height";
  } else {
    s.pixel = (cap.height / cap.line) / (own.height / own.line);
    s.em = (cap.height / cap.units_per_em) / (own.height / own.units_per_em);
    s.measured = true;
    const GlyphHeights ideo = glyphHeights(cjk, cjk_face, U'中');
    if (ideo.why.empty() && own.height > 0) s.ideograph_over_h = ideo.height / own.height;
  }
  if (!cjk.empty()) s.family = fontFamily(cjk, cjk_face);
  cache[key] = s;
  return s;
}

const FigureFonts& figureFonts() {
  static const FigureFonts f = [] {
    FigureFonts x;
    const std::string dir = findFontDir();
    if (dir.empty()) return x;
    for (int bold = 0; bold < 2; ++bold) {
      int face = 0;
      const std::string cjk = findCjkFont(bold == 1, &face);
      if (cjk.empty()) continue;
      const CjkScale s = measureCjkScale(dir + "/" + (bold ? kDejaVuBold : kDejaVuRegular), cjk, face);
      if (!s.measured) continue;
      x.cjk_em[bold] = s.em;
      if (!bold && !s.family.empty()) x.cjk = s.family;
    }
    return x;
  }();
  return f;
}

}  // namespace collviz::ui
