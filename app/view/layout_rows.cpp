// Rows and tiles: the rank labels at the left, each column's title, one box
// per rank (dashed "—" where there is no buffer) holding one tile per block.
#include "app/view/layout_builder.h"

#include <algorithm>
#include "app/view/fit.h"
#include "app/view/label_text.h"

namespace collviz::ui::layout {

// One block's tile: its letter's colours, Σ with contributor stripes, or
// the "unknown" colours; a thick red border and "!" when elements are bad;
// "*" when part of a result's label is the oracle's, not read from the bytes.
void noteGridTile(Builder& b, const Geometry& g, float label_px) {
  b.s.tile_w = g.tile_w;
  b.s.tile_h = g.tile_h;
  if (b.s.label_px_min == 0 || label_px < b.s.label_px_min) b.s.label_px_min = label_px;
}

Mark mark(const Builder& b) {
  return {b.s.tiles.size(), b.s.curves.size(), b.s.triangles.size(), b.s.texts.size()};
}

void regionSince(Builder& b, const std::string& name, const Mark& from) {
  Scene part;
  part.tiles.assign(b.s.tiles.begin() + long(from.tiles), b.s.tiles.end());
  part.curves.assign(b.s.curves.begin() + long(from.curves), b.s.curves.end());
  part.triangles.assign(b.s.triangles.begin() + long(from.triangles), b.s.triangles.end());
  part.texts.assign(b.s.texts.begin() + long(from.texts), b.s.texts.end());
  if (part.tiles.empty() && part.curves.empty() && part.triangles.empty() && part.texts.empty()) return;
  const MeasureText m = [&b](const std::string& t, TextStyle st, float size) { return b.measure(t, st, size); };
  b.s.regions.push_back({sceneBounds(part, m), name});
}

float blockTile(Builder& b, const Geometry& g, Rect t, const BlockLabel& l, float alpha,
                bool result) {
  const Theme& th = b.th;
  const float u = b.u;
  Rgba fill, border;
  uint32_t flags = 0, stripes = 0;
  if (l.kind == BlockLabel::Kind::source) {
    fill = tileFill(th, l.letter);
    border = letterColor(l.letter);
  } else if (l.kind == BlockLabel::Kind::reduced) {
    fill = th.neutral_fill;
    border = th.neutral_border;
    flags = kTileStripes;
    stripes = l.contributors;
  } else {
    fill = mix(th.bad, th.background, 0.8f);
    border = th.bad;
  }
  float bw = 1.4f * u;
  if (l.bad > 0) {
    border = th.bad;
    bw = 2.6f * u;
    ++b.s.bad_blocks;
  }
  b.tile(t, withAlpha(fill, alpha), withAlpha(border, alpha), 6 * u, bw, flags, stripes);
  // The full label, as the article writes it (A₁+C₁+D₁), or a shorter form
  // only when the full one would shrink below kFullLabelFloor of its size,
  // or below the fit's least label (kMinLabelPx) where that is more
  // (label_text.h); each short form drawn is explained in the figure's key.
  const float full = std::min(g.tile_h * 0.5f, 19 * u), room = t.w - 6 * u;
  const float keep = std::max(kFullLabelFloor * full, std::min(kMinLabelPx, 0.75f * full));
  const std::vector<std::string> forms = labelForms(l, b.m.spec.redop, b.m.spec.ranks);
  std::string label;
  float size = 0;
  for (const std::string& form : forms) {
    const float w = b.measure(form, TextStyle::regular, full);
    const float fits = w > room ? full * room / w : full;
    if (fits > size) label = form, size = fits;
    if (fits >= keep) break;
  }
  if (label != forms.front() &&
      std::none_of(b.short_labels.begin(), b.short_labels.end(), [&](const auto& s) { return s.first == label; }))
    b.short_labels.push_back({label, forms.front()});
  const float lift = flags ? g.tile_h * 0.07f : 0;  // keep Σ clear of the stripes
  b.text({t.center().x, t.center().y - lift}, label, withAlpha(th.text, alpha), size,
         TextStyle::regular, 0.5f, 0.5f);
  if (l.bad > 0)
    b.text({t.x + t.w - 2 * u, t.y + 1 * u}, "!", withAlpha(th.bad, alpha), 13 * u, TextStyle::bold,
           1.0f, 0);
  if (result && !l.decoded)
    b.text({t.x + 3 * u, t.y + 1 * u}, "*", withAlpha(th.text, alpha), 13 * u, TextStyle::bold, 0,
           0);
  return size;
}

namespace {

void rankLabels(Builder& b, const Geometry& g) {
  const int columns = int(b.m.columns.size());
  const bool bold_root = b.m.program == Program::single && usesRoot(b.m.spec.op);
  for (int r = 0; r < b.m.spec.ranks; ++r) {
    const bool root = bold_root && r == b.m.spec.root;
    const float a = b.trace.active && !b.trace.row(0, r) && !b.trace.row(columns - 1, r) ? 0.5f : 1.0f;
    b.text({g.cols[0].x - 10 * b.u, g.rowMid(r)}, "R" + std::to_string(r),
           withAlpha(root ? b.th.root_text : b.th.muted_text, a), 16 * b.u,
           root ? TextStyle::bold : TextStyle::regular, 1.0f, 0.5f);
  }
}

// A block too big to list: its overview as a strip of bins across the top
// of the tile (the tile keeps its colour, label and stripes). Darker is
// larger within the block; a bin whose elements did not check out is red.
void heatStrip(Builder& b, Rect t, const BlockOverview& o, Rgba ink, float alpha) {
  const int bins = o.bins();
  if (bins == 0) return;
  float lo = o.lo[0], hi = o.hi[0];
  for (int k = 0; k < bins; ++k) lo = std::min(lo, o.lo[k]), hi = std::max(hi, o.hi[k]);
  const float u = b.u, x0 = t.x + 5 * u, w = (t.w - 10 * u) / float(bins);
  const float y = t.y + 4 * u, h = std::max(3.0f * u, t.h * 0.16f);
  for (int k = 0; k < bins; ++k) {
    const float mid = (o.lo[k] + o.hi[k]) / 2;
    const float level = hi > lo ? (mid - lo) / (hi - lo) : 0.5f;
    const Rgba fill = o.ok[k] ? mix(b.th.background, ink, 0.2f + 0.8f * level) : b.th.bad;
    b.tile({x0 + k * w, y, w, h}, withAlpha(fill, alpha), withAlpha(fill, 0), 0, 0);
  }
}

void rowBox(Builder& b, const Geometry& g, int c, int r, float column_alpha) {
  const Theme& th = b.th;
  const float u = b.u;
  const RowModel& row = b.m.columns[c].rows[r];
  const Rect box{g.cols[c].x, g.rowY(r), g.cols[c].box_w, g.row_h};
  if (!row.present) {
    // Dashed: "not specified" (the article stresses: not "cleared").
    const float da = column_alpha * (b.trace.active ? 0.5f : 1.0f);
    b.tile(box, withAlpha(th.background, 0), withAlpha(th.row_border, da), 8 * u, 1.2f * u,
           kTileDashed);
    b.text(box.center(), "—", withAlpha(th.muted_text, da), 16 * u, TextStyle::regular, 0.5f, 0.5f);
    return;
  }
  const float ra = column_alpha * (b.trace.row(c, r) ? 1.0f : 0.45f);
  b.tile(box, withAlpha(th.row_box, ra), withAlpha(th.row_border, ra), 8 * u, 1 * u);
  for (int k = 0; k < int(row.labels.size()); ++k) {
    const Rect t{box.x + g.pad + k * (g.tile_w + g.tile_gap), box.y + g.pad, g.tile_w, g.tile_h};
    const float ta = column_alpha * (b.trace.block(c, r, k) ? 1.0f : th.faded);
    noteGridTile(b, g, blockTile(b, g, t, row.labels[k], ta, !b.m.columns[c].expected));
    const BufferView* buf = b.m.buffer(c, r);
    if (buf && k < int(buf->overview.size()))
      heatStrip(b, t, buf->overview[k],
                row.labels[k].kind == BlockLabel::Kind::source ? letterColor(row.labels[k].letter)
                                                               : th.text,
                ta);
    b.s.hits.push_back({t, c, r, k});
  }
}

}  // namespace

void layoutRows(Builder& b, const Geometry& g) {
  rankLabels(b, g);
  layoutHosts(b, g);
  for (int c = 0; c < int(b.m.columns.size()); ++c) {
    const ColumnModel& col = b.m.columns[c];
    const float ca = columnAlpha(b, c);
    const float hx = g.cols[c].x + g.cols[c].box_w / 2;
    b.text({hx, g.y_head}, col.title, withAlpha(b.th.text, ca), 16 * b.u, TextStyle::bold, 0.5f, 0);
    if (!col.subtitle.empty())
      b.text({hx, g.y_head + 21 * b.u}, col.subtitle, withAlpha(b.th.muted_text, std::max(ca, 0.6f)),
             13.5f * b.u, TextStyle::regular, 0.5f, 0);
    for (int r = 0; r < int(col.rows.size()); ++r) rowBox(b, g, c, r, ca);
  }
}

}  // namespace collviz::ui::layout
