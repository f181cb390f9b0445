// The File menu's Open… dialogs (ImGui 1.86 has no file dialog): a modal with
// what the file is, a path field, Open and Cancel. A path that does not open
// stays in the dialog with why; one that opens closes it.
#pragma once

#include <functional>
#include <string>

#include "app/lang/lang.h"

namespace collviz::ui {

struct PathDialog {
  std::string error;  // why the last path did not open
  // `id`: the popup's ImGui id; `title`, `help`: in the reader's language.
  void Draw(const char* id, const std::string& title, const char* help, bool open_now,
            const std::function<Status(const std::string&)>& open);

 private:
  char path_[512] = "";
  bool refocus_ = false;
};

}  // namespace collviz::ui
