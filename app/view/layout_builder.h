// The parts of layoutDiagram (diagram_layout.cpp): what they share while
// building one scene. Internal to the view library.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "app/view/diagram_layout.h"
#include "app/view/text.h"

namespace collviz::ui::layout {

// The inputs of one layout and the scene being built.
struct Builder {
  const DiagramModel& m;
  const TraceSets& trace;
  const ViewSettings& view;
  const Theme& th;
  const LayoutParams& p;
  float u;  // pixels per layout unit
  Scene s;
  // The short forms tiles took (label_text.h) and the full label of the
  // first tile that took each: the figure's key explains them.
  std::vector<std::pair<std::string, std::string>> short_labels = {};

  // A side part's text size: `design` layout units, never under the floor
  // (for `text` with Chinese in it: its CJK em never under it). The floor is
  // kMinTextPx at 1x and grows with the UI scale as far as the figure does
  // (a small view at 2x shrinks to fit, to the 1x floor at the least).
  float px(float design, std::string_view text = {}) const {
    if (!p.text_floor) return design * u;
    const float scale = std::max(1.0f, std::min(u, p.ui_scale));
    float floor = kMinTextPx * scale;
    if (p.cjk_em_per_px > 0)
      for (char32_t c : toCodePoints(text))
        if (isCjk(c)) {
          floor = std::max(floor, kMinTextPx * scale / p.cjk_em_per_px);
          break;
        }
    return std::max(design * u, floor);
  }
  float measure(const std::string& t, TextStyle st, float size) const {
    if (p.measure) return p.measure(t, st, size);
    return 0.6f * size * float(codePoints(t));
  }
  void text(Vec2 at, std::string t, Rgba c, float size, TextStyle st = TextStyle::regular,
            float ax = 0, float ay = 0) {
    s.texts.push_back({at, ax, ay, std::move(t), c, size, st});
  }
  void tile(Rect r, Rgba fill, Rgba border, float radius, float bw, uint32_t flags = 0,
            uint32_t stripes = 0) {
    s.tiles.push_back({r, fill, border, radius, bw, flags, stripes});
  }
  // A curve from a to b, leaving and arriving horizontally, with an arrowhead
  // (dashed with `dash` > 0: a message across hosts).
  void flow(Vec2 a, Vec2 b, Rgba c, float width, bool arrow, float dash = 0);
};

// Where the columns, rows and tiles go.
struct Geometry {
  struct Column {
    float x = 0, box_w = 0;
  };
  std::vector<Column> cols;
  float y_head = 0, y_rows = 0;  // column titles; first row
  float row_h = 0, row_gap = 0, pad = 0;
  float tile_w = 0, tile_h = 0, tile_gap = 0;
  float gap_w = 0;  // between two columns' boxes
  float x_end = 0;  // right edge of the last column's box plus one gap
  // Ranks on several hosts: each row's offset by the gaps between hosts
  // above it (layout_hosts.cpp); empty on one host. rowY(ranks) takes the last.
  std::vector<float> shift;

  float rowY(int r) const {
    const float at = y_rows + r * (row_h + row_gap);
    return shift.empty() ? at : at + shift[std::size_t(std::clamp(r, 0, int(shift.size()) - 1))];
  }
  float rowMid(int r) const { return rowY(r) + row_h / 2; }
};

// The heading (number, title, phrase) and the legend strip, from y down.
void layoutHeadingAndLegend(Builder& b, float& y);
// The legend strip alone (layout_legend.cpp): what rows, letters and
// subscripts mean for this op, and for a reduction its reduce op's key.
void layoutLegend(Builder& b, float& y);
// The reduce op between two operands ("+", "×", "min", "max"), on the flow
// node and in the legend.
std::string reduceGlyph(RedOp r);
// Sizes and positions of everything below the legend, which ends at y.
Geometry columnGeometry(const Builder& b, float y);
// How far column k's title or subtitle reaches past each side of its box.
float columnOverhang(const Builder& b, const Geometry& g, int k);
// How visible column c is: a decomposition column not reached yet is a
// ghost; an output not yet run is faded.
float columnAlpha(const Builder& b, int c);
// The flows between each pair of columns (drawn first: tiles cover their ends).
void layoutFlows(Builder& b, const Geometry& g);
// Rank labels, column titles, row boxes and block tiles.
void layoutRows(Builder& b, const Geometry& g);
// One block's tile at `t` (colours, Σ stripes, the label, a bad mark; with
// `result`, a "*" where part of the label is the oracle's). Returns the
// label's size in pixels.
float blockTile(Builder& b, const Geometry& g, Rect t, const BlockLabel& l, float alpha,
                bool result = false);
// A tile of the grid was drawn with its label at `label_px`: the scene's
// figures the fit reads (Scene::label_px_min, tile size).
void noteGridTile(Builder& b, const Geometry& g, float label_px);
// Regions of the figure (Scene::regions): a mark of what the scene holds,
// then a region around everything drawn since (tiles, curves, texts).
struct Mark {
  std::size_t tiles = 0, curves = 0, triangles = 0, texts = 0;
};
Mark mark(const Builder& b);
void regionSince(Builder& b, const std::string& name, const Mark& from);
// Ranks on several hosts (DiagramModel::hosts; all of these do nothing
// without): the width the host names take left of the rank labels beyond
// `label_w`, the height the gaps between hosts take, each row's shift by
// them, and each host's name beside its rows with a line between hosts.
float hostNamesWidth(const Builder& b, float label_w);
float hostGapsHeight(const Builder& b);
void setHostShifts(const Builder& b, Geometry& g);
void layoutHosts(Builder& b, const Geometry& g);
// A message from `from` to `to` across hosts is dashed, dashes and gaps
// this long (0: within a host, or no hosts); hostDashLength: that length.
float hostDash(const Builder& b, int from, int to);
float hostDashLength(const Builder& b);
// The link view's links across hosts and the bytes panel's share across
// hosts: the text's colour, apart from every block letter's.
Rgba acrossHostsColor(const Theme& th);
// Under the rows: the decomposition's check and the article's caveat.
void layoutFooter(Builder& b, const Geometry& g);

}  // namespace collviz::ui::layout
