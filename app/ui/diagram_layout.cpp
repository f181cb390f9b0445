#include "app/ui/diagram_layout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <set>

#include "app/ui/text.h"

namespace collviz::ui {

Heading headingFor(Program program, Op op) {
  if (program == Program::all_reduce_decomposed)
    return {"=", "All-reduce = Reduce-scatter + All-gather", "the same result, in two steps"};
  char num[8];
  std::snprintf(num, sizeof num, "%02d", opNumber(op));
  return {num, std::string(opTitle(op)), std::string(opPhrase(op))};
}

namespace {

// Everything the layout functions share while building one scene.
struct Builder {
  const DiagramModel& m;
  const TraceSets& trace;
  const ViewSettings& view;
  const Theme& th;
  const LayoutParams& p;
  float u;  // pixels per layout unit
  Scene s;

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
  // A curve from a to b, leaving and arriving horizontally, with an arrowhead.
  void flow(Vec2 a, Vec2 b, Rgba c, float width, bool arrow) {
    float head = arrow ? 7.0f * u + width : 0.0f;
    Vec2 end{b.x - head, b.y};
    float dx = std::max(8.0f * u, (end.x - a.x) * 0.5f);
    s.curves.push_back({a, {a.x + dx, a.y}, {end.x - dx, end.y}, end, c, width});
    if (arrow) {
      float half = 3.0f * u + width;
      s.triangles.push_back({{b.x, b.y}, {end.x - 1, b.y - half}, {end.x - 1, b.y + half}, c});
    }
  }
};

struct ColumnGeom {
  float x = 0, box_w = 0;
};

std::string nodeSymbol(RedOp r) {
  switch (r) {
    case RedOp::sum: return "+";
    case RedOp::prod: return "×";
    case RedOp::min: return "min";
    case RedOp::max: return "max";
    case RedOp::avg: return "avg";
  }
  return "+";
}

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
  std::string rows = "each row is one GPU (rank)";
  if (root) rows += " · root = R" + std::to_string(b.m.spec.root);
  std::vector<std::string> parts = {rows, "colour follows the data block, subscript = shard"};
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
  b.text({lx, ly}, "element-wise sum, same shard", b.th.muted_text, 13 * b.u, TextStyle::regular, 0,
         0.5f);
  float bottom = ly + line_h / 2;
  b.s.tiles[box_index].rect.h = bottom - y;
  y = bottom + 16 * b.u;
}

}  // namespace

