#include "app/panels/algo_file_dialog.h"

#include <imgui.h>

#include <memory>

#include "app/lang/lang.h"
#include "app/gl/wrapped_text.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/group/memory_budget.h"

namespace collviz::ui {

Status openAlgoFile(AppState& s, const std::string& path) {
  auto file = algo::readMscclFile(path, 0, s.runSpec().root, mscclChunkBudget());
  if (!file) return file.error();
  s.entry = int(file->op);
  s.spec.ranks = file->ngpus;
  s.spec.elems = (s.spec.elems + file->parts - 1) / file->parts * file->parts;
  s.view.algo = algo::mscclAlgoName(*file);
  s.view.round = 0;
  algo::registerMscclFile(std::make_shared<algo::MscclAlgo>(std::move(*file)));
  return {};
}

void AlgoFileDialog::Draw(AppState& s, bool open_now) {
  if (open_now) {
    ImGui::OpenPopup("###open_algorithm");
    error.clear();
  }
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40, 0), ImGuiCond_Appearing);
  const std::string title = std::string(tr("Open algorithm")) + "###open_algorithm";
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  WrappedText(tr("An MSCCL algorithm file (XML from msccl-tools): it is checked, "
                              "run round by round and listed with the algorithms."));
  ImGui::SetNextItemWidth(-1);
  const bool enter = ImGui::InputText("##algo_path", path_, sizeof path_, ImGuiInputTextFlags_EnterReturnsTrue);
  if (enter || ImGui::Button(tr("Open"))) {
    if (Status st = openAlgoFile(s, path_); st) ImGui::CloseCurrentPopup();
    else error = render(st);
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
