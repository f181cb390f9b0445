// A lecture deck as one PDF (cairo's PDF surface): a page per slide, each
// the slide's picture (the diagram as the window draws it) with its text —
// the caption, the title slide's lines — set as real text on top, so a
// reader can select, search and extract it (pdftotext). Pure: no GL; text is
// placed the way ImGui places it (by its top, sized by its line height).
#pragma once

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
  // text around them, so that 中 is as tall as H (as SvgParams).
  std::string cjk_family = "Noto Sans CJK SC";
  float cjk_em[3] = {1.0f, 1.0f, 1.0f};
  std::string title;                 // the document's title
};

// The whole deck's PDF bytes, or why cairo could not make it.
Result<std::string> deckPdf(const std::vector<PdfPage>& pages, const PdfParams& p);
// Whether this build can write PDF (built with cairo).
bool pdfAvailable();

}  // namespace collviz::ui
