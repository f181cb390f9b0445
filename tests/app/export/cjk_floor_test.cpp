// Chinese never under the text floor (issue 37): the thin strokes of 一
// vanish when a CJK glyph's em is under 11 px. At UI scale 1 in the window
// (its ImGui fonts, the smallest drawn at 0.9 of the base size) and in a
// 1200x600 export of the article's figures in 中文 (each CJK <tspan>'s
// font-size in the SVG is that run's em in pixels), no CJK em is under 11
// px. The smallest sizes are printed.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdio>
#include <string>

#include "app/files/font_metrics.h"
#include "app/gl/fonts.h"
#include "tests/app/export/export_support.h"

namespace collviz::test {
namespace {

constexpr float kFloor = 11.0f;

TEST(CjkFloor, WindowFontsAtOneX) {
  int face = 0;
  const std::string cjk = ui::findCjkFont(false, &face);
  if (cjk.empty() || ui::findFontDir().empty()) GTEST_SKIP() << "no CJK font (fonts-noto-cjk) or DejaVu";
  ImGui::CreateContext();
  ui::Fonts fonts;
  fonts.load(1.0f, ui::uiChineseText());
  const ui::GlyphHeights h = ui::glyphHeights(cjk, face, U'中');
  ASSERT_TRUE(h.why.empty()) << h.why;
  float least = 1e9f;
  int merged = 0;
  for (const ImFontConfig& c : ImGui::GetIO().Fonts->ConfigData)
    if (c.MergeMode) ++merged, least = std::min(least, c.SizePixels * h.units_per_em / h.line);
  ImGui::DestroyContext();
  ASSERT_EQ(merged, 3) << "the CJK glyphs merged into regular, bold and heading";
  // The op list draws its names at 0.9 of the regular size.
  std::printf("figure: window at 1x: the smallest CJK em %.1f px (at 0.9 of it: %.1f px)\n", least, 0.9f * least);
  EXPECT_GE(0.9f * least, kFloor) << "CJK glyphs in the window at 1x";
}

TEST(CjkFloor, Export1200x600) {
  const std::string dir = freshDir("cjk_floor");
  const RunResult r = collviz("export --all --lang zh --format svg --size 1200x600 --status --backend gloo -o " + dir);
  ASSERT_EQ(r.rc, 0) << r.out;
  float least = 1e9f;
  std::string where;
  int runs = 0;
  for (const std::string& f : listDir(dir)) {
    if (f.size() < 4 || f.substr(f.size() - 4) != ".svg") continue;
    const std::string svg = readFile(dir + "/" + f);
    for (std::size_t at = svg.find("<tspan font-size=\""); at != std::string::npos;
         at = svg.find("<tspan font-size=\"", at + 1)) {
      const float px = std::stof(svg.substr(at + 18, 16));
      ++runs;
      if (px < least) {
        least = px;
        const std::size_t open = svg.find('>', at), close = svg.find("</tspan>", at);
        where = f + ": '" + svg.substr(open + 1, close - open - 1) + "'";
      }
    }
  }
  if (runs > 0 && r.out.find("Chinese needs a CJK font") != std::string::npos) GTEST_SKIP() << "no CJK font";
  ASSERT_GT(runs, 50) << "no Chinese found in the figures";
  std::printf("figure: 1200x600 export in 中文: %d CJK runs, the smallest em %.1f px (%s)\n", runs, least, where.c_str());
  EXPECT_GE(least, kFloor) << where;
}

}  // namespace
}  // namespace collviz::test
