#include "app/files/cairo_text.h"

#include <cairo.h>

#include <vector>

#include "app/view/text.h"

namespace collviz::ui {
namespace {

void select(cairo_t* cr, const TextRun& r, const CairoFont& f) {
  cairo_select_font_face(cr, (r.cjk ? f.cjk : f.latin).c_str(), CAIRO_FONT_SLANT_NORMAL,
                         f.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, f.size * (r.cjk ? f.cjk_em : 1.0));
}

double width(cairo_t* cr, const std::vector<TextRun>& runs, const CairoFont& f) {
  double w = 0;
  for (const TextRun& r : runs) {
    select(cr, r, f);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, r.text.c_str(), &ext);
    w += ext.x_advance;
  }
  return w;
}

}  // namespace

double cairoTextWidth(cairo_t* cr, const std::string& text, const CairoFont& font) {
  return width(cr, cjkRuns(text), font);
}

void cairoText(cairo_t* cr, const std::string& text, const CairoFont& font, double x, double y,
               double align) {
  const std::vector<TextRun> runs = cjkRuns(text);
  cairo_move_to(cr, x - width(cr, runs, font) * align, y);
  for (const TextRun& r : runs) {
    select(cr, r, font);
    cairo_show_text(cr, r.text.c_str());  // advances the current point
  }
}

}  // namespace collviz::ui