Scene layoutDiagram(const DiagramModel& m, const TraceSets& trace, const ViewSettings& view,
                    const Theme& th, const LayoutParams& p) {
  Builder b{m, trace, view, th, p, p.scale, {}};
  const float u = b.u, margin = 18 * u;
  const int C = int(m.columns.size()), N = m.spec.ranks;
  float y = margin;
  layoutHeadingAndLegend(b, y);

  // Column headers.
  const float y_head = y;
  const float y_rows = y + 44 * u;

  // Row height: fill the height, within reason.
  const float row_gap = 8 * u, pad = 5 * u, tile_gap = 5 * u;
  float avail_h = p.size.y - y_rows - 46 * u;
  float row_h = std::clamp((avail_h - (N - 1) * row_gap) / std::max(N, 1), 26 * u, 66 * u);
  float tile_h = row_h - 2 * pad;

  // Tile width: as wide as 1.25 × height, narrower when the columns must fit.
  const float label_w = 44 * u, gap_min = 86 * u, gap_max = 250 * u;
  float avail_w = p.size.x - 2 * margin - label_w - (C - 1) * gap_min;
  float fixed = 0;
  int blocks = 0;
  for (const ColumnModel& c : m.columns) {
    int nb = maxBlocks(c);
    blocks += nb;
    fixed += 2 * pad + (nb - 1) * tile_gap;
  }
  float tile_w = std::min(tile_h * 1.25f, (avail_w - fixed) / std::max(blocks, 1));
  tile_w = std::max(tile_w, 12 * u);
  std::vector<ColumnGeom> cols(C);
  float boxes = 0;
  for (int c = 0; c < C; ++c) {
    int nb = maxBlocks(m.columns[c]);
    cols[c].box_w = 2 * pad + nb * tile_w + (nb - 1) * tile_gap;
    boxes += cols[c].box_w;
  }
  float spare = p.size.x - 2 * margin - label_w - boxes;
  float gap_w = C > 1 ? std::clamp(spare / (C - 1), gap_min, gap_max) : 0;
  float x = margin + label_w + std::max(0.0f, (spare - gap_w * (C - 1)) / 2);
  for (int c = 0; c < C; ++c) {
    cols[c].x = x;
    x += cols[c].box_w + gap_w;
  }
  auto rowY = [&](int r) { return y_rows + r * (row_h + row_gap); };
  auto rowMid = [&](int r) { return rowY(r) + row_h / 2; };

  // How visible each column is: a decomposition column not reached yet is a
  // ghost; an output not yet run is faded.
  auto columnAlpha = [&](int c) {
    if (m.program == Program::all_reduce_decomposed && c > view.stage) return 0.12f;
    return (c > 0 && m.columns[c].expected) ? 0.45f : 1.0f;
  };

  // Flows first, so tiles draw over their ends.
  for (int g = 0; g + 1 < C; ++g) {
    const ColumnModel& src = m.columns[g];
    const ColumnModel& dst = m.columns[g + 1];
    const float x0 = cols[g].x + cols[g].box_w + 3 * u, x1 = cols[g + 1].x - 3 * u;
    const float ga = columnAlpha(g + 1);
    auto style = [&](bool lit, Rgba c, float& w) {
      w = 2.0f * u;
      if (!trace.active) return withAlpha(c, 0.6f * ga);
      if (lit) {
        w = 3.4f * u;
        return withAlpha(c, ga);
      }
      return withAlpha(c, 0.07f * ga);
    };
    // Labels of the source blocks that feed destination row d from row s.
    auto fed = [&](int s, int d) {
      std::vector<const BlockLabel*> out;
      for (const BlockRef& ref : dst.rows[d].refs) {
        if (!(ref.ranks & (1u << s))) continue;
        const auto& labels = src.rows[s].labels;
        out.push_back(ref.block < int(labels.size()) ? &labels[ref.block] : nullptr);
      }
      return out;
    };
    if (m.gaps[g].kind == FlowKind::pairs) {
      std::vector<std::pair<int, int>> pairs;
      std::vector<int> out_count(N, 0), in_count(N, 0);
      for (int d = 0; d < N; ++d)
        for (int s = 0; s < N; ++s)
          if (!fed(s, d).empty()) pairs.push_back({s, d}), out_count[s]++, in_count[d]++;
      std::vector<int> out_i(N, 0), in_i(N, 0);
      float spread = std::min(4.0f * u, row_h * 0.6f / std::max(N, 1));
      // Draw faded flows first so the lit ones sit on top.
      for (int pass = 0; pass < 2; ++pass) {
        std::fill(out_i.begin(), out_i.end(), 0);
        std::fill(in_i.begin(), in_i.end(), 0);
        for (auto [s, d] : pairs) {
          float oy = (out_i[s]++ - (out_count[s] - 1) / 2.0f) * spread;
          float iy = (in_i[d]++ - (in_count[d] - 1) / 2.0f) * spread;
          bool lit = trace.pair(g, s, d);
          if ((pass == 1) != (lit && trace.active)) continue;
          float w;
          Rgba c = style(lit, flowColor(th, fed(s, d)), w);
          b.flow({x0, rowMid(s) + oy}, {x1, rowMid(d) + iy}, c, w, true);
        }
      }
    } else {
      // Through a node: "+" (or the reduce op) for sums, striped for joins.
      std::vector<int> srcs, dsts;
      for (int s = 0; s < N; ++s) {
        bool any = false;
        for (int d = 0; d < N; ++d) any = any || !fed(s, d).empty();
        if (any) srcs.push_back(s);
      }
      for (int d = 0; d < N; ++d)
        if (!dst.rows[d].refs.empty()) dsts.push_back(d);
      auto meanY = [&](const std::vector<int>& rows) {
        float t = 0;
        for (int r : rows) t += rowMid(r);
        return rows.empty() ? rowMid(0) : t / float(rows.size());
      };
      float ny = (meanY(srcs) + meanY(dsts)) / 2, nx = (x0 + x1) / 2;
      bool sum = m.gaps[g].kind == FlowKind::sum_node;
      std::string sym = sum ? nodeSymbol(m.gaps[g].spec.redop) : "";
      float nw = sum ? std::max(26 * u, b.measure(sym, TextStyle::bold, 18 * u) + 14 * u) : 16 * u;
      float nh = sum ? 26 * u : std::clamp(float(srcs.size()) * 9 * u, 34 * u, 80 * u);
      Rect node{nx - nw / 2, ny - nh / 2, nw, nh};
      uint32_t mask = 0;
      for (int s : srcs) {
        for (const BlockLabel& l : src.rows[s].labels) mask |= l.contributors;
      }
      for (int pass = 0; pass < 2; ++pass) {
        for (int s : srcs) {
          bool lit = trace.intoNode(g, s);
          if ((pass == 1) != (lit && trace.active)) continue;
          std::vector<const BlockLabel*> labels;
          for (const BlockLabel& l : src.rows[s].labels) labels.push_back(&l);
          float w;
          Rgba c = style(lit, flowColor(th, labels), w);
          b.flow({x0, rowMid(s)}, {node.x, ny}, c, w, false);
        }
        for (int d : dsts) {
          bool lit = trace.fromNode(g, d);
          if ((pass == 1) != (lit && trace.active)) continue;
          float w;
          Rgba c = style(lit, th.flow_neutral, w);
          b.flow({node.x + node.w, ny}, {x1, rowMid(d)}, c, w, true);
        }
      }
      float na = ga * ((!trace.active || !dsts.empty()) ? 1.0f : th.faded);
      if (sum) {
        b.tile(node, withAlpha(th.neutral_fill, na), withAlpha(th.neutral_border, na), nh / 2, 1.5f * u);
        b.text(node.center(), sym, withAlpha(th.text, na), 18 * u, TextStyle::bold, 0.5f, 0.5f);
      } else {
        b.tile(node, withAlpha(th.neutral_fill, na), withAlpha(th.neutral_border, na), 4 * u, 1.2f * u,
               kTileStripesFull, mask);
      }
    }
    if (!m.gaps[g].label.empty()) {
      // On the subtitle line: the column titles beside it are wider than
      // their boxes ("after reduce-scatter") and would run into it above.
      // Narrow gaps shrink it to fit (down to 10 px per unit).
      std::string label = m.gaps[g].label + " →";
      float size = 14 * u, w = b.measure(label, TextStyle::bold, size), room = x1 - x0 - 6 * u;
      if (w > room) size = std::max(10 * u, size * room / w);
      b.text({(x0 + x1) / 2, y_head + 21 * u}, label, withAlpha(th.text, ga), size, TextStyle::bold, 0.5f, 0);
    }
  }

  // Columns: header, rows, tiles.
  const bool bold_root = m.program == Program::single && usesRoot(m.spec.op);
  for (int r = 0; r < N; ++r) {
    bool root = bold_root && r == m.spec.root;
    float a = trace.active && !trace.row(0, r) && !trace.row(C - 1, r) ? 0.5f : 1.0f;
    b.text({cols[0].x - 10 * u, rowMid(r)}, "R" + std::to_string(r),
           withAlpha(root ? th.root_text : th.muted_text, a), 16 * u,
           root ? TextStyle::bold : TextStyle::regular, 1.0f, 0.5f);
  }
  for (int c = 0; c < C; ++c) {
    const ColumnModel& col = m.columns[c];
    const float ca = columnAlpha(c);
    float hx = cols[c].x + cols[c].box_w / 2;
    b.text({hx, y_head}, col.title, withAlpha(th.text, ca), 16 * u, TextStyle::bold, 0.5f, 0);
    if (!col.subtitle.empty())
      b.text({hx, y_head + 21 * u}, col.subtitle, withAlpha(th.muted_text, std::max(ca, 0.6f)),
             13.5f * u, TextStyle::regular, 0.5f, 0);
    for (int r = 0; r < int(col.rows.size()); ++r) {
      const RowModel& row = col.rows[r];
      Rect box{cols[c].x, rowY(r), cols[c].box_w, row_h};
      float ra = ca * (trace.row(c, r) || !row.present ? 1.0f : 0.45f);
      if (!row.present) {
        // Dashed: "not specified" (the article stresses: not "cleared").
        float da = ca * (trace.active ? 0.5f : 1.0f);
        b.tile(box, withAlpha(th.background, 0), withAlpha(th.row_border, da), 8 * u, 1.2f * u,
               kTileDashed);
        b.text(box.center(), "—", withAlpha(th.muted_text, da), 16 * u, TextStyle::regular, 0.5f, 0.5f);
        continue;
      }
      b.tile(box, withAlpha(th.row_box, ra), withAlpha(th.row_border, ra), 8 * u, 1 * u);
      for (int k = 0; k < int(row.labels.size()); ++k) {
        const BlockLabel& l = row.labels[k];
        Rect t{box.x + pad + k * (tile_w + tile_gap), box.y + pad, tile_w, tile_h};
        float a = ca * (trace.block(c, r, k) ? 1.0f : th.faded);
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
        b.tile(t, withAlpha(fill, a), withAlpha(border, a), 6 * u, bw, flags, stripes);
        std::string label = l.text(m.spec.redop);
        float size = std::min(tile_h * 0.5f, 19 * u);
        float w = b.measure(label, TextStyle::regular, size);
        if (w > tile_w - 6 * u) size *= (tile_w - 6 * u) / w;
        float lift = flags ? tile_h * 0.07f : 0;  // keep Σ clear of the stripes
        b.text({t.center().x, t.center().y - lift}, label, withAlpha(th.text, a), size,
               TextStyle::regular, 0.5f, 0.5f);
        if (l.bad > 0)
          b.text({t.x + t.w - 2 * u, t.y + 1 * u}, "!", withAlpha(th.bad, a), 13 * u, TextStyle::bold,
                 1.0f, 0);
        b.s.hits.push_back({t, c, r, k});
      }
    }
  }

  // Footer: the decomposition's check, and the article's caveat.
  float y_end = rowY(N) + 6 * u;
  if (m.program == Program::all_reduce_decomposed) {
    std::string msg;
    Rgba colr = th.muted_text;
    if (view.stage < 2) {
      msg = "↓ / PgDn: next step (" + std::to_string(view.stage + 1) + " of 3 shown)";
    } else if (!m.snapshot) {
      msg = "equals All-reduce's output? — not yet run";
    } else if (m.snapshot->verified) {
      msg = "✓ after all-gather = All-reduce's output (checked by the engine, element by element)";
      colr = letterColor(1);
    } else {
      msg = "✗ differs from All-reduce's output: " + std::to_string(m.snapshot->mismatches) +
            " mismatched elements";
      colr = th.bad;
    }
    b.text({cols[0].x, y_end}, msg, colr, 15 * u, TextStyle::bold);
    y_end += 24 * u;
  }
  b.text({p.size.x - margin, y_end}, "arrows show data relations, not the algorithm",
         th.muted_text, 13 * u, TextStyle::regular, 1.0f, 0);
  b.s.width = std::max(p.size.x, x - gap_w + margin);
  b.s.height = y_end + 22 * u;
  return std::move(b.s);
}

}  // namespace collviz::ui
