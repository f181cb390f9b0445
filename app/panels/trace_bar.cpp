#include "app/panels/trace_bar.h"
#include "app/lang/lang.h"

#include <string>

#include "app/gl/style.h"

namespace collviz::ui {

bool TraceBar::Draw(AppState& s, const Fonts& fonts, bool busy) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", tr("trace"));
  ImGui::SameLine();
  if (ImGui::RadioButton(tr("All"), s.view.trace_rank < 0)) s.view.trace_rank = -1;
  for (int r = 0; r < s.spec.ranks; ++r) {
    ImGui::SameLine();
    std::string label = "R" + std::to_string(r);
    if (ImGui::RadioButton(label.c_str(), s.view.trace_rank == r)) s.view.trace_rank = r;
  }
  ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 4);
  ImGui::BeginDisabled(s.view.trace_rank < 0);
  std::string k = s.view.trace_rank < 0 ? "Rk" : "R" + std::to_string(s.view.trace_rank);
  std::string reach = trf("what reaches {0}", {k}), goes = trf("where {0}'s data goes", {k});
  if (ImGui::RadioButton(reach.c_str(), s.view.trace_mode == TraceMode::reaches))
    s.view.trace_mode = TraceMode::reaches;
  ImGui::SameLine();
  if (ImGui::RadioButton(goes.c_str(), s.view.trace_mode == TraceMode::goes))
    s.view.trace_mode = TraceMode::goes;
  ImGui::EndDisabled();

  bool rerun = false;
  ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 4);
  if (ImGui::Button(fonts.display(tr("↻ run again")).c_str())) rerun = true;
  ImGui::SameLine();
  screenshot_clicked = ImGui::Button(tr("Screenshot (F12)"));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Save the diagram as a PNG (what `collviz export` draws)"));
  if (!screenshot_note.empty()) {
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(screenshot_ok ? ImVec4(0.30f, 0.58f, 0.32f, 1) : ImVec4(0.85f, 0.15f, 0.2f, 1), "%s",
                       fonts.display(screenshot_note).c_str());
    if (!screenshot_path.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", screenshot_path.c_str());
  }
  if (busy) {
    ImGui::SameLine();
    Spinner("running");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr("running…"));
  }

  if (s.entry == kDecompositionEntry) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", tr("step"));
    ImGui::SameLine();
    ImGui::BeginDisabled(s.view.stage <= 0);
    if (ImGui::ArrowButton("##back", ImGuiDir_Left)) --s.view.stage;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(s.view.stage >= 2);
    if (ImGui::ArrowButton("##fwd", ImGuiDir_Right)) ++s.view.stage;
    ImGui::EndDisabled();
    for (int i = 0; i < 3; ++i) {
      ImGui::SameLine();
      if (i > 0) {
        ImGui::TextDisabled("%s", fonts.display("→").c_str());
        ImGui::SameLine();
      }
      if (i == s.view.stage) ImGui::PushFont(fonts.bold);
      if (i <= s.view.stage) ImGui::TextUnformatted(tr(kDecompositionSteps[i]));
      else ImGui::TextDisabled("%s", tr(kDecompositionSteps[i]));
      if (i == s.view.stage) ImGui::PopFont();
    }
  }
  return rerun;
}

}  // namespace collviz::ui
