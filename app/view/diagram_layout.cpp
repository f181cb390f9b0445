// layoutDiagram: the heading, then the parts in layout_*.cpp (legend,
// column geometry, flows, rows and tiles, footer) into one Scene.
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

  layoutLegend(b, y);
}

}  // namespace layout

Scene layoutDiagram(const DiagramModel& m, const TraceSets& trace, const ViewSettings& view,
                    const Theme& th, const LayoutParams& p) {
  layout::Builder b{m, trace, view, th, p, p.scale, {}};
  b.s.scale = p.scale;
  float y = 18 * b.u;
  layout::Mark at = layout::mark(b);
  layout::layoutHeadingAndLegend(b, y);
  layout::regionSince(b, "heading", at);
  const layout::Geometry g = layout::columnGeometry(b, y);
  at = layout::mark(b);
  layout::layoutFlows(b, g);
  layout::layoutRows(b, g);
  layout::regionSince(b, "grid", at);
  at = layout::mark(b);
  layout::layoutFooter(b, g);
  layout::regionSince(b, "footer", at);
  return std::move(b.s);
}

}  // namespace collviz::ui
