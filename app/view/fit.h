// The fitted layout: a diagram (any op, the decomposition, an algorithm
// round) laid out at the scale that reads best in the space it is given —
// the window's area left by the panels, a slide, an export size. Tiles,
// labels, curves, legend and headings all scale together (one layout unit
// `u` in pixels); the fit tries scales and keeps the one whose scene lies
// inside the view with no two regions overlapping and whose block labels and
// tiles are largest. Pure (no GL); the window and every export call it.
#pragma once

#include <functional>

#include "app/view/diagram_layout.h"
#include "app/view/scene.h"

namespace collviz::ui {

// A text item's box (anchor, alignment, the measured width, `size` tall).
Rect textBox(const TextItem& t, const MeasureText& measure);
// The smallest rectangle holding every tile, curve, triangle and text.
Rect sceneBounds(const Scene& s, const MeasureText& measure);
bool overlaps(const Rect& a, const Rect& b, float slack = 0.5f);
// Inside the view, with no two regions overlapping.
bool sceneFits(const Scene& s, Vec2 size, const MeasureText& measure);

// No block label is drawn smaller than this when the view has room for it.
inline constexpr float kMinLabelPx = kMinTextPx;

// What reads best: the smallest block label times the tile's side, much
// less when a label or a side part's text (Scene::side_px_min) is under
// kMinLabelPx. A scene that does not fit scores below every one that does.
float fitScore(const Scene& s, Vec2 size, const MeasureText& measure);

struct FitParams {
  Vec2 size;               // pixels available
  float ui_scale = 1.0f;   // the UI scale: the smallest labels grow with it
  MeasureText measure;     // null: the 0.6 em estimate
};

// The scale (pixels per layout unit) at which `layout` reads best in
// `p.size`. Tries scales from an eighth of the UI scale up (a figure that
// cannot fit at the UI scale shrinks rather than spill out of the view).
float fitScale(const std::function<Scene(float u)>& layout, const FitParams& p);

}  // namespace collviz::ui
