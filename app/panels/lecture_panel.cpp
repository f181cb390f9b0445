#include "app/panels/lecture_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "app/gl/diagram_view.h"
#include "app/lang/lang.h"
#include "app/view/caption.h"
#include "engine/group/program_files.h"

namespace collviz::ui {

std::vector<std::string> shippedLectures() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("COLLVIZ_LECTURE_DIR")) dirs.push_back(env);
  dirs.push_back(shippedLectureDir());
  std::vector<std::string> out;
  for (const std::string& d : dirs) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (e.path().extension() == ".toml") out.push_back(e.path().string());
    if (!out.empty()) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

void LecturePanel::DrawMenuBar(AppState& s, bool lecture_open, MenuActions& out) {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu(tr("File"))) {
    if (ImGui::MenuItem(tr("Open lecture…"))) dialog_open = true;
    if (ImGui::MenuItem(tr("Close lecture"), nullptr, false, lecture_open)) out.close_lecture = true;
    ImGui::Separator();
    if (ImGui::MenuItem(tr("Open algorithm…"))) out.open_algorithm = true;
    if (ImGui::MenuItem(tr("Open NCCL log…"))) out.open_nccl_log = true;
    if (ImGui::MenuItem(tr("Open job traces…"))) out.open_job = true;
    if (ImGui::MenuItem(tr("Watch a program…"))) out.watch_program = true;
    if (ImGui::MenuItem(tr("Open capture…"))) out.open_capture = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("View"))) {
    if (ImGui::MenuItem(tr("Hide panels"), "H", s.panels_hidden)) s.panels_hidden = !s.panels_hidden;
    // The UI scale and the theme, as the sidebar's VIEW part has them (a
    // folded sidebar at 2x still has them here).
    if (ImGui::BeginMenu(tr("UI scale"))) {
      if (ImGui::MenuItem("1x", nullptr, s.ui_scale == 1.0f)) s.ui_scale = 1.0f;
      if (ImGui::MenuItem("1.5x", nullptr, s.ui_scale == 1.5f)) s.ui_scale = 1.5f;
      if (ImGui::MenuItem(tr("lecture hall 2x"), nullptr, s.ui_scale == 2.0f)) s.ui_scale = 2.0f;
      ImGui::EndMenu();
    }
    const bool dark = s.view.theme == ThemeKind::dark;
    if (ImGui::MenuItem(tr("Dark theme"), "T", dark)) s.view.theme = dark ? ThemeKind::light : ThemeKind::dark;
    ImGui::Separator();
    if (ImGui::MenuItem(tr("Screenshots: status block"), nullptr, s.shot_status)) s.shot_status = !s.shot_status;
    if (ImGui::MenuItem(tr("Screenshots: crop to the figure"), nullptr, s.shot_crop)) s.shot_crop = !s.shot_crop;
    if (ImGui::MenuItem(tr("Presenter view"), nullptr, presenter_shown, lecture_open))
      out.toggle_presenter = true;
    ImGui::EndMenu();
  }
  // The language menu is labelled in both, so either reader finds it.
  if (ImGui::BeginMenu("Language / 语言")) {
    if (ImGui::MenuItem("English", nullptr, language() == Lang::en)) setLanguage(Lang::en);
    if (ImGui::MenuItem("中文", nullptr, language() == Lang::zh)) setLanguage(Lang::zh);
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

void LecturePanel::DrawBar(lecture::Player& p, const Fonts& fonts) {
  ImGui::AlignTextToFramePadding();
  ImGui::PushFont(fonts.bold);
  const std::string& title = p.lecture().title.in(language());
  ImGui::TextUnformatted(title.empty() ? p.lecture().path.c_str() : title.c_str());
  ImGui::PopFont();
  ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 3);
  if (ImGui::ArrowButton("##lecture_prev", ImGuiDir_Left)) p.go(p.index() - 1);
  ImGui::SameLine();
  ImGui::TextUnformatted(trf("step {0}", {lecture::stepCounter(p.index(), p.count())}).c_str());
  ImGui::SameLine();
  if (ImGui::ArrowButton("##lecture_next", ImGuiDir_Right)) p.go(p.index() + 1);
  ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 3);
  if (p.jumping()) {
    ImGui::TextColored(ImVec4(0.85f, 0.45f, 0.1f, 1), "%s",
                       trf("go to step: {0}_  (Enter)", {p.jumpDigits()}).c_str());
  } else {
    ImGui::TextDisabled("%s", fonts.display(tr("→ PgDn Space next · ← PgUp back · Home End · G number Enter · "
                                               "H hide panels")).c_str());
  }
}

