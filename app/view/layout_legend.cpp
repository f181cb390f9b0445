// The legend strip under the heading: the article's statements, told for
// the op and reduce op on screen. A reduction gets its key drawn with tiles
// (A₀ + B₀ + … = Σ₀, A × B × … = Π, …), a copy says what its letters name.
// A figure says what it shows: the trace, and when the traced rank has
// nothing to show in this op, that; an op with dashed boxes says what they
// mean, in the article's words.
#include "app/lang/lang.h"
#include "app/view/layout_builder.h"
#include "app/lang/line_break.h"
#include "app/view/round_layout.h"

namespace collviz::ui::layout {

std::string reduceGlyph(RedOp r) {
  switch (r) {
    case RedOp::sum:
    case RedOp::avg: return "+";
    case RedOp::prod: return "×";
    case RedOp::min: return "min";
    case RedOp::max: return "max";
  }
  return "+";
}

namespace {

std::string reducePhrase(RedOp r, bool shards) {
  switch (r) {
    case RedOp::sum: return shards ? tr("element-wise sum, same shard") : tr("element-wise sum");
    case RedOp::avg:
      return shards ? tr("element-wise mean (sum ÷ N), same shard") : tr("element-wise mean (sum ÷ N)");
    case RedOp::prod: return shards ? tr("element-wise product, same shard") : tr("element-wise product");
    case RedOp::min: return shards ? tr("element-wise minimum, same shard") : tr("element-wise minimum");
    case RedOp::max: return shards ? tr("element-wise maximum, same shard") : tr("element-wise maximum");
  }
  return "";
}

bool anyRowAbsent(const DiagramModel& m) {
  for (const ColumnModel& c : m.columns)
    for (const RowModel& r : c.rows)
      if (!r.present) return true;
  return false;
}

bool rowPresent(const DiagramModel& m, int column, int rank) {
  return column >= 0 && column < int(m.columns.size()) && rank >= 0 &&
         rank < int(m.columns[column].rows.size()) && m.columns[column].rows[rank].present;
}

// "traced: what reaches R2", or why a traced rank shows nothing ("" untraced).
std::string traceText(const Builder& b, bool* nothing) {
  const int k = b.view.trace_rank;
  *nothing = false;
  const bool rounds = isRoundView(b.m.program, b.m.spec.op, b.view);
  if (!b.trace.active && !(rounds && k >= 0 && k < b.m.spec.ranks)) return "";
  const std::string rank = "R" + std::to_string(k);
  const bool goes = b.view.trace_mode == TraceMode::goes;
  if (!rounds && goes && !rowPresent(b.m, 0, k)) {
    *nothing = true;
    return trf("traced: {0} has no input in this op, so no data of its own goes anywhere", {rank});
  }
  if (!rounds && !goes && !rowPresent(b.m, int(b.m.columns.size()) - 1, k)) {
    *nothing = true;
    return trf("traced: {0} has no output in this op, so nothing reaches it", {rank});
  }
  return trf(goes ? "traced: where {0}'s data goes" : "traced: what reaches {0}", {rank});
}

}  // namespace

void layoutLegend(Builder& b, float& y) {
  const float m = 18 * b.u;
  const OpSpec& spec = b.m.spec;
  const Collective& op = collective(spec.op);
  // Shards are named when the inputs hold several blocks (engine/verify/oracle.h).
  const bool shards = blockShard(spec, BlockRef{1, 0, false}) >= 0;
  const float ts = 15 * b.u, right = b.p.size.x - m, line_h = 30 * b.u;
  const bool root = b.m.program == Program::single && usesRoot(spec.op);
  std::string rows = tr("each row is one GPU (rank)");
  if (root) rows += " · root = R" + std::to_string(spec.root);
  const std::string letters =
      op.letters == Lettering::root_piece
          ? trf("A, B, C … = the pieces of R{0}'s tensor", {std::to_string(spec.root)})
          : (shards ? tr("colour follows the data block, subscript = shard")
                    : tr("colour follows the data block"));
  std::vector<std::string> parts = {rows, letters};
  bool nothing = false;
  const std::string traced = traceText(b, &nothing);
  size_t box_index = b.s.tiles.size();
  b.tile({m, y, right - m, line_h}, b.th.row_box, withAlpha(b.th.row_border, 0.6f), 8 * b.u, 1 * b.u);
  float lx = m + 12 * b.u, ly = y + line_h / 2;
  auto wrapIfNeeded = [&](float w) {
    if (lx + w > right - 8 * b.u && lx > m + 12 * b.u) {
      lx = m + 12 * b.u;
      ly += line_h;
    }
  };
  // A statement goes on the line when it fits, else on the next; one wider
  // than a whole line is broken where Chinese and English break.
  auto statement = [&](const std::string& t, Rgba colour, TextStyle st) {
    const float w = b.measure(t, st, ts), row = right - 8 * b.u - (m + 12 * b.u);
    WrapParams wp;
    wp.width = w > row ? row : 0;
    wp.measure = [&](const std::string& l) { return b.measure(l, st, ts); };
    const std::vector<std::string> lines = wrapText(t, wp);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const float lw = lines.size() == 1 ? w : b.measure(lines[i], st, ts);
      if (i > 0) lx = right;  // each further line starts a new one
      wrapIfNeeded(lw);
      b.text({lx, ly}, lines[i], colour, ts, st, 0, 0.5f);
      lx += lw + 26 * b.u;
    }
  };
  for (const std::string& t : parts) statement(t, b.th.muted_text, TextStyle::regular);
  if (!traced.empty()) statement(traced, nothing ? b.th.bad : b.th.text, TextStyle::bold);
  if (!isRoundView(b.m.program, spec.op, b.view) && anyRowAbsent(b.m)) {
    // The article: 虚线框表示无指定输入或输出，并不表示清空原数据.
    const std::string t = tr("dashed box = no input or output specified, not cleared");
    const float kw = 34 * b.u, kh = 22 * b.u, gap = 8 * b.u;
    const float w = b.measure(t, TextStyle::regular, ts);
    wrapIfNeeded(kw + gap + w);
    const Rect r{lx, ly - kh / 2, kw, kh};
    b.tile(r, withAlpha(b.th.background, 0), b.th.row_border, 5 * b.u, 1.2f * b.u, kTileDashed);
    b.text(r.center(), "—", b.th.muted_text, 14 * b.u, TextStyle::regular, 0.5f, 0.5f);
    b.text({lx + kw + gap, ly}, t, b.th.muted_text, ts, TextStyle::regular, 0, 0.5f);
    lx += kw + gap + w + 26 * b.u;
  }
  if (op.reduces) {
    const int shown = std::clamp(spec.ranks, 1, 4);
    const float kw = 30 * b.u, kh = 22 * b.u, plus = 16 * b.u;
    const std::string glyph = reduceGlyph(spec.redop), sub = shards ? "₀" : "";
    const std::string phrase = reducePhrase(spec.redop, shards);
    const float phrase_w = b.measure(phrase, TextStyle::regular, 13 * b.u);
    // The key and its phrase move to a new line together when they do not fit.
    wrapIfNeeded(shown * (kw + plus) + kw + plus + 10 * b.u + phrase_w);
    uint32_t all = 0;
    for (int i = 0; i < shown; ++i) {
      Rect r{lx, ly - kh / 2, kw, kh};
      b.tile(r, tileFill(b.th, i), letterColor(i), 5 * b.u, 1.3f * b.u);
      b.text(r.center(), std::string(1, char('A' + i)) + sub, b.th.text, 14 * b.u,
             TextStyle::regular, 0.5f, 0.5f);
      all |= 1u << i;
      lx += kw;
      std::string t = i + 1 < shown ? glyph : (spec.ranks > 4 ? glyph + " … =" : "=");
      float ow = std::max(plus, b.measure(t, TextStyle::regular, ts) + 10 * b.u);
      b.text({lx + ow / 2, ly}, t, b.th.muted_text, ts, TextStyle::regular, 0.5f, 0.5f);
      lx += ow;
    }
    BlockLabel key;
    key.kind = BlockLabel::Kind::reduced;
    key.shard = shards ? 0 : -1;
    const std::string result = key.text(spec.redop);
    const float rw = std::max(kw, b.measure(result, TextStyle::regular, 14 * b.u) + 10 * b.u);
    Rect r{lx, ly - kh / 2, rw, kh};
    b.tile(r, b.th.neutral_fill, b.th.neutral_border, 5 * b.u, 1.3f * b.u, kTileStripes, all);
    b.text({r.center().x, r.center().y - 2 * b.u}, result, b.th.text, 14 * b.u,
           TextStyle::regular, 0.5f, 0.5f);
    lx += rw + 10 * b.u;
    wrapIfNeeded(phrase_w);  // still too long beside the key: a line of its own
    b.text({lx, ly}, phrase, b.th.muted_text, 13 * b.u, TextStyle::regular, 0, 0.5f);
  }
  float bottom = ly + line_h / 2;
  b.s.tiles[box_index].rect.h = bottom - y;
  y = bottom + 16 * b.u;
}

}  // namespace collviz::ui::layout
