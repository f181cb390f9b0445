#include "app/panels/algo_panel.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "app/lang/lang.h"
#include "app/view/compare_model.h"
#include "app/view/heading.h"
#include "app/view/round_play.h"
#include "app/gl/wrapped_text.h"

namespace collviz::ui {

void AlgoPanel::Draw(AppState& s, const std::string& bar, const Fonts& fonts) {
  ImGui::TextDisabled("%s", tr("ALGORITHM   (L: next)"));
  const std::vector<std::string> choices = algoChoices(s);
  const bool known = std::find(choices.begin(), choices.end(), s.view.algo) != choices.end();
  const std::string current = known ? s.view.algo : choices.front();
  ImGui::PushItemWidth(-1);
  if (ImGui::BeginCombo("##algorithm", current.c_str())) {
    for (const std::string& c : choices) {
      if (ImGui::Selectable(c.c_str(), c == current)) {
        s.view.algo = c;
        s.view.round = 0;
        s.view.tween = 0;
        s.playing = false;
      }
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("native: the library's own call; the others run round by round on send/recv"));
  // A choice this op cannot run (a lecture's, a file's for another op) is
  // shown native, and said so: never a silent drop.
  if (!known && s.view.algo != "native") {
    const Heading h = s.program() == Program::single ? headingFor(Program::single, s.runSpec().op)
                                                     : headingFor(s.program(), Op::all_reduce);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    WrappedText(fonts.display(trf("{0} does not run {1}: shown native", {s.view.algo, h.number + " " + h.title})));
    ImGui::PopStyleColor();
  }
  if (s.program() == Program::single && compareChoices(s.runSpec().op, s.runSpec().ranks).size() >= 2 &&
      ImGui::Button(fonts.display(tr("Compare algorithms… (C)")).c_str()))
    s.show_compare = true;
  if (s.rounds <= 0) {
    ImGui::PopItemWidth();
    return;
  }
  if (!bar.empty()) WrappedText(fonts.display(bar));
  int round = s.view.round;
  if (ImGui::SliderInt("##round", &round, 0, s.rounds, tr("round %d"), ImGuiSliderFlags_AlwaysClamp))
    stepRound(s, round - s.view.round);
  ImGui::PopItemWidth();
  if (ImGui::Button("|<")) stepRound(s, -s.rounds);
  ImGui::SameLine();
  if (ImGui::Button("<")) stepRound(s, -1);
  ImGui::SameLine();
  if (ImGui::Button(s.playing ? tr("Pause (P)") : tr("Play (P)"))) togglePlay(s);
  ImGui::SameLine();
  if (ImGui::Button(">")) stepRound(s, +1);
  ImGui::SameLine();
  if (ImGui::Button(">|")) stepRound(s, s.rounds);
  ImGui::PushItemWidth(-1);
  ImGui::SliderFloat("##speed", &s.play_speed, 0.5f, 8.0f, tr("%.1f rounds/s"));
  ImGui::PopItemWidth();
}

}  // namespace collviz::ui
