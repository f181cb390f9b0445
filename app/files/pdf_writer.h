// A lecture deck as one PDF (cairo's PDF surface): a page per slide, each
// the slide's picture (the diagram as the window draws it) with its text —
// the caption, the title slide's lines — set as real text on top, so a
// reader can select, search and extract it (pdftotext). Pure: no GL; text is
// placed the way ImGui places it (by its top, sized by its line height).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/files/image_file.h"
#include "app/view/palette.h"
#include "app/view/scene.h"
#include "engine/text.h"

namespace collviz::ui {

struct PdfPage {
  Image picture;                // the page's pixels (empty: the background only)
  std::vector<TextItem> texts;  // drawn over the picture, in the same pixels
};

struct PdfParams {
  int width = 0, height = 0;  // pixels; one pixel is one PDF point
  Rgba background;
  float ascent[3] = {0.8f, 0.8f, 0.8f};  // baseline below the top, per TextStyle (as SvgParams)
  float em_per_size = 2048.0f / 2384.0f;
  std::string font = "DejaVu Sans";  // the family text is set in (fontconfig)
  // CJK runs (text.h): their family and em per TextStyle relative to the
  // text around them, so that the CJK font's H is as tall as DejaVu's (as SvgParams).
  std::string cjk_family = "Noto Sans CJK SC";
  float cjk_em[3] = {1.0f, 1.0f, 1.0f};
  std::string title;                 // the document's title
};

// A deck written page by page to `sink` (the bytes as cairo makes them), so
// that memory holds one page, not the deck: a 1000-step deck costs what one
// step does. Byte-identical for the same pages: the document's creation
// date is fixed (`created`, seconds since 1970: SOURCE_DATE_EPOCH when set,
// else the script's modification time; lecture_command.cpp).
class PdfDeck {
 public:
  using Sink = std::function<Status(const char* bytes, std::size_t size)>;
  PdfDeck(const PdfParams& p, Sink sink, long long created);
  ~PdfDeck();
  PdfDeck(const PdfDeck&) = delete;
  PdfDeck& operator=(const PdfDeck&) = delete;
  Status add(const PdfPage& page);  // after a failure, that failure again
  Status finish();                  // the document's end; then no more pages
  int pages() const { return pages_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int pages_ = 0;
};
// The whole deck's PDF bytes at once (small decks, tests).
Result<std::string> deckPdf(const std::vector<PdfPage>& pages, const PdfParams& p, long long created = 0);
// Whether this build can write PDF (built with cairo).
bool pdfAvailable();

}  // namespace collviz::ui
