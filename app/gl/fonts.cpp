#include "app/gl/fonts.h"

#include <cfloat>
#include <cstdlib>
#include <filesystem>

#include "app/view/text.h"

namespace collviz::ui {

namespace {
constexpr const char* kRegular = "DejaVuSans.ttf";
constexpr const char* kBold = "DejaVuSans-Bold.ttf";
constexpr float kBaseSize = 17.0f;
constexpr float kHeadingSize = 28.0f;
}  // namespace

std::string findFontDir() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("COLLVIZ_FONT_DIR")) dirs.push_back(env);
  dirs.push_back("/usr/share/fonts/truetype/dejavu");
  dirs.push_back("/usr/share/fonts/TTF");
  dirs.push_back("/usr/share/fonts/dejavu");
  dirs.push_back("/usr/local/share/fonts");
  for (const std::string& d : dirs) {
    std::error_code ec;
    if (fs::exists(fs::path(d) / kRegular, ec) && fs::exists(fs::path(d) / kBold, ec)) return d;
  }
  return "";
}

void Fonts::load(float s) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  scale = s;
  notice.clear();
  std::string dir = findFontDir();
  unicode = !dir.empty();
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
        0x25a0, 0x25ff,  // geometric shapes (▶ ●)
        0x2713, 0x2717,  // ✓ ✗
        0,
    };
    b.AddRanges(kExtra);
    b.BuildRanges(&ranges);
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 2;
    std::string reg = dir + "/" + kRegular, bld = dir + "/" + kBold;
    regular = io.Fonts->AddFontFromFileTTF(reg.c_str(), kBaseSize * s, &cfg, ranges.Data);
    bold = io.Fonts->AddFontFromFileTTF(bld.c_str(), kBaseSize * s, &cfg, ranges.Data);
    heading = io.Fonts->AddFontFromFileTTF(bld.c_str(), kHeadingSize * s, &cfg, ranges.Data);
    unicode = regular && bold && heading;
  }
  if (!unicode) {
    io.Fonts->Clear();
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * s;
    regular = bold = heading = io.Fonts->AddFontDefault(&cfg);
    notice = "font DejaVu Sans (DejaVuSans.ttf, DejaVuSans-Bold.ttf from fonts-dejavu-core) not "
             "found; set COLLVIZ_FONT_DIR. Showing Σ as S and subscripts as _0.";
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
