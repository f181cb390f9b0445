#include "app/gl/wrapped_text.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "app/lang/line_break.h"

namespace collviz::ui {

void WrappedText(const std::string& utf8, float width, bool cut_wide) {
  WrapParams p;
  // As TextWrapped: up to the content region's right edge, at least one em.
  p.width = std::max(width > 0 ? width : ImGui::GetContentRegionAvail().x, ImGui::GetFontSize());
  p.measure = [](const std::string& t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; };
  p.cut_wide_pieces = cut_wide;
  // One item, lines at the font's line height, as TextWrapped draws them.
  const std::vector<std::string> lines = wrapText(utf8, p);
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
}

bool SameLineIfFits(float width, float spacing) {
  const float gap = spacing >= 0 ? spacing : ImGui::GetStyle().ItemSpacing.x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + gap + width > right) return false;
  ImGui::SameLine(0, spacing);
  return true;
}

float RadioWidth(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

float ButtonWidth(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
}

}  // namespace collviz::ui
