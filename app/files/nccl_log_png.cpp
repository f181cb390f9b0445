#include "app/files/nccl_log_png.h"

#include <cmath>


#ifdef COLLVIZ_HAVE_CAIRO
#include <cairo.h>

#include "app/files/cairo_text.h"
#endif

namespace collviz::ui {

#ifdef COLLVIZ_HAVE_CAIRO
namespace {

void source(cairo_t* cr, Rgba c) { cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a); }

void stroke(cairo_t* cr, const NcclShape& s) {
  cairo_set_line_width(cr, s.width);
  const double dash[2] = {6, 3};
  cairo_set_dash(cr, dash, s.dashed ? 2 : 0, 0);
  source(cr, s.stroke);
  cairo_stroke(cr);
  cairo_set_dash(cr, nullptr, 0, 0);
}

// The SVG writer's marker: a 9-unit triangle whose tip is the arc's end,
// pointing along the curve's last tangent.
void arrowhead(cairo_t* cr, const NcclShape& s, Rgba colour) {
  double dx = s.x1 - s.cx1, dy = s.y1 - s.cy1;
  const double len = std::hypot(dx, dy);
  if (len < 1e-6) dx = s.x1 - s.x0, dy = s.y1 - s.y0;
  const double angle = std::atan2(dy, dx);
  cairo_save(cr);
  cairo_translate(cr, s.x1, s.y1);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, 0, 0);
  cairo_line_to(cr, -9, -4.5);
  cairo_line_to(cr, -9, 4.5);
  cairo_close_path(cr);
  source(cr, colour);
  cairo_fill(cr);
  cairo_restore(cr);
}

void rect(cairo_t* cr, const NcclShape& s) {
  const double x = s.x0, y = s.y0, w = s.x1, h = s.y1;
  const double r = std::fmin(s.radius, std::fmin(w, h) / 2);
  cairo_new_sub_path(cr);
  cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
  cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
  cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
  cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
  cairo_close_path(cr);
  if (s.filled) {
    source(cr, s.fill);
    cairo_fill_preserve(cr);
  }
  cairo_set_line_width(cr, 1);
  const double dash[2] = {4, 3};
  cairo_set_dash(cr, dash, s.dashed ? 2 : 0, 0);
  source(cr, s.stroke);
  cairo_stroke(cr);
  cairo_set_dash(cr, nullptr, 0, 0);
}

// SVG's <text>: y is the baseline, the anchor is start, middle or end; CJK
// runs at the CJK font's natural size, as in every figure (cairo_text.h).
void text(cairo_t* cr, const NcclShape& s, const FigureFonts& fonts) {
  source(cr, s.fill);
  cairoText(cr, s.text, CairoFont{fonts.latin, fonts.cjk, s.size, fonts.em(s.bold), s.bold}, s.x0, s.y0,
            s.anchor == 1 ? 0.5 : s.anchor == 2 ? 1.0 : 0.0);
}

}  // namespace

Result<Image> figureToImage(const NcclFigure& f, float scale, const FigureFonts& fonts) {
  if (!(scale >= 0.25f && scale <= 8)) return Error{say("{0}; allowed: {1} to {2}", say("{0} {1} is out of range", "--scale", scale), "0.25", 8)};
  const int w = int(std::ceil(f.width * scale)), h = int(std::ceil(f.height * scale));
  if (w <= 0 || h <= 0 || double(w) * h > 32768.0 * 32768.0)
    return Error{say("the figure would be {0}x{1} pixels; allowed: 1 to 32768 on a side", w, h)};
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surface);
    return Error{say("out of memory for a {0}x{1} image", w, h)};
  }
  cairo_t* cr = cairo_create(surface);
  cairo_scale(cr, scale, scale);
  source(cr, f.background);
  cairo_paint(cr);
  for (const NcclShape& s : f.shapes) {
    switch (s.kind) {
      case NcclShape::Kind::rect:
        rect(cr, s);
        break;
      case NcclShape::Kind::arc:
        cairo_move_to(cr, s.x0, s.y0);
        cairo_curve_to(cr, s.cx0, s.cy0, s.cx1, s.cy1, s.x1, s.y1);
        stroke(cr, s);
        if (s.arrow) {
          Rgba colour = s.stroke;
          for (const auto& [k, c] : f.markers)
            if (k == s.marker) colour = c;
          arrowhead(cr, s, colour);
        }
        break;
      case NcclShape::Kind::line:
        cairo_move_to(cr, s.x0, s.y0);
        cairo_line_to(cr, s.x1, s.y1);
        stroke(cr, s);
        break;
      case NcclShape::Kind::text:
        text(cr, s, fonts);
        break;
    }
  }
  cairo_destroy(cr);
  cairo_surface_flush(surface);
  Image img;
  img.width = w, img.height = h;
  img.rgb.resize(std::size_t(w) * h * 3);
  const unsigned char* px = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  for (int y = 0; y < h; ++y) {
    const auto* row = reinterpret_cast<const uint32_t*>(px + std::size_t(y) * stride);
    uint8_t* out = img.rgb.data() + std::size_t(y) * w * 3;
    for (int x = 0; x < w; ++x) {
      out[3 * x] = uint8_t(row[x] >> 16), out[3 * x + 1] = uint8_t(row[x] >> 8), out[3 * x + 2] = uint8_t(row[x]);
    }
  }
  cairo_surface_destroy(surface);
  return img;
}
#else
Result<Image> figureToImage(const NcclFigure&, float, const FigureFonts&) {
  return Error{say("this collviz was built without cairo (libcairo2-dev), so the figure of an NCCL log is SVG or HTML only")};
}
#endif

}  // namespace collviz::ui
