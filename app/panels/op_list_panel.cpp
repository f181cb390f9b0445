#include "app/panels/op_list_panel.h"
#include "app/lang/lang.h"
#include "app/view/keys.h"

#include <cstdio>
#include <string>

namespace collviz::ui {

void OpListPanel::Draw(AppState& state, const Fonts& fonts) {
  ImGui::TextDisabled("%s", fonts.display(tr("OPERATIONS   ← →")).c_str());
  const float line = ImGui::GetTextLineHeightWithSpacing();
  for (int i = 0; i < kEntryCount; ++i) {
    ImGui::PushID(i);
    bool selected = state.entry == i;
    ImVec2 p = ImGui::GetCursorScreenPos();
    if (ImGui::Selectable("##entry", selected, 0, ImVec2(0, line * 1.9f))) {
      openEntry(state, i);
      state.view.stage = i == kDecompositionEntry ? 0 : 2;  // the decomposition opens at its input
    }
    const Heading h = i == kDecompositionEntry
                          ? listHeadingFor(Program::all_reduce_decomposed, Op::all_reduce)
                          : listHeadingFor(Program::single, static_cast<Op>(i));
    const std::string &number = h.number, &title = h.title, &phrase = h.phrase;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float pad = ImGui::GetStyle().FramePadding.x;
    float num_w = ImGui::CalcTextSize("00").x + pad * 1.5f;
    ImU32 muted = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    dl->AddText(fonts.bold, fonts.bold->FontSize, ImVec2(p.x + pad * 0.5f, p.y + 2), muted,
                number.c_str());
    dl->AddText(fonts.bold, fonts.bold->FontSize, ImVec2(p.x + num_w, p.y + 2), text, title.c_str());
    std::string ph = fonts.display(phrase);
    dl->AddText(fonts.regular, fonts.regular->FontSize * 0.9f,
                ImVec2(p.x + num_w, p.y + 4 + fonts.bold->FontSize), muted, ph.c_str());
    ImGui::PopID();
  }
}

}  // namespace collviz::ui