namespace {
constexpr float kCounterSize = 0.8f;  // of the caption's text size

float counterWidth(const std::string& counter, const Fonts& fonts, float scale) {
  return counter.empty() ? 0 : fonts.measure(counter, TextStyle::heading, kCounterSize * captionTextSize(scale));
}

CaptionParams captionParams(const std::string& caption, const std::string& counter, float width, const Fonts& fonts,
                            float scale) {
  CaptionParams p;
  p.text = caption;
  p.scale = std::max(fonts.scale, scale);
  const float counter_w = counterWidth(counter, fonts, p.scale);
  p.width = width - 36 * p.scale - (counter_w > 0 ? counter_w + 18 * p.scale : 0);
  p.x = 18 * p.scale;
  p.measure = [&fonts](const std::string& t, TextStyle s, float size) { return fonts.measure(t, s, size); };
  return p;
}
}  // namespace

float LecturePanel::CaptionHeight(const std::string& caption, const std::string& counter, float width,
                                  const Fonts& fonts) const {
  const float h = captionHeight(captionParams(caption, counter, width, fonts, caption_scale));
  return std::max(h, ImGui::GetTextLineHeightWithSpacing() * 1.5f);
}

void LecturePanel::DrawCaption(const std::string& caption, const std::string& counter, const Fonts& fonts,
                               const Theme& theme) {
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = CaptionHeight(caption, counter, w, fonts);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const CaptionParams p = captionParams(caption, counter, w, fonts, caption_scale);
  std::vector<TextItem> texts = captionTexts(p, theme);
  if (!counter.empty()) {  // at the right, on the caption's last line
    const float size = kCounterSize * captionTextSize(p.scale);
    const float y = texts.empty() ? (h - size) / 2 : texts.back().anchor.y + (texts.back().size - size) / 2;
    texts.push_back({{w - 18 * p.scale, y}, 1.0f, 0, counter, theme.muted_text, size, TextStyle::heading});
  }
  drawSceneTexts(ImGui::GetWindowDrawList(), o, texts, fonts);
  ImGui::Dummy(ImVec2(w, h));
}

void LecturePanel::DrawOpenDialog(MenuActions& out) {
  if (dialog_open) {
    ImGui::OpenPopup("###open_lecture");
    dialog_open = false;
  }
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 36, 0), ImGuiCond_Appearing);
  const std::string title = std::string(tr("Open lecture")) + "###open_lecture";
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  ImGui::TextUnformatted(tr("A lecture script (TOML); or drop one on the window."));
  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();  // typing goes to the path, not to the app's keys
  const bool enter = ImGui::InputText("##path", path_, sizeof path_, ImGuiInputTextFlags_EnterReturnsTrue);
  if (enter || ImGui::Button(tr("Open"))) {
    out.open_path = path_;
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button(tr("Cancel"))) ImGui::CloseCurrentPopup();
  const std::vector<std::string> shipped = shippedLectures();
  if (!shipped.empty()) {
    ImGui::Separator();
    ImGui::TextDisabled("%s", tr("shipped with collviz:"));
    for (const std::string& f : shipped) {
      if (ImGui::Selectable(std::filesystem::path(f).filename().string().c_str())) {
        out.open_path = f;
        ImGui::CloseCurrentPopup();
      }
    }
  }
  ImGui::EndPopup();
}

}  // namespace collviz::ui
