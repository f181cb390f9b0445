#include "app/panels/trace_bar.h"
#include "app/lang/lang.h"

#include <string>

#include "app/gl/style.h"
#include "app/gl/wrapped_text.h"

namespace collviz::ui {

bool TraceBar::Draw(AppState& s, const Fonts& fonts, bool busy) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", tr("trace"));
  ImGui::SameLine();
  if (ImGui::RadioButton(tr("All"), s.view.trace_rank < 0)) s.view.trace_rank = -1;
  // Every item keeps to the window: at 2x in a narrow window the bar wraps.
  for (int r = 0; r < s.spec.ranks; ++r) {
    std::string label = "R" + std::to_string(r);
    SameLineIfFits(RadioWidth(label.c_str()));
    if (ImGui::RadioButton(label.c_str(), s.view.trace_rank == r)) s.view.trace_rank = r;
  }
  std::string k = s.view.trace_rank < 0 ? "Rk" : "R" + std::to_string(s.view.trace_rank);
  std::string reach = trf("what reaches {0}", {k}), goes = trf("where {0}'s data goes", {k});
  SameLineIfFits(RadioWidth(reach.c_str()), ImGui::GetStyle().ItemSpacing.x * 4);
  ImGui::BeginDisabled(s.view.trace_rank < 0);
  if (ImGui::RadioButton(reach.c_str(), s.view.trace_mode == TraceMode::reaches))
    s.view.trace_mode = TraceMode::reaches;
  SameLineIfFits(RadioWidth(goes.c_str()));
  if (ImGui::RadioButton(goes.c_str(), s.view.trace_mode == TraceMode::goes))
    s.view.trace_mode = TraceMode::goes;
  ImGui::EndDisabled();

  bool rerun = false;
  const std::string again = fonts.display(tr("↻ run again"));
  SameLineIfFits(ButtonWidth(again.c_str()), ImGui::GetStyle().ItemSpacing.x * 4);
  if (ImGui::Button(again.c_str())) rerun = true;
  SameLineIfFits(ButtonWidth(tr("Screenshot (F12)")));
  screenshot_clicked = ImGui::Button(tr("Screenshot (F12)"));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Save the diagram as a PNG (what `collviz export` draws)"));
  if (!screenshot_note.empty()) {
    const std::string note = fonts.display(screenshot_note);
    SameLineIfFits(ImGui::CalcTextSize(note.c_str()).x);
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(screenshot_ok ? ImVec4(0.30f, 0.58f, 0.32f, 1) : ImVec4(0.85f, 0.15f, 0.2f, 1), "%s",
                       note.c_str());
    if (!screenshot_path.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", screenshot_path.c_str());
  }
  if (busy) {
    SameLineIfFits(ImGui::GetFrameHeight() + ImGui::CalcTextSize(tr("running…")).x + ImGui::GetStyle().ItemSpacing.x);
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
