#include "app/files/pdf_writer.h"

#include "app/view/text.h"

#include <ctime>

#ifdef COLLVIZ_HAVE_CAIRO
#include <cairo-pdf.h>
#include <cairo.h>

#include "app/files/cairo_text.h"
#endif

namespace collviz::ui {

#ifdef COLLVIZ_HAVE_CAIRO
namespace {

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

// Latin runs in `font`, CJK runs in `cjk_family` at `cjk_em` times the size
// (cairo_text.h).
void text(cairo_t* cr, const TextItem& t, const PdfParams& p) {
  const CairoFont f{p.font, p.cjk_family, t.size * p.em_per_size, p.cjk_em[int(t.style)],
                    t.style != TextStyle::regular};
  const float top = t.anchor.y - t.size * t.align_y;
  cairo_set_source_rgba(cr, t.color.r, t.color.g, t.color.b, t.color.a);
  cairoText(cr, t.text, f, t.anchor.x, top + p.ascent[int(t.style)] * t.size, t.align_x);
}

// "YYYY-MM-DDThh:mm:ss" in UTC, the form cairo's metadata takes.
std::string isoDate(long long seconds) {
  const std::time_t t = std::time_t(seconds < 0 ? 0 : seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

}  // namespace

bool pdfAvailable() { return true; }

struct PdfDeck::Impl {
  PdfParams p;
  Sink sink;
  Status failed;
  cairo_surface_t* surface = nullptr;
  cairo_t* cr = nullptr;
  bool finished = false;
  static cairo_status_t write(void* closure, const unsigned char* data, unsigned int length) {
    auto* self = static_cast<Impl*>(closure);
    if (!self->failed) return CAIRO_STATUS_WRITE_ERROR;
    self->failed = self->sink(reinterpret_cast<const char*>(data), length);
    return self->failed ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
  }
  Status status() {
    if (!failed) return failed;
    const cairo_status_t st = cairo_surface_status(surface);
    if (st != CAIRO_STATUS_SUCCESS)
      failed = Error{std::string("cairo could not write the PDF: ") + cairo_status_to_string(st)};
    return failed;
  }
};

PdfDeck::PdfDeck(const PdfParams& p, Sink sink, long long created) : impl_(std::make_unique<Impl>()) {
  impl_->p = p;
  impl_->sink = std::move(sink);
  impl_->surface = cairo_pdf_surface_create_for_stream(Impl::write, impl_.get(), p.width, p.height);
  cairo_pdf_surface_set_metadata(impl_->surface, CAIRO_PDF_METADATA_TITLE, p.title.c_str());
  cairo_pdf_surface_set_metadata(impl_->surface, CAIRO_PDF_METADATA_CREATOR, "collviz");
  const std::string date = isoDate(created);
  cairo_pdf_surface_set_metadata(impl_->surface, CAIRO_PDF_METADATA_CREATE_DATE, date.c_str());
  cairo_pdf_surface_set_metadata(impl_->surface, CAIRO_PDF_METADATA_MOD_DATE, date.c_str());
  impl_->cr = cairo_create(impl_->surface);
}

PdfDeck::~PdfDeck() {
  if (impl_->cr) cairo_destroy(impl_->cr);
  if (impl_->surface) {
    if (!impl_->finished) impl_->failed = Error{"abandoned"};  // the sink sees nothing more
    cairo_surface_destroy(impl_->surface);
  }
}

Status PdfDeck::add(const PdfPage& page) {
  if (impl_->finished) return Error{"the PDF is already finished"};
  if (Status s = impl_->status(); !s) return s;
  const PdfParams& p = impl_->p;
  cairo_t* cr = impl_->cr;
  cairo_set_source_rgb(cr, p.background.r, p.background.g, p.background.b);
  cairo_paint(cr);
  picture(cr, page.picture);
  for (const TextItem& t : page.texts) text(cr, t, p);
  cairo_show_page(cr);
  ++pages_;
  return impl_->status();
}

Status PdfDeck::finish() {
  if (impl_->finished) return impl_->status();
  impl_->finished = true;
  cairo_destroy(impl_->cr);
  impl_->cr = nullptr;
  cairo_surface_finish(impl_->surface);
  return impl_->status();
}

Result<std::string> deckPdf(const std::vector<PdfPage>& pages, const PdfParams& p, long long created) {
  std::string out;
  PdfDeck deck(p, [&out](const char* b, std::size_t n) { out.append(b, n); return Status::Ok(); }, created);
  for (const PdfPage& page : pages)
    if (Status s = deck.add(page); !s) return s.error();
  if (Status s = deck.finish(); !s) return s.error();
  return out;
}
#else
bool pdfAvailable() { return false; }
struct PdfDeck::Impl {};
PdfDeck::PdfDeck(const PdfParams&, Sink, long long) {}
PdfDeck::~PdfDeck() = default;
Status PdfDeck::add(const PdfPage&) { return deckPdf({}, {}).error(); }
Status PdfDeck::finish() { return deckPdf({}, {}).error(); }
Result<std::string> deckPdf(const std::vector<PdfPage>&, const PdfParams&, long long) {
  return Error{"this collviz was built without cairo (Debian's libcairo2-dev), so it cannot write PDF; "
               "allowed here: png, svg, both"};
}
#endif

}  // namespace collviz::ui
