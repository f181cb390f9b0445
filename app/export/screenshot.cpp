// The window's Screenshot button (in the trace bar) and F12: the current view saved as a PNG
// through the export's offscreen path (DiagramImage), in the directory
// chooseScreenshotDir picks (app/files/screenshot_dir.h: $COLLVIZ_SCREENSHOT_DIR,
// the current directory, the XDG pictures folder), never overwriting.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/files/export_set.h"
#include "app/files/screenshot_dir.h"
#include "app/lang/lang.h"
#include "app/panels/app_ui.h"
#include "engine/group/program_files.h"

namespace collviz::ui {

namespace {
std::string screenshotPath(const ExportView& v) {
  namespace fs = std::filesystem;
  const ScreenshotDir where = chooseScreenshotDir(currentScreenshotPlaces(insideProgramFiles));
  const fs::path dir = where.path;
  std::error_code made;
  if (where.create) fs::create_directories(dir, made);  // a failure shows when the file is written
  std::string stem = "collviz_" + fs::path(exportFileName(v.program, v.spec.op, v.view, "png")).stem().string();
  fs::path p = dir / (stem + ".png");
  std::error_code ec;
  for (int n = 2; fs::exists(p, ec) && n < 100000; ++n) p = dir / (stem + "_" + std::to_string(n) + ".png");
  return p.string();
}
}  // namespace

std::string AppUi::afterRender() {
  if (!screenshot_requested_) return "";
  screenshot_requested_ = false;
  shot_ok_ = false;
  if (shown_view_.width < 1 || shown_view_.height < 1) {
    shot_message_ = render(say("screenshot: nothing on screen to save"));
    return "";
  }
  if (Status s = shot_.init(true); !s) {
    shot_message_ = render(say("screenshot failed: {0}", s.text()));
    return "";
  }
  Result<Image> img = shot_.renderPng(shown_view_);
  if (!img) {
    shot_message_ = render(say("screenshot failed: {0}", img.error().text));
    return "";
  }
  const std::string path = screenshotPath(shown_view_);
  std::vector<uint8_t> png = encodePng(*img);
  if (Status s = writeFileAtomic(path, png.data(), png.size(), Replace::no); !s) {
    shot_message_ = render(say("screenshot failed: {0}", s.text()));
    return "";
  }
  shot_ok_ = true;
  shot_path_ = path;
  shot_message_ = render(say("saved {0}", std::filesystem::path(path).filename().string()));  // full path on hover
  std::fprintf(stderr, "collviz: %s\n", render(say("screenshot saved to {0}", path)).c_str());
  return path;
}

}  // namespace collviz::ui
