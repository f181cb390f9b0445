// Fonts: DejaVu Sans and DejaVu Sans Bold (fonts-dejavu-core), found at run
// time, with the glyphs the diagrams need (Σ, subscript digits and ᵢ, arrows,
// ·, —, ✓ ✗). Without them ImGui's built-in font is used and text goes
// through asciiFallback, and `notice` says which font was wanted.
// Chinese: the glyphs of the text actually shown (the string table's Chinese,
// a lecture's captions) merged in from a CJK font (fonts-noto-cjk's Noto Sans
// CJK SC, or WenQuanYi Micro Hei), so the atlas holds only what is drawn.
#pragma once

#include <imgui.h>

#include <string>

#include "app/files/font_file.h"
#include "app/files/font_metrics.h"
#include "app/view/scene.h"

namespace collviz::ui {

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  ImFont* heading = nullptr;  // bold, larger: rendered at size so it stays sharp
  bool unicode = false;       // DejaVu loaded: Σ and subscripts are real glyphs
  float scale = 0;            // the UI scale they were built for
  std::string notice;         // empty, or what was missing
  ImVector<ImWchar> ranges;   // must outlive the atlas build
  ImVector<ImWchar> cjk_ranges;
  std::string glyph_text;     // the text whose CJK glyphs were asked for
  bool cjk_missing = false;   // CJK glyphs were asked for and no CJK font was found
  // Per TextStyle: how much larger CJK glyphs are set than the Latin font's
  // size so that the CJK font's own H is as tall as DejaVu's H (font_metrics.h);
  // 1 without a CJK font.
  CjkScale cjk_scale[3];
  std::string cjk_family;     // the CJK font's family name, for SVG and PDF text

  // (Re)build the atlas for `scale`. Call outside a frame; the caller then
  // recreates the renderer's font texture.
  // `glyph_text`: text to be drawn beyond the Latin/Greek set (Chinese).
  void load(float scale, const std::string& glyph_text = "");
  ImFont* font(TextStyle style) const;
  // The text as it should be drawn with the loaded fonts.
  std::string display(const std::string& utf8) const;
  float measure(const std::string& utf8, TextStyle style, float size) const;
};

// The notice shown when Chinese was asked for and no CJK font is there.
std::string cjkMissingNotice();
// The Chinese text of the whole string table (the glyphs the UI may draw in 中文).
std::string uiChineseText();

}  // namespace collviz::ui
