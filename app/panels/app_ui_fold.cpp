// AppUi's 2x fold: how the panels fold (and the diagram's text floor drops)
// so that the diagram at a UI scale above 1x is never smaller than at 1x.
#include "app/panels/app_ui.h"
#include "app/lang/lang.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace collviz::ui {

DiagramSize diagramSize(const Scene& s) {
  DiagramSize d;
  d.tile = std::min(s.tile_w, s.tile_h);
  d.label = s.label_px_min;
  for (const TextItem& t : s.texts) {
    if (t.text.empty()) continue;
    d.text_min = d.text_min > 0 ? std::min(d.text_min, t.size) : t.size;
    d.text_max = std::max(d.text_max, t.size);
  }
  return d;
}

bool DiagramSize::atLeast(const DiagramSize& o) const {
  // Within 1 %: the fit's own steps are about 2 %.
  auto ok = [](float a, float b) { return b <= 0 || a >= 0.99f * b; };
  return ok(tile, o.tile) && ok(label, o.label) && ok(text_min, o.text_min) && ok(text_max, o.text_max);
}

void AppUi::chooseFold(const DiagramInputs& in, ImVec2 avail, float status_full, float status_one,
                       float status_lines, float extra_h, const DiagramSize& drawn) {
  const float s = fonts_.scale;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  if (s <= 1.001f) {
    fold_ = 0, fold_off_ = false, fold_key_.clear(), diagram_scale_ = s;
    return;
  }
  // What the fold depends on: the view, the window's size, the scale, the
  // status block's lines. Chosen again only when one of them changes.
  const RunKey k = currentKey();
  const std::string screen = std::to_string(int(display.x)) + "x" + std::to_string(int(display.y)) + " " + std::to_string(s);
  const std::string key = screen + " " + std::to_string(int(k.program)) + " " + std::string(name(k.spec.op)) +
                          " " + std::to_string(k.spec.ranks) + " " + std::to_string(k.spec.elems) + " " + k.algo + " " +
                          std::to_string(state_.view.round) + " " + std::to_string(state_.view.stage) + " " +
                          std::to_string(int(language())) + " " + std::to_string(int(status_full)) +
                          (lecture_ ? " lecture" : "") + (job_window_.folded() ? " job" : "") +
                          (in.snapshot ? " ran" : "");
  if (key == fold_key_) {
    // The choice came from the panels' sizes foreseen; the frame drawn at
    // it says: where the diagram came out smaller than at 1x after all,
    // one step further (a lower floor, then the next fold).
    if (fold_checked_ || fold_off_) return;
    fold_checked_ = drawn.atLeast(at1x_) || (fold_ == 3 && diagram_scale_ <= 1.001f);
    if (fold_checked_) return;
    if (diagram_scale_ > 1.001f) diagram_scale_ = std::max(1.0f, diagram_scale_ - 0.25f);
    else fold_ = std::min(3, fold_ + 1), diagram_scale_ = s;
    relayout_ = true;
    return;
  }
  if (fold_key_.rfind(screen + " ", 0) != 0) fold_off_ = false;  // another window size or scale: fold again
  fold_key_ = key;
  // The panels' share of the window at each fold, from what this frame drew
  // at fold_ (the sidebar and its gap, the trace bar, the status block).
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const int now = fold_off_ ? 0 : fold_;
  const float strip = ImGui::GetFrameHeight() + gap;
  const float side[4] = {sidebarWidth() + gap, strip, strip, strip};
  const float trace = trace_h_ > 0 ? trace_h_ : ImGui::GetFrameHeightWithSpacing();
  const float tall[4] = {trace + status_full + extra_h, trace + status_one + extra_h, status_one + extra_h, extra_h};
  const ImVec2 base(avail.x + side[now], avail.y + tall[now]);
  auto areaAt = [&](int f) { return Vec2{std::floor(base.x - side[f]), std::floor(base.y - tall[f])}; };
  // At 1x every panel is 1/s as large, and the lines that wrap at this
  // scale (the status block's, the trace bar's second row) do not: the
  // window less them is the area the diagram had there.
  const float row = ImGui::GetFrameHeightWithSpacing();
  const float trace_rows = std::max(1.0f, std::round(trace / row) - 1.0f);
  const ImVec2 chrome(display.x - base.x, display.y - base.y);  // the menu bar, the window's padding
  DiagramInputs one = in;
  one.scale = 1.0f;
  one.size = {std::floor(display.x - (chrome.x + side[0]) / s),
              std::floor(display.y - (chrome.y + trace_rows * row + status_lines + extra_h) / s)};
  const DiagramSize at1x = at1x_ = diagramSize(layoutScene(one, fonts_));
  // The least fold, and at it the largest text floor from the UI scale down
  // to 1x (a floor of 2x makes the small texts larger, and the fit then
  // shrinks the rest of the figure to keep them in), at which the fitted
  // diagram is at least its 1x size: its tiles, its smallest block label,
  // its smallest and largest text. Else the whole screen at the 1x floor,
  // the nearest there is.
  int chosen = 3;
  float floor_scale = 1.0f;
  bool found = false;
  for (int f = 0; f < 4 && !found; ++f) {
    DiagramInputs at = in;
    at.size = areaAt(f);
    if (at.size.x < 1 || at.size.y < 1) continue;
    for (float t = s; t > 0.999f && !found; t = t > 1.001f ? std::max(1.0f, t - 0.25f) : 0.0f) {
      at.scale = t;
      if (diagramSize(layoutScene(at, fonts_)).atLeast(at1x)) chosen = f, floor_scale = t, found = true;
    }
  }
  if (chosen != fold_ || floor_scale != diagram_scale_) relayout_ = true;
  fold_ = chosen;
  diagram_scale_ = floor_scale;
  fold_checked_ = false;  // the next frame, drawn at it, checks it
}

}  // namespace collviz::ui
