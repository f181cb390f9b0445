// The window's Screenshot button and F12: the current view saved as a PNG
// through the export's offscreen path (DiagramImage), in
// $COLLVIZ_SCREENSHOT_DIR or the current directory, never overwriting.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/ui/export_set.h"
#include "app/ui/app_ui.h"
#include "app/ui/style.h"

namespace collviz::ui {

namespace {
std::string screenshotPath(const ExportView& v) {
  namespace fs = std::filesystem;
  const char* env = std::getenv("COLLVIZ_SCREENSHOT_DIR");
  fs::path dir = env && *env ? fs::path(env) : fs::current_path();
  std::string stem = "collviz_" + fs::path(exportFileName(v.program, v.spec.op, v.view, "png")).stem().string();
  fs::path p = dir / (stem + ".png");
  std::error_code ec;
  for (int n = 2; fs::exists(p, ec) && n < 100000; ++n) p = dir / (stem + "_" + std::to_string(n) + ".png");
  return p.string();
}
}  // namespace

void AppUi::drawScreenshotButton() {
  ImGui::Spacing();
  if (ImGui::Button(fonts_.display("Screenshot (F12)").c_str())) requestScreenshot();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Save the diagram as a PNG (what `collviz export` draws)");
  if (!shot_message_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, shot_ok_ ? ImVec4(0.30f, 0.58f, 0.32f, 1) : ImVec4(0.85f, 0.15f, 0.2f, 1));
    ImGui::TextWrapped("%s", fonts_.display(shot_message_).c_str());
    ImGui::PopStyleColor();
  }
}

std::string AppUi::afterRender() {
  if (!screenshot_requested_) return "";
  screenshot_requested_ = false;
  shot_ok_ = false;
  if (shown_view_.width < 1 || shown_view_.height < 1) {
    shot_message_ = "screenshot: nothing on screen to save";
    return "";
  }
  if (Status s = shot_.init(true); !s) {
    shot_message_ = "screenshot failed: " + s.message();
    return "";
  }
  Result<Image> img = shot_.renderPng(shown_view_);
  if (!img) {
    shot_message_ = "screenshot failed: " + img.error().message;
    return "";
  }
  const std::string path = screenshotPath(shown_view_);
  std::vector<uint8_t> png = encodePng(*img);
  if (Status s = writeFileAtomic(path, png.data(), png.size()); !s) {
    shot_message_ = "screenshot failed: " + s.message();
    return "";
  }
  shot_ok_ = true;
  shot_message_ = "saved " + path;
  std::fprintf(stderr, "collviz: screenshot saved to %s\n", path.c_str());
  return path;
}

}  // namespace collviz::ui
