// Text set with cairo as collviz sets it in every picture it draws without
// a window (the PDF deck, the NCCL log figure's PNG): Latin runs in one
// family, CJK runs (cjkRuns) in another at `cjk_em` times the size, one
// after the other on one baseline. Built only with cairo (COLLVIZ_HAVE_CAIRO).
#pragma once

#include <string>

typedef struct _cairo cairo_t;

namespace collviz::ui {

struct CairoFont {
  std::string latin;  // e.g. "DejaVu Sans"
  std::string cjk;    // e.g. "Noto Sans CJK SC"
  double size = 12;   // the Latin font's em, in user units
  double cjk_em = 1;  // a CJK run's em over `size` (FigureFonts, CjkScale::em)
  bool bold = false;
};

// The advance of `text` in `font`.
double cairoTextWidth(cairo_t* cr, const std::string& text, const CairoFont& font);

// Draws `text` with its baseline at y, starting `align` (0 start, 0.5 middle,
// 1 end) of its width left of x, in the current source colour.
void cairoText(cairo_t* cr, const std::string& text, const CairoFont& font, double x, double y,
               double align = 0);

}  // namespace collviz::ui
