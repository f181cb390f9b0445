// The sidebar's run and view controls keep within the sidebar (issue 57:
// "run other ops in the background (al" was cut at the edge; in 中文 数据类型
// and 界面缩放 ran into the scrollbar). ImGui without a window or GL, the
// real fonts in an atlas built on the CPU, one frame: the furthest any item
// reached (its label included) is inside the panel, en and 中文, 1x and 2x.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>  // the window's furthest item (DC.CursorMaxPos)

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "app/gl/fonts.h"
#include "app/gl/style.h"
#include "app/lang/lang.h"
#include "app/panels/controls_panel.h"

namespace collviz::test {
namespace {

// A runner that runs nothing: the switch only reads whether prefetch is on.
struct NoRunner : ui::Runner {
  uint64_t run(const ui::RunKey&) override { return 1; }
  std::shared_ptr<const Snapshot> latest() const override { return nullptr; }
  bool busy() const override { return false; }
};

// How far past the panel's right edge the controls reached (<= 0: inside).
float overreach(Lang lang, float scale, bool lecture) {
  setLanguage(lang);
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ui::Fonts fonts;
  fonts.load(scale, ui::uiChineseText());
  ui::applyStyle(ui::makeTheme(ui::ThemeKind::light), scale);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1920, 1080);
  io.DeltaTime = 1.0f / 60;
  ImGui::NewFrame();
  // The sidebar as AppUi makes it: a child 310 px a scale wide with no
  // padding of its own (a borderless child's), less its scrollbar.
  const float width = 310 * scale - ImGui::GetStyle().ScrollbarSize;
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(width, 1080));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::Begin("sidebar", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
  ImGui::PopStyleVar();
  ui::AppState state;
  ui::ControlsPanel panel;
  panel.Draw(state, nullptr);
  NoRunner runner;
  ui::Runs runs(runner);
  panel.DrawPrefetch(runs, {}, lecture);
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float reached = ImGui::GetCurrentWindow()->DC.CursorMaxPos.x;
  ImGui::End();
  ImGui::EndFrame();
  ImGui::DestroyContext();
  setLanguage(Lang::en);
  std::printf("figure: %s at %.0fx, lecture %d: the controls reach %.1f of %.1f px\n", std::string(langName(lang)).c_str(),
              scale, int(lecture), reached, right);
  return reached - right;
}

TEST(Sidebar, RunAndViewControlsKeepWithinThePanel) {
  int face = 0;
  if (ui::findCjkFont(false, &face).empty() || ui::findFontDir().empty())
    GTEST_SKIP() << "no CJK font (fonts-noto-cjk) or DejaVu (fonts-dejavu-core)";
  for (const float scale : {1.0f, 2.0f})
    for (const Lang lang : {Lang::en, Lang::zh})
      for (const bool lecture : {false, true})
        EXPECT_LE(overreach(lang, scale, lecture), 1.0f)
            << langName(lang) << " at " << scale << "x" << (lecture ? ", in a lecture" : "");
}

// A slider's text ("round 3", "1.00x") is centred where its grab often
// sits (issue 57: the grab covered it): over the grab, on the frame, the
// text keeps a contrast of 4.5:1 (WCAG's for text) in both themes.
TEST(Sidebar, ASlidersTextReadsOverItsGrab) {
  auto linear = [](float c) { return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f); };
  auto luminance = [&](ImVec4 c) { return 0.2126f * linear(c.x) + 0.7152f * linear(c.y) + 0.0722f * linear(c.z); };
  auto over = [](ImVec4 top, ImVec4 under) {
    return ImVec4(top.x * top.w + under.x * (1 - top.w), top.y * top.w + under.y * (1 - top.w), top.z * top.w + under.z * (1 - top.w), 1);
  };
  for (const ui::ThemeKind kind : {ui::ThemeKind::light, ui::ThemeKind::dark}) {
    ImGui::CreateContext();
    ui::applyStyle(ui::makeTheme(kind), 1.0f);
    const ImVec4* c = ImGui::GetStyle().Colors;
    for (const ImGuiCol grab : {ImGuiCol_SliderGrab, ImGuiCol_SliderGrabActive}) {
      const float a = luminance(c[ImGuiCol_Text]), b = luminance(over(c[grab], over(c[ImGuiCol_FrameBg], c[ImGuiCol_WindowBg])));
      const float contrast = (std::max(a, b) + 0.05f) / (std::min(a, b) + 0.05f);
      EXPECT_GE(contrast, 4.5f) << (kind == ui::ThemeKind::dark ? "dark" : "light") << (grab == ImGuiCol_SliderGrab ? "" : ", active");
    }
    ImGui::DestroyContext();
  }
}

}  // namespace
}  // namespace collviz::test
