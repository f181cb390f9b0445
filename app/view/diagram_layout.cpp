// layoutDiagram: the heading and legend, then the parts in layout_*.cpp
// (column geometry, flows, rows and tiles, footer) into one Scene.
#include "app/view/diagram_layout.h"
#include "app/lang/lang.h"

#include "app/view/layout_builder.h"

namespace collviz::ui {

namespace layout {

void layoutHeadingAndLegend(Builder& b, float& y) {
  const float m = 18 * b.u;
  Heading h = headingFor(b.m.program, b.m.spec.op);
  float hs = 27 * b.u;
  float x = m;
  b.text({x, y}, h.number, b.th.muted_text, hs, TextStyle::heading);
  x += b.measure(h.number, TextStyle::heading, hs) + 12 * b.u;
  b.text({x, y}, h.title, b.th.text, hs, TextStyle::heading);
  x += b.measure(h.title, TextStyle::heading, hs) + 16 * b.u;
  b.text({x, y + hs - 18 * b.u}, h.phrase, b.th.muted_text, 17 * b.u);
  y += hs + 14 * b.u;

  // Legend strip: the article's three statements, the Σ key drawn with tiles.
  const float ts = 15 * b.u, right = b.p.size.x - m, line_h = 30 * b.u;
  bool root = b.m.program == Program::single && usesRoot(b.m.spec.op);
  std::string rows = tr("each row is one GPU (rank)");
  if (root) rows += " · root = R" + std::to_string(b.m.spec.root);
  std::vector<std::string> parts = {rows, tr("colour follows the data block, subscript = shard")};
  size_t box_index = b.s.tiles.size();
  b.tile({m, y, right - m, line_h}, b.th.row_box, withAlpha(b.th.row_border, 0.6f), 8 * b.u, 1 * b.u);
  float lx = m + 12 * b.u, ly = y + line_h / 2;
  auto wrapIfNeeded = [&](float w) {
    if (lx + w > right - 8 * b.u && lx > m + 12 * b.u) {
      lx = m + 12 * b.u;
      ly += line_h;
    }
  };
  for (const std::string& t : parts) {
    float w = b.measure(t, TextStyle::regular, ts);
    wrapIfNeeded(w);
    b.text({lx, ly}, t, b.th.muted_text, ts, TextStyle::regular, 0, 0.5f);
    lx += w + 26 * b.u;
  }
  int shown = std::clamp(b.m.spec.ranks, 1, 4);
  float kw = 30 * b.u, kh = 22 * b.u, plus = 16 * b.u;
  wrapIfNeeded(shown * (kw + plus) + kw + plus + 40 * b.u);
  const char* kSub0 = "₀";
  uint32_t all = 0;
  for (int i = 0; i < shown; ++i) {
    Rect r{lx, ly - kh / 2, kw, kh};
    b.tile(r, tileFill(b.th, i), letterColor(i), 5 * b.u, 1.3f * b.u);
    b.text(r.center(), std::string(1, char('A' + i)) + kSub0, b.th.text, 14 * b.u,
           TextStyle::regular, 0.5f, 0.5f);
    all |= 1u << i;
    lx += kw;
    std::string op = i + 1 < shown ? "+" : (b.m.spec.ranks > 4 ? "+ … =" : "=");
    float ow = std::max(plus, b.measure(op, TextStyle::regular, ts) + 10 * b.u);
    b.text({lx + ow / 2, ly}, op, b.th.muted_text, ts, TextStyle::regular, 0.5f, 0.5f);
    lx += ow;
  }
  Rect r{lx, ly - kh / 2, kw, kh};
  b.tile(r, b.th.neutral_fill, b.th.neutral_border, 5 * b.u, 1.3f * b.u, kTileStripes, all);
  b.text({r.center().x, r.center().y - 2 * b.u}, std::string("Σ") + kSub0, b.th.text, 14 * b.u,
         TextStyle::regular, 0.5f, 0.5f);
  lx += kw + 10 * b.u;
  b.text({lx, ly}, tr("element-wise sum, same shard"), b.th.muted_text, 13 * b.u, TextStyle::regular, 0,
         0.5f);
  float bottom = ly + line_h / 2;
  b.s.tiles[box_index].rect.h = bottom - y;
  y = bottom + 16 * b.u;
}

}  // namespace layout

Scene layoutDiagram(const DiagramModel& m, const TraceSets& trace, const ViewSettings& view,
                    const Theme& th, const LayoutParams& p) {
  layout::Builder b{m, trace, view, th, p, p.scale, {}};
  float y = 18 * b.u;
  layout::layoutHeadingAndLegend(b, y);
  const layout::Geometry g = layout::columnGeometry(b, y);
  layout::layoutFlows(b, g);
  layout::layoutRows(b, g);
  layout::layoutFooter(b, g);
  return std::move(b.s);
}

}  // namespace collviz::ui
