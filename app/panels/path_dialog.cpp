#include "app/panels/path_dialog.h"

#include <imgui.h>

#include "app/gl/wrapped_text.h"

namespace collviz::ui {

void PathDialog::Draw(const char* id, const std::string& title, const char* help, bool open_now,
                      const std::function<Status(const std::string&)>& open) {
  const std::string popup = title + "###" + id;
  if (open_now) {
    ImGui::OpenPopup(popup.c_str());
    error.clear();
  }
  // Height 0 every frame: the dialog grows to show why a path did not open.
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40, 0), ImGuiCond_Always);
  if (!ImGui::BeginPopupModal(popup.c_str(), nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  WrappedText(help);
  ImGui::SetNextItemWidth(-1);
  // Typing goes to the path, also after a path that did not open.
  if (ImGui::IsWindowAppearing() || refocus_) ImGui::SetKeyboardFocusHere(), refocus_ = false;
  const bool enter = ImGui::InputText((std::string("##") + id).c_str(), path_, sizeof path_, ImGuiInputTextFlags_EnterReturnsTrue);
  if (enter || ImGui::Button(tr("Open"))) {
    if (Status st = open(path_); st) ImGui::CloseCurrentPopup();
    else error = render(st), refocus_ = true;
  }
  ImGui::SameLine();
  if (ImGui::Button(tr("Cancel"))) ImGui::CloseCurrentPopup();
  if (!error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.15f, 0.2f, 1));
    WrappedText(error);
    ImGui::PopStyleColor();
  }
  ImGui::EndPopup();
}

}  // namespace collviz::ui
