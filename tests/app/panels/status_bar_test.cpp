// The window's status bar keeps to the window: its long lines (an engine
// error, the backend's notes, a hosts error, a font notice with a long path)
// wrap within the width they are given, in English and in 中文 (Chinese
// breaks between characters, having no spaces), at UI scale 1 and 2.
// ImGui without a window or GL: the real fonts (DejaVu, Noto CJK) in an
// atlas built on the CPU, one frame, and the draw list read back. Every
// glyph of every line is drawn (none cut at the edge), none lies past the
// right edge, and the bar's height (what the diagram above leaves room for)
// holds all its lines.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>  // ImTextCharFromUtf8

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/gl/fonts.h"
#include "app/gl/style.h"
#include "app/lang/lang.h"
#include "app/panels/status_bar.h"

namespace collviz::test {
namespace {

struct Lines {
  std::string error, notice, hosts_error, font_notice;
};

// As `collviz --hosts nosuchhost:2` shows them, with a hosts error in
// Chinese without a space and a path that has no break in it.
const std::string kPath = "/opt/collviz/fonts/" + std::string(70, 'x') + "/DejaVuSans.ttf";
const Lines kEnglish{
    "4 ranks do not fit in the hosts' 2 slots (nosuchhost:2); allowed: at most 2 ranks, or more slots",
    "each op with MPI's own call (MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Reduce, MPI_Allgather, "
    "MPI_Reduce_scatter_block, MPI_Allreduce, MPI_Alltoall); mpirun started with --oversubscribe "
    "--bind-to none (more ranks than cores)",
    "hosts: 'a:2,b' has a host without its slots; allowed: name:slots, separated by commas, such as a:2,b:2",
    "font " + kPath + " is not a TrueType file; using the built-in font",
};
const Lines kChinese{
    "4 个 rank 放不进这些主机的 2 个槽（nosuchhost:2）；允许的值：最多 2 个 rank，或增加槽数",
    "每个操作都用 MPI 自己的调用（MPI_Bcast、MPI_Scatter、MPI_Gather、MPI_Reduce、MPI_Allgather、"
    "MPI_Reduce_scatter_block、MPI_Allreduce、MPI_Alltoall）；mpirun 以 --oversubscribe --bind-to none "
    "启动（rank 数多于核数时）",
    "主机栏里的每一项都要写成主机名加冒号加槽数，多个主机之间用逗号隔开，不能有空格也不能留下空项，"
    "例如甲机器冒号二逗号乙机器冒号二",
    "字体 " + kPath + " 不是 TrueType 文件；改用内置字体",
};

// The glyphs ImGui draws for `utf8` in `font` (spaces and line breaks draw
// none; a missing glyph draws the fallback).
int visibleGlyphs(const ImFont* font, const std::string& utf8) {
  int n = 0;
  for (const char* p = utf8.c_str(); *p;) {
    unsigned int c = 0;
    p += ImTextCharFromUtf8(&c, p, nullptr);
    if (c < 32) continue;
    const ImFontGlyph* g = font->FindGlyph(ImWchar(c));
    if (g && g->Visible) ++n;
  }
  return n;
}

// What went wrong drawing the status bar with `lines` in a panel `width`
// wide at `scale`; empty when nothing did.
std::string drawStatus(const Lines& lines, Lang lang, float scale, float width) {
  setLanguage(lang);
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ui::Fonts fonts;
  fonts.load(scale, ui::uiChineseText() + kChinese.error + kChinese.notice + kChinese.hosts_error +
                        kChinese.font_notice);
  ui::applyStyle(ui::makeTheme(ui::ThemeKind::light), scale);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  io.DeltaTime = 1.0f / 60;
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(width, 1080));
  ImGui::Begin("status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoSavedSettings);
  auto newest = std::make_shared<Snapshot>();
  newest->error = lines.error;
  newest->notice = lines.notice;
  ui::StatusInfo info;
  info.newest = newest;
  info.hosts_error = lines.hosts_error;
  info.font_notice = lines.font_notice;
  const float top = ImGui::GetCursorScreenPos().y;
  const float left = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMin().x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  ui::StatusBar bar;
  bar.Draw(info, fonts);
  const ImDrawList* dl = ImGui::GetWindowDrawList();
  // What the bar draws: "not yet run" (no result shown), then its notes.
  const ImFont* font = ImGui::GetFont();
  int want = visibleGlyphs(font, fonts.display(tr("not yet run")));
  for (const std::string& t : {fonts.display(tr("engine error: ") + lines.error), fonts.display(lines.notice),
                               lines.font_notice, fonts.display(lines.hosts_error)})
    want += visibleGlyphs(font, t);
  const int drawn = dl->VtxBuffer.Size / 4;
  float min_x = 1e9f, max_x = -1e9f, max_y = -1e9f;
  for (const ImDrawVert& v : dl->VtxBuffer) {
    min_x = std::min(min_x, v.pos.x);
    max_x = std::max(max_x, v.pos.x);
    max_y = std::max(max_y, v.pos.y);
  }
  const float height = bar.height, line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::End();
  ImGui::EndFrame();
  ImGui::DestroyContext();
  setLanguage(Lang::en);
  std::printf("figure: %s at %.0fx in %.0f px: %d of %d glyphs drawn, x %.1f..%.1f in %.1f..%.1f, %.1f lines\n",
              std::string(langName(lang)).c_str(), scale, width, drawn, want, min_x, max_x, left, right,
              height / line);
  std::string why;
  if (drawn != want) why += std::to_string(want - drawn) + " glyphs cut off; ";
  // A glyph's ink may reach a pixel past its advance.
  if (max_x > right + 1 || min_x < left - 1) why += "text past the panel's edge; ";
  if (max_y > top + height + 1) why += "the bar's height leaves its last line out; ";
  return why;
}

TEST(StatusBar, LongLinesWrapWithinThePanel) {
  int face = 0;
  if (ui::findCjkFont(false, &face).empty() || ui::findFontDir().empty())
    GTEST_SKIP() << "no CJK font (fonts-noto-cjk) or DejaVu (fonts-dejavu-core)";
  for (const float scale : {1.0f, 2.0f})
    for (const float width : {1580.0f, 1250.0f, 600.0f}) {
      EXPECT_EQ(drawStatus(kEnglish, Lang::en, scale, width), "") << "English at " << scale << "x, " << width << " px";
      EXPECT_EQ(drawStatus(kChinese, Lang::zh, scale, width), "") << "中文 at " << scale << "x, " << width << " px";
    }
}

}  // namespace
}  // namespace collviz::test
