#include "app/gl/style.h"

#include <cmath>

namespace collviz::ui {

ImVec4 toImVec4(Rgba c) { return ImVec4(c.r, c.g, c.b, c.a); }

void applyStyle(const Theme& t, float scale) {
  ImGuiStyle style;
  if (t.kind == ThemeKind::light) ImGui::StyleColorsLight(&style);
  else ImGui::StyleColorsDark(&style);
  style.WindowRounding = 0;
  style.ChildRounding = 6;
  style.FrameRounding = 5;
  style.GrabRounding = 5;
  style.PopupRounding = 6;
  style.FramePadding = ImVec2(8, 5);
  style.ItemSpacing = ImVec2(8, 7);
  style.WindowPadding = ImVec2(12, 12);
  style.WindowBorderSize = 0;
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = toImVec4(t.background);
  c[ImGuiCol_ChildBg] = toImVec4(t.background);
  c[ImGuiCol_Text] = toImVec4(t.text);
  c[ImGuiCol_TextDisabled] = toImVec4(t.muted_text);
  Rgba accent = letterColor(0);
  c[ImGuiCol_CheckMark] = toImVec4(accent);
  // A slider's text ("round 3") is centred where its grab often sits: a
  // light grab, so the text reads over it (a solid accent hid it).
  c[ImGuiCol_SliderGrab] = toImVec4(withAlpha(accent, 0.38f));
  c[ImGuiCol_SliderGrabActive] = toImVec4(withAlpha(accent, 0.55f));
  c[ImGuiCol_Button] = toImVec4(withAlpha(accent, 0.14f));
  c[ImGuiCol_ButtonHovered] = toImVec4(withAlpha(accent, 0.30f));
  c[ImGuiCol_ButtonActive] = toImVec4(withAlpha(accent, 0.45f));
  c[ImGuiCol_Header] = toImVec4(withAlpha(accent, 0.18f));
  c[ImGuiCol_HeaderHovered] = toImVec4(withAlpha(accent, 0.28f));
  c[ImGuiCol_HeaderActive] = toImVec4(withAlpha(accent, 0.40f));
  c[ImGuiCol_FrameBg] = toImVec4(t.row_box);
  c[ImGuiCol_FrameBgHovered] = toImVec4(mix(t.row_box, accent, 0.12f));
  c[ImGuiCol_FrameBgActive] = toImVec4(mix(t.row_box, accent, 0.22f));
  c[ImGuiCol_Separator] = toImVec4(t.row_border);
  c[ImGuiCol_Border] = toImVec4(t.row_border);
  c[ImGuiCol_PopupBg] = toImVec4(mix(t.background, t.row_box, 0.5f));
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

void Spinner(const char* id) {
  ImGui::PushID(id);
  float h = ImGui::GetTextLineHeight();
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(h, h));
  float t = float(ImGui::GetTime()) * 6.0f;
  ImVec2 c(p.x + h / 2, p.y + h / 2);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PathArcTo(c, h * 0.38f, t, t + 4.4f, 24);
  dl->PathStroke(ImGui::GetColorU32(ImGuiCol_CheckMark), 0, h * 0.14f);
  ImGui::PopID();
}

}  // namespace collviz::ui
