// Glyph size (issues 22, 37): in text collviz draws, Chinese keeps the size
// its font's designer gave it beside Latin: the CJK font is scaled so that
// its own Latin H is as tall as DejaVu's H, so 中 stands as many times H's
// height as it does in the CJK font (about 1.26 in Noto Sans CJK). A deck
// whose title, byline and caption are "H中" is exported in Chinese as PNG
// (the window's fonts), as SVG (rasterized by rsvg-convert) and as PDF
// (rasterized by pdftoppm); in each picture the ink of H and of 中 is found
// and 中/H must lie within 6 % of the CJK font's own 中/H (a scale left at 中
// as tall as H, 1.0, is 20 % off). The figures are printed;
// COLLVIZ_TEST_CLI=path measures another collviz (main's build, for the
// figure before the change). The NCCL log figure's writers (PNG by cairo,
// SVG) are held to the same with a figure of two lines "H中", regular and
// bold (issue 49: they set Chinese at the Latin em, 中/H 1.20 for 1.26).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/files/font_metrics.h"
#include "app/files/nccl_log_png.h"
#include "app/files/nccl_log_svg.h"
#include "app/gl/fonts.h"
#include "tests/app/export/export_support.h"

namespace collviz::test {
namespace {

struct Box {
  int x0 = 0, x1 = 0, y0 = 0, y1 = 0;  // inclusive
  int height() const { return y1 - y0 + 1; }
};

// Pixels at least 40 % of the picture's largest contrast away from its
// corner (the background): the glyphs' ink, anti-aliased edges halved.
std::vector<bool> inkOf(const Png& p) {
  const uint8_t* bg = p.at(0, 0);
  auto diff = [&](int x, int y) {
    const uint8_t* c = p.at(x, y);
    return std::abs(c[0] - bg[0]) + std::abs(c[1] - bg[1]) + std::abs(c[2] - bg[2]);
  };
  int most = 0;
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) most = std::max(most, diff(x, y));
  std::vector<bool> ink(std::size_t(p.width) * p.height);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) ink[std::size_t(y) * p.width + x] = most > 0 && diff(x, y) * 10 >= most * 4;
  return ink;
}

// Lines of text (bands of rows with ink, top to bottom), each cut into
// glyphs (runs of columns with ink, left to right) with their ink's box.
std::vector<std::vector<Box>> glyphLines(const Png& p) {
  const std::vector<bool> ink = inkOf(p);
  auto at = [&](int x, int y) { return bool(ink[std::size_t(y) * p.width + x]); };
  std::vector<std::vector<Box>> lines;
  for (int y = 0; y < p.height;) {
    auto row_ink = [&](int yy) {
      for (int x = 0; x < p.width; ++x)
        if (at(x, yy)) return true;
      return false;
    };
    if (!row_ink(y)) { ++y; continue; }
    int y1 = y;
    while (y1 + 1 < p.height && row_ink(y1 + 1)) ++y1;
    std::vector<Box> glyphs;
    for (int x = 0; x < p.width;) {
      auto col_ink = [&](int xx) {
        for (int yy = y; yy <= y1; ++yy)
          if (at(xx, yy)) return true;
        return false;
      };
      if (!col_ink(x)) { ++x; continue; }
      Box b{x, x, y1, y};
      while (b.x1 + 1 < p.width && col_ink(b.x1 + 1)) ++b.x1;
      for (int xx = b.x0; xx <= b.x1; ++xx)
        for (int yy = y; yy <= y1; ++yy)
          if (at(xx, yy)) b.y0 = std::min(b.y0, yy), b.y1 = std::max(b.y1, yy);
      glyphs.push_back(b);
      x = b.x1 + 1;
    }
    lines.push_back(glyphs);
    y = y1 + 1;
  }
  return lines;
}

// 中's height over H's on one line that shows exactly "H中".
double ratioOn(const std::vector<Box>& line, const std::string& what) {
  if (line.size() != 2) {
    ADD_FAILURE() << what << ": " << line.size() << " glyphs on the line, expected H and 中";
    return 0;
  }
  const double r = double(line[1].height()) / line[0].height();
  std::printf("figure: %s: H %d px, 中 %d px tall: 中/H = %.3f\n", what.c_str(), line[0].height(),
              line[1].height(), r);
  return r;
}

