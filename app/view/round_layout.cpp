// layoutRounds: the heading and legend (shared with the op diagram), the
// round line, the two buffer columns with the round's arrows, the blocks in
// flight while playing, then the side panel (link_view.cpp) and the footer.
#include "app/view/round_layout.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "app/lang/lang.h"
#include "app/lang/line_break.h"
#include "app/view/fit.h"
#include "app/view/layout_builder.h"
#include "app/view/link_view.h"

namespace collviz::ui {

bool isRoundView(Program program, Op op, const ViewSettings& view) {
  return program == Program::single && isRoundAlgo(view.algo, op);
}

DiagramModel roundDiagramModel(const RoundModel& rm) {
  DiagramModel dm;
  dm.spec = rm.spec;
  dm.snapshot = rm.snapshot;
  dm.hosts = rm.hosts;
  dm.gaps.push_back({rm.spec, FlowKind::pairs, ""});
  const bool start = rm.round == 0;
  for (int c = 0; c < 2; ++c) {
    ColumnModel col;
    const int k = c == 0 ? std::max(0, rm.round - 1) : rm.round;
    col.title = start ? (c == 0 ? tr("input") : tr("start"))
                : rm.message_rounds != rm.rounds  // local steps: counted as steps
                      ? trf(c == 0 ? "before step {0}" : "after step {0}", {std::to_string(rm.round)})
                      : trf(c == 0 ? "before round {0}" : "after round {0}", {std::to_string(rm.round)});
    col.subtitle = rm.ran() ? "" : tr("not yet run");
    col.expected = !rm.ran() || k == 0;  // the start has no snapshot of its own
    col.step = std::max(0, k - 1);
    col.output_side = true;
    for (const auto& labels : c == 0 ? rm.before : rm.now) col.rows.push_back({true, labels, {}});
    dm.columns.push_back(std::move(col));
  }
  return dm;
}

Rgba arrowColor(const Theme& th, const RoundModel& rm, const RoundArrow& a) {
  int letter = -2;
  for (int s : a.src) {
    const BlockLabel& l = rm.before[std::size_t(a.from)][std::size_t(s)];
    if (l.kind != BlockLabel::Kind::source || (letter != -2 && l.letter != letter)) return th.flow_neutral;
    letter = l.letter;
  }
  return letter >= 0 ? letterColor(letter) : th.flow_neutral;
}

bool roundSlotLit(const RoundModel& rm, const std::vector<std::vector<BlockLabel>>& state,
                  const ViewSettings& view, int rank, int slot) {
  const int k = view.trace_rank;
  if (k < 0 || k >= rm.spec.ranks) return true;
  if (view.trace_mode == TraceMode::reaches) return rank == k;
  return (state[std::size_t(rank)][std::size_t(slot)].contributors >> k) & 1u;
}

bool roundArrowLit(const RoundModel& rm, const ViewSettings& view, const RoundArrow& a) {
  const int k = view.trace_rank;
  if (k < 0 || k >= rm.spec.ranks) return true;
  if (view.trace_mode == TraceMode::reaches) return a.to == k;
  for (int s : a.src)
    if (roundSlotLit(rm, rm.before, view, a.from, s)) return true;
  return false;
}

namespace layout {
namespace {

struct RoundGeometry {
  Geometry g;
  float panel_x = 0, panel_w = 0;  // the side panel
  bool below = false;              // the panel's parts side by side under the grid
  float panel_h = 0;               // below: its height
  int parts = 1;                   // slots per block: a block's chunks side by side in one tile
  Rect tile(int column, int rank, int slot) const {
    const int block = slot / parts, part = slot % parts;
    return {g.cols[std::size_t(column)].x + g.pad + block * (parts * g.tile_w + g.tile_gap) + part * g.tile_w,
            g.rowY(rank) + g.pad, g.tile_w, g.tile_h};
  }
  Rect block(int column, int rank, int block) const {
    const Rect t = tile(column, rank, block * parts);
    return {t.x, t.y, parts * g.tile_w, g.tile_h};
  }
};

RoundGeometry roundGeometry(const Builder& b, const RoundModel& rm, float y, bool below) {
  const float u = b.u, margin = 18 * u, label_w = 44 * u + hostNamesWidth(b, 44 * u);
  const int ranks = rm.spec.ranks, slots = std::max(1, rm.slots);
  RoundGeometry rg;
  Geometry& g = rg.g;
  rg.parts = std::max(1, rm.parts);
  const int blocks = std::max(1, slots / rg.parts);
  rg.below = below;
  rg.panel_w = below ? 0 : std::clamp(b.p.size.x * 0.3f, 250 * u, 400 * u);
  rg.panel_x = below ? b.p.size.x - margin + 24 * u : b.p.size.x - margin - rg.panel_w;
  rg.panel_h = below ? 250 * u : 0;
  g.y_head = y;
  g.y_rows = y + 44 * u;
  g.row_gap = 8 * u;
  g.pad = 5 * u;
  g.tile_gap = 4 * u;
  const float avail_h = b.p.size.y - g.y_rows - 46 * u - (below ? rg.panel_h + 16 * u : 0) - hostGapsHeight(b);
  g.row_h = std::clamp((avail_h - (ranks - 1) * g.row_gap) / std::max(ranks, 1), 26 * u, 66 * u);
  g.tile_h = g.row_h - 2 * g.pad;
  const float grid_w = rg.panel_x - 24 * u - margin - label_w;
  const float gap_min = 70 * u, fixed = 2 * (2 * g.pad + (blocks - 1) * g.tile_gap);
  // A block of chunks: each chunk a part of the block's tile, the block at
  // most 1.6 tiles wide.
  const float widest = rg.parts > 1 ? g.tile_h * 1.6f * 1.25f / float(rg.parts) : g.tile_h * 1.25f;
  g.tile_w = std::min(widest, (grid_w - gap_min - fixed) / (2 * slots));
  g.tile_w = std::max(g.tile_w, 12 * u);
  const float box_w = 2 * g.pad + slots * g.tile_w + (blocks - 1) * g.tile_gap;
  g.gap_w = std::clamp(grid_w - 2 * box_w, gap_min, 220 * u);
  const float x = margin + label_w + std::max(0.0f, (grid_w - 2 * box_w - g.gap_w) / 2);
  g.cols = {{x, box_w}, {x + box_w + g.gap_w, box_w}};
  g.x_end = x + 2 * box_w + g.gap_w;
  setHostShifts(b, g);
  return rg;
}

// The heading line says each thing once (RoundModel::title); a local step
// says what its marks mean.
void roundLine(Builder& b, const RoundModel& rm, float& y) {
  const float u = b.u, x = 18 * u;
  b.text({x, y}, rm.title, b.th.text, 17 * u, TextStyle::bold);
  if (rm.local) {
    const float w = b.measure(rm.title, TextStyle::bold, 17 * u);
    b.text({x + w + 18 * u, y + 2 * u},
           tr("no message: each marked slot is copied from the slot number on its badge"),
           b.th.muted_text, 14 * u);
  }
  y += 30 * u;
}

// A tile of the working buffer; an empty slot is a dashed "—".
void slotTile(Builder& b, const Geometry& g, Rect t, const BlockLabel& l, float alpha) {
  if (l.empty && l.bad == 0) {
    b.tile(t, withAlpha(b.th.background, 0), withAlpha(b.th.row_border, alpha), 6 * b.u, 1.1f * b.u,
           kTileDashed);
    b.text(t.center(), "—", withAlpha(b.th.muted_text, alpha), 14 * b.u, TextStyle::regular, 0.5f, 0.5f);
    return;
  }
  noteGridTile(b, g, blockTile(b, g, t, l, alpha));
}

bool sameLabel(const BlockLabel& a, const BlockLabel& z) {
  return a.kind == z.kind && a.letter == z.letter && a.shard == z.shard && a.contributors == z.contributors &&
         a.bad == z.bad && a.decoded == z.decoded && a.partial == z.partial && a.empty == z.empty;
}

// A block of an MSCCL file split in chunks: one tile with its label once
// when every chunk holds the same, else each chunk its own part of the
// tile; a thin line between the parts and each chunk's index in its corner.
void blockOfParts(Builder& b, const RoundGeometry& rg, int c, int r, int block, const std::vector<BlockLabel>& shown,
                  const std::vector<float>& alpha) {
  const float u = b.u;
  const int first = block * rg.parts;
  bool same = true;
  for (int k = first + 1; k < first + rg.parts; ++k)
    same = same && sameLabel(shown[std::size_t(k)], shown[std::size_t(first)]) &&
           alpha[std::size_t(k)] == alpha[std::size_t(first)];
  if (same) {
    Geometry whole = rg.g;
    whole.tile_w = rg.parts * rg.g.tile_w;
    slotTile(b, whole, rg.block(c, r, block), shown[std::size_t(first)], alpha[std::size_t(first)]);
  } else {
    for (int k = first; k < first + rg.parts; ++k)
      slotTile(b, rg.g, rg.tile(c, r, k), shown[std::size_t(k)], alpha[std::size_t(k)]);
  }
  const float index_px = std::clamp(rg.g.tile_h * 0.22f, 7 * u, 11 * u);
  for (int k = first; k < first + rg.parts; ++k) {
    const Rect t = rg.tile(c, r, k);
    const float a = alpha[std::size_t(k)];
    if (k > first)
      b.tile({t.x - 0.5f * u, t.y + 5 * u, 1 * u, t.h - 10 * u}, withAlpha(b.th.row_border, a),
             withAlpha(b.th.row_border, a), 0, 0);
    b.text({t.x + 3.5f * u, t.y + 2 * u}, std::to_string(k - first), withAlpha(b.th.muted_text, a), index_px,
           TextStyle::regular, 0, 0);
  }
}

void columns(Builder& b, const RoundModel& rm, const DiagramModel& dm, const RoundGeometry& rg) {
  const Geometry& g = rg.g;
  const float u = b.u;
  const bool tracing = b.view.trace_rank >= 0 && b.view.trace_rank < rm.spec.ranks;
  for (int r = 0; r < rm.spec.ranks; ++r)
    b.text({g.cols[0].x - 10 * u, g.rowMid(r)}, "R" + std::to_string(r),
           withAlpha(b.th.muted_text, !tracing || r == b.view.trace_rank ? 1.0f : 0.5f), 16 * u,
           TextStyle::regular, 1.0f, 0.5f);
  layoutHosts(b, g);
  const float tween = std::clamp(b.view.tween, 0.0f, 1.0f);
  for (int c = 0; c < 2; ++c) {
    const ColumnModel& col = dm.columns[std::size_t(c)];
    const float ca = rm.ran() ? 1.0f : 0.55f;
    const float hx = g.cols[std::size_t(c)].x + g.cols[std::size_t(c)].box_w / 2;
    b.text({hx, g.y_head}, col.title, withAlpha(b.th.text, ca), 16 * u, TextStyle::bold, 0.5f, 0);
    if (!col.subtitle.empty())
      b.text({hx, g.y_head + 21 * u}, col.subtitle, b.th.muted_text, 13.5f * u, TextStyle::regular, 0.5f, 0);
    const auto& state = c == 0 ? rm.before : rm.now;
    // Slot numbers over the first row (a local step's badges name them),
    // block numbers over a file's blocks of chunks; before a run the
    // subtitle "not yet run" holds that place.
    for (int k = 0; col.subtitle.empty() && k < rm.slots / rg.parts; ++k) {
      const Rect t = rg.parts > 1 ? rg.block(c, 0, k) : rg.tile(c, 0, k);
      b.text({t.x + t.w / 2, g.rowY(0) - 2 * u}, std::to_string(k), withAlpha(b.th.muted_text, ca),
             std::min(11 * u, t.w * 0.6f), TextStyle::regular, 0.5f, 1.0f);
    }
    for (int r = 0; r < rm.spec.ranks; ++r) {
      const Rect box{g.cols[std::size_t(c)].x, g.rowY(r), g.cols[std::size_t(c)].box_w, g.row_h};
      b.tile(box, withAlpha(b.th.row_box, ca), withAlpha(b.th.row_border, ca), 8 * u, 1 * u);
      const int slots = int(state[std::size_t(r)].size());
      std::vector<BlockLabel> shown(static_cast<std::size_t>(slots));
      std::vector<float> alpha(static_cast<std::size_t>(slots));
      for (int k = 0; k < slots; ++k) {
        alpha[std::size_t(k)] = ca * (roundSlotLit(rm, state, b.view, r, k) ? 1.0f : b.th.faded);
        // While its blocks travel, a written slot keeps its old value; it
        // changes when they arrive (the round's rest).
        const bool arriving = c == 1 && tween > 0 && tween < 1 &&
                              rm.marks[std::size_t(r)][std::size_t(k)] != SlotMark::none;
        shown[std::size_t(k)] = (arriving ? rm.before : state)[std::size_t(r)][std::size_t(k)];
        b.s.hits.push_back({rg.tile(c, r, k), c, r, k});
      }
      if (rg.parts > 1 && slots % rg.parts == 0) {
        for (int blk = 0; blk < slots / rg.parts; ++blk) blockOfParts(b, rg, c, r, blk, shown, alpha);
      } else {
        for (int k = 0; k < slots; ++k) slotTile(b, g, rg.tile(c, r, k), shown[std::size_t(k)], alpha[std::size_t(k)]);
      }
    }
  }
}

// A slot's outline in the arrow's colour: sent (left) or written (right,
// with "+" when reduced into, "→" when received).
// The badge reads from the back of a hall: 20 units across (it was 13, a
// 12 px dot on a projector), its sign 15, ringed in the background colour
// so it stands off the tile under it.
void outline(Builder& b, Rect t, Rgba c, const char* badge) {
  const float u = b.u;
  b.tile({t.x - 2 * u, t.y - 2 * u, t.w + 4 * u, t.h + 4 * u}, withAlpha(c, 0), c, 7 * u, 2.4f * u);
  if (!badge) return;
  const float d = 20 * u, fs = 15 * u;
  const bool number = std::string(badge).size() > 1 && std::string(badge) != "→";  // a slot number: wider
  const float w = number ? std::max(d, b.measure(badge, TextStyle::bold, fs) + 8 * u) : d;
  const Rect r{t.x + t.w - w * 0.6f, t.y - d * 0.7f, w, d};  // mostly above the tile: clear of its label
  b.tile(r, c, b.th.background, d / 2, 1.6f * u);
  b.text(r.center(), badge, b.th.background, fs, TextStyle::bold, 0.5f, 0.5f);
}

Vec2 bezier(Vec2 p0, Vec2 p1, Vec2 p2, Vec2 p3, float t) {
  const float s = 1 - t, a = s * s * s, bb = 3 * s * s * t, c = 3 * s * t * t, d = t * t * t;
  return {a * p0.x + bb * p1.x + c * p2.x + d * p3.x, a * p0.y + bb * p1.y + c * p2.y + d * p3.y};
}

void arrows(Builder& b, const RoundModel& rm, const RoundGeometry& rg) {
  const Geometry& g = rg.g;
  const float u = b.u;
  const int n = rm.spec.ranks;
  uint64_t most = 1;
  for (const RoundArrow& a : rm.arrows) most = std::max(most, a.bytes);
  const std::size_t ranks = std::size_t(n);
  std::vector<int> out_count(ranks, 0), in_count(ranks, 0), out_i(ranks, 0), in_i(ranks, 0);
  for (const RoundArrow& a : rm.arrows) ++out_count[std::size_t(a.from)], ++in_count[std::size_t(a.to)];
  const float spread = std::min(5.0f * u, g.row_h * 0.7f / std::max(1, n));
  const float x0 = g.cols[0].x + g.cols[0].box_w + 3 * u, x1 = g.cols[1].x - 3 * u;
  struct LocalBadge {
    std::string from;  // the slots it came from, "5,6,7"
    bool reduce = false;
    Rgba colour;
  };
  std::map<std::pair<int, int>, LocalBadge> badges;  // (rank, written slot)
  // Outlines are drawn last: a file's block whose chunks are all outlined
  // alike gets one outline round the whole tile (one badge), not one per part.
  struct Pending {
    int column = 0, rank = 0, slot = 0;
    Rgba colour;
    std::string badge;
  };
  std::vector<Pending> pending;
  auto mark = [&](int column, int rank, int slot, Rgba colour, std::string badge) {
    pending.push_back({column, rank, slot, colour, std::move(badge)});
  };
  for (const RoundArrow& a : rm.arrows) {
    const bool lit = roundArrowLit(rm, b.view, a);
    if (a.local) {  // within the rank's row: each moved slot, its source slot on the badge
      const Rgba c = withAlpha(b.th.flow_neutral, lit ? 0.9f : 0.1f);
      b.flow({x0, g.rowMid(a.from)}, {x1, g.rowMid(a.to)}, c, 1.6f * u, true);
      if (!lit) continue;
      for (std::size_t i = 0; i < a.src.size() && i < a.dst.size(); ++i) {
        const BlockLabel& l = rm.before[std::size_t(a.from)][std::size_t(a.src[i])];
        const Rgba sc = l.kind == BlockLabel::Kind::source && l.letter >= 0 ? letterColor(l.letter) : c;
        mark(0, a.from, a.src[i], sc, "");
        // One badge per written slot, naming every slot it took (a file's
        // reduction of several scratch chunks into one: "+←5,6,7").
        LocalBadge& badge = badges[{a.to, a.dst[i]}];
        badge.from += (badge.from.empty() ? "" : ",") + std::to_string(a.src[i]);
        badge.reduce = badge.reduce || a.reduce;
        badge.colour = badge.from.find(',') == std::string::npos ? sc : c;
      }
      continue;
    }
    const Rgba c = withAlpha(arrowColor(b.th, rm, a), lit ? 0.9f : 0.1f);
    // An MSCCL file's channels apart: each channel's arrows at a height of their own.
    const float ch = rm.channels > 1 && a.channel >= 0
                         ? (float(a.channel) - float(rm.channels - 1) / 2.0f) * std::min(g.row_h * 0.5f / float(rm.channels), 12 * u)
                         : 0.0f;
    const float oy = ch + (out_i[std::size_t(a.from)]++ - (out_count[std::size_t(a.from)] - 1) / 2.0f) * spread;
    const float iy = ch + (in_i[std::size_t(a.to)]++ - (in_count[std::size_t(a.to)] - 1) / 2.0f) * spread;
    const float w = 1.6f * u + 2.4f * u * float(a.bytes) / float(most);
    b.flow({x0, g.rowMid(a.from) + oy}, {x1, g.rowMid(a.to) + iy}, c, w, true, hostDash(b, a.from, a.to));
    if (!lit) continue;
    for (int s : a.src) mark(0, a.from, s, c, "");
    for (int d : a.dst) mark(1, a.to, d, c, a.reduce ? "+" : "→");
  }
  for (const auto& [at, badge] : badges) {
    const std::string text = (badge.reduce ? "+←" : "←") + badge.from;
    mark(1, at.first, at.second, badge.colour, text);
  }
  std::vector<bool> done(pending.size(), false);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (done[i]) continue;
    const Pending& p = pending[i];
    const char* badge = p.badge.empty() ? nullptr : p.badge.c_str();
    if (rg.parts > 1) {
      std::vector<std::size_t> alike;
      uint64_t slots = 0;  // the block's parts outlined alike (bit per part)
      for (std::size_t j = i; j < pending.size(); ++j) {
        const Pending& q = pending[j];
        if (done[j] || q.column != p.column || q.rank != p.rank || q.slot / rg.parts != p.slot / rg.parts ||
            !(q.colour == p.colour) || q.badge != p.badge)
          continue;
        alike.push_back(j);
        slots |= uint64_t(1) << (q.slot % rg.parts % 64);
      }
      if (rg.parts <= 64 && slots == (rg.parts == 64 ? ~uint64_t(0) : (uint64_t(1) << rg.parts) - 1)) {
        for (std::size_t j : alike) done[j] = true;
        outline(b, rg.block(p.column, p.rank, p.slot / rg.parts), p.colour, badge);
        continue;
      }
    }
    done[i] = true;
    outline(b, rg.tile(p.column, p.rank, p.slot), p.colour, badge);
  }
}

// While playing: each message's blocks on their way, along the arrow's
// curve from the sent slot to the written one (eased in and out).
void inFlight(Builder& b, const RoundModel& rm, const RoundGeometry& rg) {
  const float t0 = std::clamp(b.view.tween, 0.0f, 1.0f);
  if (t0 <= 0 || t0 >= 1) return;
  const float t = t0 * t0 * (3 - 2 * t0);
  const Geometry& g = rg.g;
  for (const RoundArrow& a : rm.arrows) {
    for (std::size_t i = 0; i < a.src.size() && i < a.dst.size(); ++i) {
      const Vec2 p0 = rg.tile(0, a.from, a.src[i]).center(), p3 = rg.tile(1, a.to, a.dst[i]).center();
      const float dx = std::max(8 * b.u, (p3.x - p0.x) * 0.5f);
      const Vec2 at = bezier(p0, {p0.x + dx, p0.y}, {p3.x - dx, p3.y}, p3, t);
      const Rect r{at.x - g.tile_w * 0.45f, at.y - g.tile_h * 0.45f, g.tile_w * 0.9f, g.tile_h * 0.9f};
      blockTile(b, g, r, rm.before[std::size_t(a.from)][std::size_t(a.src[i])], 1.0f);
    }
  }
}

void footer(Builder& b, const RoundModel& rm, const RoundGeometry& rg) {
  const float u = b.u, margin = 18 * u;
  std::string msg;
  Rgba colour = b.th.muted_text;
  if (!rm.error.empty()) {
    msg = rm.error;
    colour = b.th.bad;
  } else if (!rm.ran()) {
    msg = tr("expected rounds (the schedule's reference) — not yet run");
  } else if (rm.snapshot->verified) {
    msg = trf("✓ every round decoded from the bytes matches the reference; the output equals the native {0}",
              {std::string(name(rm.spec.op))});
    colour = letterColor(1);
  } else {
    const std::string wrong = std::to_string(rm.snapshot->mismatches + rm.snapshot->final_diffs);
    msg = rm.snapshot->problem.empty()
              ? trf("✗ {0} elements differ from the reference or the native op", {wrong})
              : trf("✗ {0} elements differ from the reference or the native op; first: {1}",
                    {wrong, render(rm.snapshot->problem)});
    colour = b.th.bad;
  }
  // Under the grid when it fits left of the side panel, else under both.
  const float under_grid = rg.g.rowY(rm.spec.ranks) + 6 * u;
  const bool beside = !rg.below && rg.g.cols[0].x + b.measure(msg, TextStyle::bold, 14 * u) < rg.panel_x - 12 * u;
  float y = beside ? under_grid : std::max(under_grid, b.s.height);
  b.text({rg.g.cols[0].x, y}, msg, colour, 14 * u, TextStyle::bold);
  b.s.height = std::max(b.s.height, y);
  b.s.width = std::max(b.p.size.x, rg.g.x_end + rg.panel_w + margin);
  // The key to the short labels the tiles took (label_text.h): each as the
  // full label it stands for, as the article writes it.
  if (!b.short_labels.empty()) {
    // One example, on one line beside the verdict where it fits (a key of
    // several lines made the fit shrink a 16-rank round below its least label).
    std::string key = b.short_labels.front().first + " = " + b.short_labels.front().second;
    if (b.short_labels.size() > 1) key += " …";
    key = trf("short labels: {0} (the stripes name every contributor)", {key});
    const float ks = b.px(13.0f, key), right = beside ? rg.panel_x - 12 * u : b.p.size.x - margin;
    WrapParams wp;
    wp.width = std::max(40 * u, right - rg.g.cols[0].x);
    wp.measure = [&](const std::string& l) { return b.measure(l, TextStyle::regular, ks); };
    const float at = rg.g.cols[0].x + b.measure(msg, TextStyle::bold, 14 * u) + 24 * u;
    if (at + b.measure(key, TextStyle::regular, ks) <= right) {
      b.text({at, y + 1 * u}, key, b.th.muted_text, ks, TextStyle::regular);
    } else {
      y += 22 * u;
      const std::vector<std::string> lines = wrapText(key, wp);
      b.text({rg.g.cols[0].x, y}, lines.empty() ? key : lines.front() + (lines.size() > 1 ? " …" : ""), b.th.muted_text, ks,
             TextStyle::regular);
      y -= 22 * u - ks * 1.35f;
    }
  }
  b.s.height = y + 24 * u;
}

}  // namespace
}  // namespace layout

