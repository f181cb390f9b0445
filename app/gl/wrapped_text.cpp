#include "app/gl/wrapped_text.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "app/lang/line_break.h"

namespace collviz::ui {

void WrappedText(const std::string& utf8, float width) {
  WrapParams p;
  // As TextWrapped: up to the content region's right edge, at least one em.
  p.width = std::max(width > 0 ? width : ImGui::GetContentRegionAvail().x, ImGui::GetFontSize());
  p.measure = [](const std::string& t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; };
  // One item, lines at the font's line height, as TextWrapped draws them.
  const std::vector<std::string> lines = wrapText(utf8, p);
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
}

}  // namespace collviz::ui