// 中/H in the CJK font collviz merges (read from the font files, as the app
// does); 0 when no CJK font or DejaVu is found.
double expectedRatio() {
  int face = 0;
  const std::string cjk = ui::findCjkFont(false, &face), dir = ui::findFontDir();
  if (cjk.empty() || dir.empty()) return 0;
  const ui::CjkScale s = ui::measureCjkScale(dir + "/DejaVuSans.ttf", cjk, face);
  std::printf("figure: the CJK font's own 中/H = %.3f (%s)\n", s.ideograph_over_h, cjk.c_str());
  return s.ideograph_over_h;
}

void expectRatio(double r, const std::string& what) {
  static const double want = expectedRatio();
  ASSERT_GT(want, 1.0) << "the CJK font's 中/H could not be read";
  EXPECT_NEAR(r / want, 1.0, 0.06) << what << ": 中/H = " << r << ", the CJK font's own is " << want
                                  << (r < want ? " (Chinese drawn smaller than its font means)" : " (drawn larger)");
}

const std::string kDeck =
    "title.en = \"H中\"\ntitle.zh = \"H中\"\nauthor.en = \"H中\"\nauthor.zh = \"H中\"\n"
    "[[step]]\nop = \"broadcast\"\nranks = 2\nelems = 1\nbackend = \"gloo\"\n"
    "caption.en = \"H中\"\ncaption.zh = \"H中\"\n";

// The deck exported in `format` (Chinese, 1920x1080 pixels: 960x540 at
// scale 2) into a fresh directory; `cjk` false when no CJK font was found.
struct Deck {
  std::string dir;
  bool cjk = true;
};
Deck exportDeck(const std::string& name, const std::string& format) {
  Deck d{freshDir(name)};
  writeFile(d.dir + "/deck.toml", kDeck);
  const RunResult r = collviz("lecture " + d.dir + "/deck.toml --lang zh --size 960x540 --scale 2 --format " + format +
                              " --export " + d.dir + "/out");
  EXPECT_EQ(r.rc, 0) << r.out;
  d.cjk = r.out.find("Chinese needs a CJK font") == std::string::npos;
  return d;
}

// The title slide: the title (heading) and the byline (regular), each "H中".
void expectTitleSlide(const Png& p, const std::string& what) {
  ASSERT_TRUE(p.ok()) << what << ": no picture";
  const auto lines = glyphLines(p);
  ASSERT_EQ(lines.size(), 2u) << what << ": expected the title and the byline";
  for (int k = 0; k < 2; ++k) {
    const std::string part = what + (k == 0 ? " title (bold)" : " byline (regular)");
    expectRatio(ratioOn(lines[k], part), part);
  }
}

// A step's slide: its caption is the lowest line of text.
void expectCaption(const Png& p, const std::string& what) {
  ASSERT_TRUE(p.ok()) << what << ": no picture";
  const auto lines = glyphLines(p);
  ASSERT_FALSE(lines.empty()) << what << ": nothing drawn";
  // The line ends in the step counter at its right ("1 / 1", as the live
  // lecture shows it): "H中" are its first two glyphs.
  std::vector<Box> caption = lines.back();
  if (caption.size() > 2) caption.resize(2);
  expectRatio(ratioOn(caption, what + " caption"), what + " caption");
}

TEST(GlyphSize, Png) {
  const Deck d = exportDeck("glyph_png", "png");
  if (!d.cjk) GTEST_SKIP() << "no CJK font (fonts-noto-cjk)";
  const std::string& dir = d.dir;
  expectTitleSlide(loadPng(dir + "/out/step00_title.png"), "PNG");
  std::string step;
  for (const std::string& f : listDir(dir + "/out"))
    if (f.rfind("step01", 0) == 0) step = f;
  ASSERT_FALSE(step.empty()) << "no step01 slide";
  expectCaption(loadPng(dir + "/out/" + step), "PNG " + step);
}

