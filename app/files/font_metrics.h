// How large to set CJK glyphs beside Latin text: the CJK font's own Latin
// capital H as tall as the Latin font's H at the same text size, so its
// ideographs keep the size its designer gave them beside Latin (中 about
// 1.26 H in Noto Sans CJK; issue 37). Both heights are read
// from the font files (stb_truetype: the glyphs' bounding boxes in font
// units) when the fonts load, never guessed; the window's ImGui fonts, the
// diagram's text, the SVG export and the PDF deck all take their factor
// from here. Without a CJK font, or a font stb_truetype cannot read, the
// factor is 1 and `why` says what was missing.
#pragma once

#include <string>

namespace collviz::ui {

struct CjkScale {
  // ImGui sizes a font by its line height (hhea ascent - descent): the CJK
  // font merged into a Latin font of size S is loaded at S * pixel.
  float pixel = 1.0f;
  // SVG, CSS and cairo size a font by its em: a CJK run inside text of em E
  // is set at E * em.
  float em = 1.0f;
  bool measured = false;
  // 中's height over H's in the CJK font (what a picture shows beside
  // DejaVu's H once scaled); 0 when not measured.
  float ideograph_over_h = 0;
  std::string why;     // when not measured: what was missing
  std::string family;  // the CJK font's family name (SVG, PDF); "" when unreadable
};

// One font's heights, in its units (face `face` of a collection).
struct GlyphHeights {
  float units_per_em = 0;
  float line = 0;     // hhea ascent - descent (what ImGui's size means)
  float height = 0;   // the ink height of the glyph asked for
  std::string why;    // empty when read
};
GlyphHeights glyphHeights(const std::string& path, int face, char32_t glyph);

// The family name the font goes by (its name table), as SVG and cairo ask
// for it; "" when unreadable.
std::string fontFamily(const std::string& path, int face);

// H of `latin` against H of `cjk` (face `cjk_face`). Cached per file pair.
CjkScale measureCjkScale(const std::string& latin, const std::string& cjk, int cjk_face);

// The fonts of a figure drawn without a window (the NCCL log figure's SVG
// and PNG): DejaVu Sans, and CJK runs in the CJK font findCjkFont() finds at
// the size measureCjkScale() gives, as every other figure sets them
// (regular and bold each measured against their own DejaVu file). Without a
// CJK font or DejaVu: the family names below and a factor of 1.
struct FigureFonts {
  std::string latin = "DejaVu Sans";
  std::string cjk = "Noto Sans CJK SC";
  float cjk_em[2] = {1.0f, 1.0f};  // [0] regular, [1] bold
  float em(bool bold) const { return cjk_em[bold ? 1 : 0]; }
};
// Found and measured once per process.
const FigureFonts& figureFonts();

}  // namespace collviz::ui
