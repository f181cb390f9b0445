// File → Open algorithm…: a path field (ImGui 1.86 has no file dialog) for an
// MSCCL algorithm file. A file that reads and checks becomes an algorithm of
// the window (the selector lists it) and is shown at once: its op, its
// ranks, its rounds. One that does not stays in the dialog with its
// file:line and reason.
#pragma once

#include <string>

#include "app/panels/path_dialog.h"
#include "app/view/app_state.h"
#include "engine/text.h"

namespace collviz::ui {

// Reads `path` and points `s` at it (op, ranks, elems, the algorithm view).
Status openAlgoFile(AppState& s, const std::string& path);

struct AlgoFileDialog {
  void Draw(AppState& s, bool open_now);

 private:
  PathDialog dialog_;
};

}  // namespace collviz::ui
