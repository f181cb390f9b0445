// File → Open NCCL log…: a path field (ImGui 1.86 has no file dialog) for
// NCCL's own NCCL_DEBUG=INFO log (a file, or a folder of per-rank files),
// then a window with what it says: the sentence, a channel selector ("all"
// overlays every ring), the figure of app/view/nccl_log_figure drawn with
// ImGui's draw list (the same shapes as the SVG export), and what the log
// does not say. A path that does not read stays in the dialog with why.
#pragma once

#include <memory>
#include <string>

#include <imgui.h>

#include "app/panels/path_dialog.h"
#include "app/view/nccl_log_figure.h"

namespace collviz::ui {

struct NcclLogWindow {
  bool shown = false;
  void Draw(ThemeKind theme, bool open_now);
  Status open(const std::string& path);  // read it; shown on success
  // The NCCL backend's own run: the communicator read from its ranks' log
  // (Snapshot::nccl_log), shown in the same window.
  void show(std::shared_ptr<const nccl_log::Log> log);

 private:
  void drawWindow(ThemeKind theme);
  PathDialog dialog_;
  std::shared_ptr<const nccl_log::Log> log_;
  int channel_ = -1;
  std::size_t comm_ = 0;
};

}  // namespace collviz::ui
