// The flows between two columns: one curve per (source row, destination
// row), or every source through a node ("+" for sums, striped for joins).
#include <cmath>

#include "app/view/layout_builder.h"

namespace collviz::ui::layout {

void Builder::flow(Vec2 a, Vec2 b, Rgba c, float width, bool arrow, float dash) {
  float head = arrow ? 7.0f * u + width : 0.0f;
  Vec2 end{b.x - head, b.y};
  float dx = std::max(8.0f * u, (end.x - a.x) * 0.5f);
  s.curves.push_back({a, {a.x + dx, a.y}, {end.x - dx, end.y}, end, c, width, dash});
  if (arrow) {
    float half = 3.0f * u + width;
    s.triangles.push_back({{b.x, b.y}, {end.x - 1, b.y - half}, {end.x - 1, b.y + half}, c});
  }
}

namespace {

// The colour a set of labels flows in: their letter's colour when they agree
// on one source letter, the neutral flow colour otherwise (Σ, several).
Rgba flowColor(const Theme& th, const std::vector<const BlockLabel*>& labels) {
  int letter = -2;
  for (const BlockLabel* l : labels) {
    if (!l || l->kind != BlockLabel::Kind::source) return th.flow_neutral;
    if (letter != -2 && l->letter != letter) return th.flow_neutral;
    letter = l->letter;
  }
  return letter >= 0 ? letterColor(letter) : th.flow_neutral;
}

// One gap: columns `index` and `index + 1`, and where their flows run.
struct Gap {
  Builder& b;
  const Geometry& g;
  int index;
  const ColumnModel& src;
  const ColumnModel& dst;
  float x0, x1;  // right of the source boxes, left of the destination boxes
  float alpha;   // the destination column's visibility