TEST(GlyphSize, Svg) {
  if (!haveTool("rsvg-convert")) GTEST_SKIP() << "rsvg-convert (librsvg2-bin) not found";
  const Deck d = exportDeck("glyph_svg", "svg");
  if (!d.cjk) GTEST_SKIP() << "no CJK font (fonts-noto-cjk)";
  const std::string& dir = d.dir;
  ASSERT_EQ(std::system(("rsvg-convert -b white -o " + dir + "/title.png " + dir + "/out/step00_title.svg").c_str()), 0);
  expectTitleSlide(loadPng(dir + "/title.png"), "SVG");
}

TEST(GlyphSize, Pdf) {
  if (!haveTool("pdftoppm")) GTEST_SKIP() << "pdftoppm (poppler-utils) not found";
  const Deck d = exportDeck("glyph_pdf", "pdf");
  if (!d.cjk) GTEST_SKIP() << "no CJK font (fonts-noto-cjk)";
  const std::string& dir = d.dir;
  if (readFile(dir + "/out/deck.pdf").empty()) GTEST_SKIP() << "built without cairo";
  ASSERT_EQ(std::system(("pdftoppm -r 72 -png " + dir + "/out/deck.pdf " + dir + "/page").c_str()), 0);
  std::vector<std::string> pages;
  for (const std::string& f : listDir(dir))
    if (f.rfind("page", 0) == 0) pages.push_back(f);
  ASSERT_EQ(pages.size(), 2u);
  expectTitleSlide(loadPng(dir + "/" + pages[0]), "PDF");
  expectCaption(loadPng(dir + "/" + pages[1]), "PDF page 2");
}

// The NCCL log figure's shapes: "H中" regular, then bold, black on white.
ui::NcclFigure hanziFigure() {
  ui::NcclFigure f;
  f.width = 160, f.height = 110;
  f.background = {1, 1, 1, 1};
  for (int bold = 0; bold < 2; ++bold) {
    ui::NcclShape t;
    t.kind = ui::NcclShape::Kind::text;
    t.text = "H中";
    t.x0 = 20, t.y0 = 45 + 50 * bold, t.size = 32, t.bold = bold == 1;
    t.fill = {0, 0, 0, 1};
    f.shapes.push_back(t);
  }
  return f;
}

void expectHanziFigure(const Png& p, const std::string& what) {
  ASSERT_TRUE(p.ok()) << what << ": no picture";
  const auto lines = glyphLines(p);
  ASSERT_EQ(lines.size(), 2u) << what << ": expected a regular and a bold line";
  expectRatio(ratioOn(lines[0], what + " regular"), what + " regular");
  expectRatio(ratioOn(lines[1], what + " bold"), what + " bold");
}

TEST(GlyphSize, NcclLogFigurePng) {
  if (expectedRatio() == 0) GTEST_SKIP() << "no CJK font (fonts-noto-cjk) or DejaVu";
  auto img = ui::figureToImage(hanziFigure(), 2);
  if (!img) GTEST_SKIP() << img.error().message;  // built without cairo
  expectHanziFigure(Png{img->width, img->height, img->rgb}, "NCCL log figure PNG");
}

TEST(GlyphSize, NcclLogFigureSvg) {
  if (!haveTool("rsvg-convert")) GTEST_SKIP() << "rsvg-convert (librsvg2-bin) not found";
  if (expectedRatio() == 0) GTEST_SKIP() << "no CJK font (fonts-noto-cjk) or DejaVu";
  const std::string dir = freshDir("glyph_nccl_svg");
  writeFile(dir + "/f.svg", ui::figureToSvg(hanziFigure()));
  ASSERT_EQ(std::system(("rsvg-convert -z 2 -b white -o " + dir + "/f.png " + dir + "/f.svg").c_str()), 0);
  expectHanziFigure(loadPng(dir + "/f.png"), "NCCL log figure SVG");
}

}  // namespace
}  // namespace collviz::test
