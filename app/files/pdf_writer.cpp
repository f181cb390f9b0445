#include "app/files/pdf_writer.h"

#include "app/view/text.h"

#ifdef COLLVIZ_HAVE_CAIRO
#include <cairo-pdf.h>
#include <cairo.h>
#endif

namespace collviz::ui {

#ifdef COLLVIZ_HAVE_CAIRO
namespace {

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void picture(cairo_t* cr, const Image& img) {
  if (img.width <= 0 || img.height <= 0) return;
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, img.width, img.height);
  cairo_surface_flush(s);
  unsigned char* px = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < img.height; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(px + y * stride);
    const uint8_t* in = img.rgb.data() + std::size_t(y) * img.width * 3;
    for (int x = 0; x < img.width; ++x)
      row[x] = 0xff000000u | uint32_t(in[3 * x]) << 16 | uint32_t(in[3 * x + 1]) << 8 | in[3 * x + 2];
  }
  cairo_surface_mark_dirty(s);
  cairo_set_source_surface(cr, s, 0, 0);
  cairo_paint(cr);
  cairo_surface_destroy(s);
}

// Latin runs in `font`, CJK runs in `cjk_family` at `cjk_em` times the size,
// placed one after the other on one baseline.
void text(cairo_t* cr, const TextItem& t, const PdfParams& p) {
  const cairo_font_weight_t weight =
      t.style == TextStyle::regular ? CAIRO_FONT_WEIGHT_NORMAL : CAIRO_FONT_WEIGHT_BOLD;
  const std::vector<TextRun> runs = cjkRuns(t.text);
  auto select = [&](const TextRun& r) {
    cairo_select_font_face(cr, (r.cjk ? p.cjk_family : p.font).c_str(), CAIRO_FONT_SLANT_NORMAL, weight);
    cairo_set_font_size(cr, t.size * p.em_per_size * (r.cjk ? p.cjk_em[int(t.style)] : 1.0f));
  };
  double width = 0;
  for (const TextRun& r : runs) {
    select(r);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, r.text.c_str(), &ext);
    width += ext.x_advance;
  }
  const float top = t.anchor.y - t.size * t.align_y;
  cairo_move_to(cr, t.anchor.x - width * t.align_x, top + p.ascent[int(t.style)] * t.size);
  cairo_set_source_rgba(cr, t.color.r, t.color.g, t.color.b, t.color.a);
  for (const TextRun& r : runs) {
    select(r);
    cairo_show_text(cr, r.text.c_str());  // advances the current point
  }
}

}  // namespace

bool pdfAvailable() { return true; }

Result<std::string> deckPdf(const std::vector<PdfPage>& pages, const PdfParams& p) {
  std::string out;
  cairo_surface_t* surface = cairo_pdf_surface_create_for_stream(append, &out, p.width, p.height);
  cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, p.title.c_str());
  cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "collviz");
  cairo_t* cr = cairo_create(surface);
  for (const PdfPage& page : pages) {
    cairo_set_source_rgb(cr, p.background.r, p.background.g, p.background.b);
    cairo_paint(cr);
    picture(cr, page.picture);
    for (const TextItem& t : page.texts) text(cr, t, p);
    cairo_show_page(cr);
  }
  cairo_destroy(cr);
  cairo_surface_finish(surface);
  const cairo_status_t st = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (st != CAIRO_STATUS_SUCCESS) return Error{std::string("cairo could not write the PDF: ") + cairo_status_to_string(st)};
  return out;
}
#else
bool pdfAvailable() { return false; }
Result<std::string> deckPdf(const std::vector<PdfPage>&, const PdfParams&) {
  return Error{"this collviz was built without cairo (Debian's libcairo2-dev), so it cannot write PDF; "
               "allowed here: png, svg, both"};
}
#endif

}  // namespace collviz::ui
