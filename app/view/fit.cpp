#include "app/view/fit.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "app/view/text.h"

namespace collviz::ui {

Rect textBox(const TextItem& t, const MeasureText& measure) {
  const float w = measure ? measure(t.text, t.style, t.size) : 0.6f * t.size * float(codePoints(t.text));
  return {t.anchor.x - w * t.align_x, t.anchor.y - t.size * t.align_y, w, t.size};
}

namespace {
void grow(Rect& r, bool& any, const Rect& b) {
  if (!any) {
    r = b;
    any = true;
    return;
  }
  const float x1 = std::max(r.x + r.w, b.x + b.w), y1 = std::max(r.y + r.h, b.y + b.h);
  r.x = std::min(r.x, b.x);
  r.y = std::min(r.y, b.y);
  r.w = x1 - r.x;
  r.h = y1 - r.y;
}
Rect pointsBox(std::initializer_list<Vec2> ps) {
  float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
  for (Vec2 p : ps) x0 = std::min(x0, p.x), y0 = std::min(y0, p.y), x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
  return {x0, y0, x1 - x0, y1 - y0};
}
}  // namespace

Rect sceneBounds(const Scene& s, const MeasureText& measure) {
  Rect r;
  bool any = false;
  for (const TileInstance& t : s.tiles)
    if (t.fill.a > 0 || t.border.a > 0) grow(r, any, t.rect);
  for (const CurveInstance& c : s.curves) grow(r, any, pointsBox({c.p0, c.p1, c.p2, c.p3}));
  for (const Triangle& t : s.triangles) grow(r, any, pointsBox({t.a, t.b, t.c}));
  for (const TextItem& t : s.texts) grow(r, any, textBox(t, measure));
  for (const Region& g : s.regions) grow(r, any, g.rect);
  return r;
}

bool overlaps(const Rect& a, const Rect& b, float slack) {
  return a.x + slack < b.x + b.w && b.x + slack < a.x + a.w && a.y + slack < b.y + b.h &&
         b.y + slack < a.y + a.h;
}

bool sceneFits(const Scene& s, Vec2 size, const MeasureText& measure) {
  // The extent the layout says it used (what scrolls and what exports check).
  if (s.width > size.x + 0.5f || s.height > size.y + 0.5f) return false;
  const Rect b = sceneBounds(s, measure);
  if (b.x < -0.5f || b.y < -0.5f || b.x + b.w > size.x + 0.5f || b.y + b.h > size.y + 0.5f) return false;
  for (std::size_t i = 0; i < s.regions.size(); ++i)
    for (std::size_t j = i + 1; j < s.regions.size(); ++j)
      if (overlaps(s.regions[i].rect, s.regions[j].rect)) return false;
  return true;
}

float fitScore(const Scene& s, Vec2 size, const MeasureText& measure) {
  const float side = std::sqrt(std::max(0.0f, s.tile_w * s.tile_h));
  float score = std::max(s.label_px_min, 0.01f) * std::max(side, 0.01f);
  if (s.label_px_min > 0 && s.label_px_min < kMinLabelPx) score *= 0.25f;  // below the floor: the last resort
  if (s.side_px_min > 0 && s.side_px_min < kMinLabelPx - 0.01f) score *= 0.25f;
  // A scene that does not fit: the smaller its scale, the nearer it is to fitting.
  return sceneFits(s, size, measure) ? score : -1.0f - s.scale;
}

float fitScale(const std::function<Scene(float u)>& layout, const FitParams& p) {
  const float ui = std::max(0.25f, p.ui_scale);
  // Candidates: from an eighth of the UI scale (a small view at 2x shrinks
  // to fit; the steps stay in proportion to the UI scale) up to
  // where even a tiny figure would be cut off, in steps of 15 %.
  const float top = std::max(ui, std::min(p.size.x / 150.0f, p.size.y / 100.0f));
  float best_u = ui, best = -1e30f;
  auto tryScale = [&](float u) {
    const float sc = fitScore(layout(u), p.size, p.measure);
    if (sc > best) best = sc, best_u = u;
    return sc >= 0;
  };
  // Past the largest scale that fits, larger ones overflow more: stop after
  // a few that do not fit.
  constexpr float kStep = 1.15f;
  int misses = 0;
  for (float u = ui / 8; u <= top * 1.0001f && misses < 3; u *= kStep)
    misses = tryScale(u) ? 0 : best >= 0 ? misses + 1 : 0;
  // Refine between the neighbours of the best step (to about 2 %).
  const float lo = best_u / kStep, hi = best_u * kStep;
  for (int i = 1; i < 14; ++i)
    if (i != 7) tryScale(lo + (hi - lo) * float(i) / 14.0f);
  return best_u;
}

}  // namespace collviz::ui
