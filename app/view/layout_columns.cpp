// Column geometry: row height from the height available, tile width from
// the width, gaps between the column boxes.
#include "app/view/layout_builder.h"

namespace collviz::ui::layout {

float columnOverhang(const Builder& b, const Geometry& g, int k) {
  const ColumnModel& col = b.m.columns[std::size_t(k)];
  const float w = std::max(b.measure(col.title, TextStyle::bold, 16 * b.u),
                           b.measure(col.subtitle, TextStyle::regular, 13.5f * b.u));
  return std::max(0.0f, (w - g.cols[std::size_t(k)].box_w) / 2);
}

Geometry columnGeometry(const Builder& b, float y) {
  const float u = b.u, margin = 18 * u;
  const int columns = int(b.m.columns.size()), ranks = b.m.spec.ranks;
  Geometry g;
  g.y_head = y;
  g.y_rows = y + 44 * u;

  // Row height: fill the height, within reason.
  g.row_gap = 8 * u;
  g.pad = 5 * u;
  g.tile_gap = 5 * u;
  const float avail_h = b.p.size.y - g.y_rows - 46 * u - hostGapsHeight(b);
  g.row_h = std::clamp((avail_h - (ranks - 1) * g.row_gap) / std::max(ranks, 1), 26 * u, 66 * u);
  g.tile_h = g.row_h - 2 * g.pad;

  // Tile width: as wide as 1.25 × height, narrower when the columns must fit.
  // A gap is wide enough for its label (the decomposition's "Reduce-scatter
  // →") beside the column titles and subtitles that overhang their boxes:
  // a second pass widens the gaps when the first found them too narrow.
  const float label_w = 44 * u + hostNamesWidth(b, 44 * u), gap_max = 250 * u;
  float gap_min = 86 * u, spare = 0;
  g.cols.resize(columns);
  for (int pass = 0; pass < 4; ++pass) {
    const float avail_w = b.p.size.x - 2 * margin - label_w - (columns - 1) * gap_min;
    float fixed = 0;
    int blocks = 0;
    for (const ColumnModel& c : b.m.columns) {
      const int nb = maxBlocks(c);
      blocks += nb;
      fixed += 2 * g.pad + (nb - 1) * g.tile_gap;
    }
    g.tile_w = std::min(g.tile_h * 1.25f, (avail_w - fixed) / std::max(blocks, 1));
    g.tile_w = std::max(g.tile_w, 12 * u);
    float boxes = 0;
    for (int c = 0; c < columns; ++c) {
      const int nb = maxBlocks(b.m.columns[c]);
      g.cols[c].box_w = 2 * g.pad + nb * g.tile_w + (nb - 1) * g.tile_gap;
      boxes += g.cols[c].box_w;
    }
    spare = b.p.size.x - 2 * margin - label_w - boxes;
    g.gap_w = columns > 1 ? std::clamp(spare / (columns - 1), gap_min, std::max(gap_min, gap_max)) : 0;
    auto overhang = [&](int k) { return columnOverhang(b, g, k); };
    float need = gap_min;
    for (int c = 0; c + 1 < columns && c < int(b.m.gaps.size()); ++c)
      if (!b.m.gaps[c].label.empty())
        need = std::max(need, b.measure(b.m.gaps[c].label + " →", TextStyle::bold, 14 * u) + 16 * u +
                                  overhang(c) + overhang(c + 1));
    if (need <= gap_min + 0.5f) break;
    gap_min = need;
  }
  float x = margin + label_w + std::max(0.0f, (spare - g.gap_w * (columns - 1)) / 2);
  for (int c = 0; c < columns; ++c) {
    g.cols[c].x = x;
    x += g.cols[c].box_w + g.gap_w;
  }
  g.x_end = x;
  setHostShifts(b, g);
  return g;
}

float columnAlpha(const Builder& b, int c) {
  if (b.m.program == Program::all_reduce_decomposed && c > b.view.stage) return 0.12f;
  return (c > 0 && b.m.columns[c].expected) ? 0.45f : 1.0f;
}

}  // namespace collviz::ui::layout
