#include "app/panels/fault_menu.h"

#include "app/lang/lang.h"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace collviz::ui {

namespace {

// "rank:2,swap" -> rank 2, mode "swap"; "delay_ms:1500" -> mode "delay_ms";
// "round_swap:3" -> mode "round_swap", round 3.
void split(const std::string& f, int* rank, std::string* mode, int* delay, int* round) {
  std::string m = f;
  *rank = -1;
  if (m.rfind("rank:", 0) == 0 && m.find(',') != std::string::npos) {
    *rank = std::atoi(m.c_str() + 5);
    m = m.substr(m.find(',') + 1);
  }
  if (m.rfind("delay_ms:", 0) == 0) {
    *delay = std::atoi(m.c_str() + 9);
    m = "delay_ms";
  }
  if (m.rfind("round_", 0) == 0 && m.find(':') != std::string::npos) {
    *round = std::atoi(m.c_str() + m.find(':') + 1);
    m = m.substr(0, m.find(':'));
  }
  *mode = m;
}

}  // namespace

void FaultMenu::Draw(AppState& s) {
  int rank = -1;
  std::string mode;
  split(s.fault, &rank, &mode, &delay_ms, &round);
  const bool rounds = s.view.algo != "native" && s.rounds > 0;
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("BREAK IT   (the next runs, on purpose)"));
  const char* current = tr(kFaultChoices[0].what);
  for (const FaultChoice& c : kFaultChoices)
    if (mode == c.mode) current = tr(c.what);
  bool changed = false;
  ImGui::PushItemWidth(-ImGui::CalcTextSize(tr("elements")).x - ImGui::GetStyle().ItemSpacing.x * 2);
  if (ImGui::BeginCombo(tr("fault"), current)) {
    for (const FaultChoice& c : kFaultChoices)
      if ((!c.in_round || rounds) && ImGui::Selectable(tr(c.what), mode == c.mode))
        mode = c.mode, changed = true;
    ImGui::EndCombo();
  }
  ImGui::BeginDisabled(mode.empty());
  const std::string who = rank < 0 ? std::string(tr("every rank")) : "R" + std::to_string(rank);
  if (ImGui::BeginCombo(tr("on"), who.c_str())) {
    if (ImGui::Selectable(tr("every rank"), rank < 0)) rank = -1, changed = true;
    for (int r = 0; r < s.spec.ranks; ++r)
      if (ImGui::Selectable(("R" + std::to_string(r)).c_str(), rank == r)) rank = r, changed = true;
    ImGui::EndCombo();
  }
  if (mode == "delay_ms")
    changed |= ImGui::SliderInt(tr("delay ms"), &delay_ms, 10, 20000, "%d ms",
                                ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);
  const bool in_round = mode.rfind("round_", 0) == 0;
  if (in_round && rounds)
    changed |= ImGui::SliderInt(tr("round K"), &round, 1, s.rounds, "%d",
                                ImGuiSliderFlags_AlwaysClamp);
  ImGui::EndDisabled();
  ImGui::PopItemWidth();
  if (rank >= s.spec.ranks) rank = -1, changed = true;
  if (in_round && !rounds) mode.clear(), changed = true;  // back on the op's own call
  if (in_round && rounds && round > s.rounds) round = s.rounds, changed = true;
  if (!changed) return;
  std::string f = mode == "delay_ms" ? "delay_ms:" + std::to_string(delay_ms) : mode;
  if (mode.rfind("round_", 0) == 0) f += ":" + std::to_string(std::max(1, round));
  if (!f.empty() && rank >= 0) f = "rank:" + std::to_string(rank) + "," + f;
  s.fault = f;
}

}  // namespace collviz::ui