  // Colour and width of a flow, by trace.
  Rgba style(bool lit, Rgba c, float& w) const {
    w = 2.0f * b.u;
    if (!b.trace.active) return withAlpha(c, 0.6f * alpha);
    if (lit) {
      w = 3.4f * b.u;
      return withAlpha(c, alpha);
    }
    return withAlpha(c, 0.07f * alpha);
  }
  // Labels of the source blocks that feed destination row d from row s.
  std::vector<const BlockLabel*> fed(int s, int d) const {
    std::vector<const BlockLabel*> out;
    for (const BlockRef& ref : dst.rows[d].refs) {
      if (!(ref.ranks & (1u << s))) continue;
      const auto& labels = src.rows[s].labels;
      out.push_back(ref.block < int(labels.size()) ? &labels[ref.block] : nullptr);
    }
    return out;
  }
};

void pairFlows(const Gap& gap) {
  Builder& b = gap.b;
  const int ranks = b.m.spec.ranks;
  std::vector<std::pair<int, int>> pairs;
  std::vector<int> out_count(ranks, 0), in_count(ranks, 0);
  for (int d = 0; d < ranks; ++d)
    for (int s = 0; s < ranks; ++s)
      if (!gap.fed(s, d).empty()) pairs.push_back({s, d}), out_count[s]++, in_count[d]++;
  std::vector<int> out_i(ranks, 0), in_i(ranks, 0);
  const float spread = std::min(4.0f * b.u, gap.g.row_h * 0.6f / std::max(ranks, 1));
  // Draw faded flows first so the lit ones sit on top.
  for (int pass = 0; pass < 2; ++pass) {
    std::fill(out_i.begin(), out_i.end(), 0);
    std::fill(in_i.begin(), in_i.end(), 0);
    for (auto [s, d] : pairs) {
      const float oy = (out_i[s]++ - (out_count[s] - 1) / 2.0f) * spread;
      const float iy = (in_i[d]++ - (in_count[d] - 1) / 2.0f) * spread;
      const bool lit = b.trace.pair(gap.index, s, d);
      if ((pass == 1) != (lit && b.trace.active)) continue;
      float w;
      const Rgba c = gap.style(lit, flowColor(b.th, gap.fed(s, d)), w);
      b.flow({gap.x0, gap.g.rowMid(s) + oy}, {gap.x1, gap.g.rowMid(d) + iy}, c, w, true);
    }
  }
}

void nodeFlows(const Gap& gap) {
  Builder& b = gap.b;
  const Geometry& g = gap.g;
  const Theme& th = b.th;
  const float u = b.u;
  const int ranks = b.m.spec.ranks;
  std::vector<int> srcs, dsts;
  for (int s = 0; s < ranks; ++s) {
    bool any = false;
    for (int d = 0; d < ranks; ++d) any = any || !gap.fed(s, d).empty();
    if (any) srcs.push_back(s);
  }
  for (int d = 0; d < ranks; ++d)
    if (!gap.dst.rows[d].refs.empty()) dsts.push_back(d);
  auto meanY = [&](const std::vector<int>& rows) {
    float t = 0;
    for (int r : rows) t += g.rowMid(r);
    return rows.empty() ? g.rowMid(0) : t / float(rows.size());
  };
  const float ny = (meanY(srcs) + meanY(dsts)) / 2, nx = (gap.x0 + gap.x1) / 2;
  const GapModel& model = b.m.gaps[gap.index];
  const bool sum = model.kind == FlowKind::sum_node;
  const std::string sym = sum ? reduceGlyph(model.spec.redop) : "";
  const float nw = sum ? std::max(26 * u, b.measure(sym, TextStyle::bold, 18 * u) + 14 * u) : 16 * u;
  const float nh = sum ? 26 * u : std::clamp(float(srcs.size()) * 9 * u, 34 * u, 80 * u);
  const Rect node{nx - nw / 2, ny - nh / 2, nw, nh};
  uint32_t mask = 0;
  for (int s : srcs)
    for (const BlockLabel& l : gap.src.rows[s].labels) mask |= l.contributors;
  for (int pass = 0; pass < 2; ++pass) {
    for (int s : srcs) {
      const bool lit = b.trace.intoNode(gap.index, s);
      if ((pass == 1) != (lit && b.trace.active)) continue;
      std::vector<const BlockLabel*> labels;
      for (const BlockLabel& l : gap.src.rows[s].labels) labels.push_back(&l);
      float w;
      const Rgba c = gap.style(lit, flowColor(th, labels), w);
      b.flow({gap.x0, g.rowMid(s)}, {node.x, ny}, c, w, false);
    }
    for (int d : dsts) {
      const bool lit = b.trace.fromNode(gap.index, d);
      if ((pass == 1) != (lit && b.trace.active)) continue;
      float w;
      const Rgba c = gap.style(lit, th.flow_neutral, w);
      b.flow({node.x + node.w, ny}, {gap.x1, g.rowMid(d)}, c, w, true);
    }
  }
  const float na = gap.alpha * ((!b.trace.active || !dsts.empty()) ? 1.0f : th.faded);
  if (sum) {
    b.tile(node, withAlpha(th.neutral_fill, na), withAlpha(th.neutral_border, na), nh / 2, 1.5f * u);
    b.text(node.center(), sym, withAlpha(th.text, na), 18 * u, TextStyle::bold, 0.5f, 0.5f);
  } else {
    b.tile(node, withAlpha(th.neutral_fill, na), withAlpha(th.neutral_border, na), 4 * u, 1.2f * u,
           kTileStripesFull, mask);
  }
}

// The decomposition names each gap ("Reduce-scatter →") on the subtitle
// line: the column titles beside it are wider than their boxes ("after
// reduce-scatter") and would run into it above. Narrow gaps shrink it to
// fit (down to 10 px per unit).
void gapLabel(const Gap& gap) {
  Builder& b = gap.b;
  const std::string label = b.m.gaps[gap.index].label + " →";
  float size = 14 * b.u;
  // Between the subtitles that overhang the two boxes.
  const float x0 = gap.x0 + columnOverhang(b, gap.g, gap.index);
  const float x1 = gap.x1 - columnOverhang(b, gap.g, gap.index + 1);
  const float w = b.measure(label, TextStyle::bold, size), room = x1 - x0 - 6 * b.u;
  if (w > room) size = std::max(10 * b.u, size * room / w);
  b.text({(x0 + x1) / 2, gap.g.y_head + 21 * b.u}, label, withAlpha(b.th.text, gap.alpha), size,
         TextStyle::bold, 0.5f, 0);
}

}  // namespace

void layoutFlows(Builder& b, const Geometry& g) {
  const int columns = int(b.m.columns.size());
  for (int i = 0; i + 1 < columns; ++i) {
    const Gap gap{b,
                  g,
                  i,
                  b.m.columns[i],
                  b.m.columns[i + 1],
                  g.cols[i].x + g.cols[i].box_w + 3 * b.u,
                  g.cols[i + 1].x - 3 * b.u,
                  columnAlpha(b, i + 1)};
    if (b.m.gaps[i].kind == FlowKind::pairs) pairFlows(gap);
    else nodeFlows(gap);
    if (!b.m.gaps[i].label.empty()) gapLabel(gap);
  }
}

}  // namespace collviz::ui::layout