namespace {
Scene layoutRoundsAs(const RoundModel& rm, const DiagramModel& dm, const ViewSettings& view, const Theme& th,
                     const LayoutParams& p, bool below) {
  const TraceSets none;
  layout::Builder b{dm, none, view, th, p, p.scale, {}};
  b.s.scale = p.scale;
  float y = 18 * b.u;
  layout::Mark at = layout::mark(b);
  layout::layoutHeadingAndLegend(b, y);
  layout::regionSince(b, "heading", at);
  if (!rm.error.empty()) {
    b.text({18 * b.u, y}, rm.error, th.bad, 16 * b.u, TextStyle::bold);
    b.s.width = p.size.x;
    b.s.height = y + 30 * b.u;
    return std::move(b.s);
  }
  at = layout::mark(b);
  layout::roundLine(b, rm, y);
  layout::regionSince(b, "round line", at);
  const layout::RoundGeometry rg = layout::roundGeometry(b, rm, y, below);
  at = layout::mark(b);
  layout::columns(b, rm, dm, rg);
  layout::arrows(b, rm, rg);  // curves go under the tiles; outlines over them
  layout::regionSince(b, "grid", at);
  if (below) {
    const float top = rg.g.rowY(rm.spec.ranks) + 16 * b.u, m = 18 * b.u;
    b.s.height = layout::layoutPanelBelow(b, rm, {m, top, p.size.x - 2 * m, rg.panel_h});
  } else {
    b.s.height = layout::layoutSidePanel(b, rm, {rg.panel_x, y, rg.panel_w, p.size.y - y});
  }
  at = layout::mark(b);
  layout::footer(b, rm, rg);
  layout::regionSince(b, "footer", at);
  // Last, over everything (texts included): the blocks on their way.
  b.s.overlay_tiles = b.s.tiles.size();
  b.s.overlay_texts = b.s.texts.size();
  layout::inFlight(b, rm, rg);
  return std::move(b.s);
}
}  // namespace

Scene layoutRounds(const RoundModel& rm, const DiagramModel& dm, const ViewSettings& view,
                   const Theme& th, const LayoutParams& p) {
  // The link view, bytes and times beside the grid, or side by side under
  // it when that reads better (a narrow view, many slots): whichever the
  // fit scores higher at this scale.
  Scene side = layoutRoundsAs(rm, dm, view, th, p, false);
  if (!rm.error.empty()) return side;
  Scene below = layoutRoundsAs(rm, dm, view, th, p, true);
  Scene best = fitScore(below, p.size, p.measure) > fitScore(side, p.size, p.measure) ? std::move(below) : std::move(side);
  if (sceneFits(best, p.size, p.measure) || !p.text_floor) return best;
  // Neither fits with the side parts' texts at their floor (16 ranks in a
  // small window): the last resort, their texts shrink with the figure.
  LayoutParams shrink = p;
  shrink.text_floor = false;
  Scene small = layoutRounds(rm, dm, view, th, shrink);
  return fitScore(small, p.size, p.measure) > fitScore(best, p.size, p.measure) ? small : best;
}

}  // namespace collviz::ui
