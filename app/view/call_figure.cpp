// A captured call's grid (call_figure.h): title, rows, blocks and values,
// arrivals, the straggler line.
#include "app/view/call_figure.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/lang/line_break.h"
#include "app/view/call_figure_parts.h"
#include "app/view/text.h"
#include "engine/job/job.h"

namespace collviz::ui {

namespace {

using namespace call_figure_parts;
using job::CapturedCall;
using job::CapturedRank;

constexpr float kMargin = 24, kLabelW = 96, kGap = 44, kPad = 6, kArrivalW = 210;
constexpr float kCellW = 60, kLineH = 15, kHeadH = 17, kFootH = 14;
constexpr float kMinWidth = 900;

struct Pen {
  const CallFigureParams& p;
  Theme theme;
  NcclFigure fig;
  float right = kMinWidth;

  std::string said(const Text& t) const { return p.say ? p.say(t) : t.english(); }
  void text(float x, float y, const std::string& s, float size, Rgba col, int anchor = 0, bool bold = false) {
    NcclShape t;
    t.kind = NcclShape::Kind::text, t.x0 = x, t.y0 = y, t.text = s, t.size = size, t.fill = col, t.anchor = anchor, t.bold = bold;
    fig.shapes.push_back(std::move(t));
    if (anchor == 0) right = std::max(right, x + approxWidth(s, size) + kMargin);
  }
  NcclShape& box(float x, float y, float w, float h, Rgba stroke, const Rgba* fill, std::string cls, std::string data = {}) {
    NcclShape t;
    t.kind = NcclShape::Kind::rect, t.x0 = x, t.y0 = y, t.x1 = w, t.y1 = h, t.radius = 4, t.stroke = stroke;
    if (fill) t.fill = *fill, t.filled = true;
    t.cls = std::move(cls), t.data = std::move(data);
    fig.shapes.push_back(std::move(t));
    right = std::max(right, x + w + kMargin);
    return fig.shapes.back();
  }
};

Rgba waitColour() { return rgb(0xd9962b); }

// A text in lines within `width` (a reason in a narrow box; 中文 has no space to stop at).
void wrapped(Pen& d, float x, float y, const std::string& s, float size, float width, Rgba col, bool bold = false) {
  WrapParams w;
  w.width = width;
  w.measure = [size](const std::string& t) { return approxWidth(t, size); };
  w.max_lines = 3;
  for (const std::string& line : wrapText(s, w)) d.text(x, y, line, size, col, 0, bold), y += size + 3;
}

std::string attr(const char* name, const std::string& v) { return std::string(" ") + name + "=\"" + v + "\""; }

// The values' range over the call (both sides, every member): one scale, so
// equal values look alike across ranks.
std::pair<double, double> valueRange(const CapturedCall& c) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  const std::uint32_t size = c.dtypeSize;
  if (size == 0) return {0, 0};
  for (const CapturedRank& r : c.ranks)
    for (const auto* buf : {&r.in, &r.out})
      for (std::size_t at = 0; at + size <= buf->size() && at < std::size_t(64) * size; at += size) {
        double v;
        capturedValue(c.dtype, size, buf->data() + at, &v);
        if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      }
  return lo <= hi ? std::make_pair(lo, hi) : std::make_pair(0.0, 0.0);
}

// Why a buffer with elements holds no kept byte.
Text noBytesWhy(const CapturedCall& c, const CapturedRank& r, bool output) {
  if (r.flags & tap::kGraphCapture) return say("issued in a CUDA graph capture: nothing copied");
  if (r.flags & tap::kCudaCopyFailed) return say("the tap's CUDA copy failed");
  if (output && !r.returned) return say("not returned yet");
  if (r.flags & tap::kBytesLeftOut) return say("bytes left out (a derived type, or no memory)");
  (void)c;
  return say("no bytes kept (--bytes 0)");
}

struct Layout {
  int inBlocks = 1, outBlocks = 1;  // the most blocks of a row, each side
  float blockW = 120;
  int perLine = 1, lines = 1;
  float inX = 0, outX = 0, arrivalX = 0, rowH = 0;
};

Layout layout(const CapturedCall& c, const CallFigureParams& p, int rows) {
  Layout l;
  for (int m = 0; m < rows; ++m) {
    l.inBlocks = std::max<int>(l.inBlocks, int(sideOf(c, m, false).blocks.size()));
    l.outBlocks = std::max<int>(l.outBlocks, int(sideOf(c, m, true).blocks.size()));
  }
  l.inBlocks = std::min(l.inBlocks, p.blocks), l.outBlocks = std::min(l.outBlocks, p.blocks);
  const int most = std::max(l.inBlocks, l.outBlocks);
  l.blockW = std::clamp(560.0f / float(most), kCellW + 2 * kPad, 2 * kCellW + 2 * kPad);
  l.perLine = std::max(1, int((l.blockW - 2 * kPad) / kCellW));
  // Lines for the values the blocks hold (a call of one element: one line).
  std::uint64_t most1 = 1;
  for (int m = 0; m < rows; ++m)
    for (bool out : {false, true}) {
      const Side s = sideOf(c, m, out);
      const std::uint64_t kept = (out ? c.ranks[std::size_t(m)].out : c.ranks[std::size_t(m)].in).size() / std::max<std::uint32_t>(c.dtypeSize, 1);
      most1 = std::max(most1, std::min(s.blockElems, kept));
    }
  const int values = int(std::min<std::uint64_t>(most1, std::uint64_t(std::max(p.values, 1))));
  l.lines = std::max(1, (values + l.perLine - 1) / l.perLine);
  l.inX = kMargin + kLabelW + 10;
  l.outX = l.inX + float(l.inBlocks) * (l.blockW + kPad) + kPad + kGap;
  l.arrivalX = l.outX + float(l.outBlocks) * (l.blockW + kPad) + kPad + 18;
  l.rowH = std::max(kHeadH + float(l.lines) * kLineH + kFootH + 2 * kPad + 6, 66.0f);
  return l;
}

void drawSide(Pen& d, const CapturedCall& c, const Layout& l, int m, bool output, float y, std::pair<double, double> range) {
  const CapturedRank& r = c.ranks[std::size_t(m)];
  const Side s = sideOf(c, m, output);
  const float x0 = output ? l.outX : l.inX;
  const int maxBlocks = output ? l.outBlocks : l.inBlocks;
  const float h = l.rowH - 6;
  const Theme& th = d.theme;
  const std::string rank = attr("data-rank", std::to_string(r.worldRank)) + attr("data-side", output ? "out" : "in");
  if (!r.present) return;
  if (s.blocks.empty()) {  // the article's dashed "—": nothing specified
    const float w = float(maxBlocks) * (l.blockW + kPad) + kPad;  // the column's width, as the article's dashed row
    NcclShape& b = d.box(x0, y, w, h, th.row_border, nullptr, "none", rank);
    b.dashed = true;
    // A rooted call's side a rank does not use (the tap records what each
    // rank sends and receives: broadcast's root sends its buffer, the others receive).
    const bool rooted = c.root >= 0 && m != c.root, root = c.root >= 0 && m == c.root;
    const Text why = rooted ? (output ? say("not the root: receives nothing") : say("not the root: sends nothing"))
                     : root ? (output ? say("the root: its buffer is the input") : say("the root: its buffer is the output"))
                            : say("empty");
    d.text(x0 + kPad, y + 18, "—", 14, th.muted_text);
    wrapped(d, x0 + kPad, y + 34, d.said(why), 10, w - 2 * kPad, th.muted_text);
    return;
  }
  const int drawn = std::min<int>(int(s.blocks.size()), maxBlocks);
  const float boxW = float(drawn) * (l.blockW + kPad) + kPad;
  d.box(x0, y, boxW, h, th.row_border, &th.row_box, "buffer", rank);
  const std::vector<std::uint8_t>& kept = output ? r.out : r.in;
  const std::uint64_t size = std::max<std::uint32_t>(c.dtypeSize, 1);
  if (kept.empty()) {  // a buffer with elements and no byte kept: why
    const float bx = x0 + kPad, by = y + kPad, bw = boxW - 2 * kPad, bh = h - 2 * kPad;
    NcclShape& b = d.box(bx, by, bw, bh, th.row_border, nullptr, "nobytes", rank);
    b.dashed = true;
    d.text(bx + 8, by + 16, byteSize(s.totalBytes), 10, th.muted_text);
    wrapped(d, bx + 8, by + 32, d.said(noBytesWhy(c, r, output)), 10, bw - 16, output && !r.returned ? waitColour() : th.muted_text, true);
    return;
  }
  for (int k = 0; k < drawn; ++k) {
    const Block& b = s.blocks[std::size_t(k)];
    const float bx = x0 + kPad + float(k) * (l.blockW + kPad), by = y + kPad, bh = h - 2 * kPad;
    const std::uint64_t first = std::uint64_t(k) * s.blockElems * size, blockBytes = s.blockElems * size;
    const std::uint64_t have = kept.size() > first ? std::min<std::uint64_t>(kept.size() - first, blockBytes) : 0;
    const Rgba ink = b.reduced || b.unknown ? th.neutral_border : letterColor(b.letter);
    const Rgba fill = b.reduced || b.unknown ? th.neutral_fill : tileFill(th, b.letter);
    const std::string data = rank + attr("data-block", std::to_string(k));
    if (have == 0) {  // past what the tap kept
      NcclShape& t = d.box(bx, by, l.blockW, bh, ink, nullptr, "notkept", data);
      t.dashed = true;
      d.text(bx + 6, by + 13, b.label, 11, ink, 0, true);
      d.text(bx + 6, by + bh - 6, d.said(say("not kept")), 9, th.muted_text);
      continue;
    }
    d.box(bx, by, l.blockW, bh, ink, &fill, b.reduced ? "sum" : "block", data);
    d.text(bx + 6, by + 13, b.label, 11, th.text, 0, true);
    const std::uint64_t shown = std::min<std::uint64_t>(have / size, std::uint64_t(std::max(d.p.values, 1)));
    for (std::uint64_t e = 0; e < shown; ++e) {
      double v = 0;
      const std::string t = capturedValue(c.dtype, std::uint32_t(size), kept.data() + first + e * size, &v);
      const float level = std::isnan(v) || range.second <= range.first ? 0.5f : float((v - range.first) / (range.second - range.first));
      const Rgba cell = mix(th.background, ink, std::isnan(v) ? 0.05f : 0.08f + 0.5f * level);
      const float cx = bx + kPad + float(e % std::uint64_t(l.perLine)) * kCellW;
      const float cy = by + kHeadH + float(e / std::uint64_t(l.perLine)) * kLineH;
      std::string vd = data + attr("data-elem", std::to_string(s.blockElems * std::uint64_t(k) + e)) + attr("data-value", t);
      NcclShape& cellShape = d.box(cx, cy - 1, kCellW - 3, kLineH - 2, cell, &cell, "value", std::move(vd));
      cellShape.radius = 2;
      d.text(cx + 3, cy + 10, t, 9.5f, th.text);
    }
    const float footY = by + bh - 5;
    if (have < blockBytes)  // the capture holds only a prefix of this block
      d.text(bx + 6, footY, d.said(say("first {0} of {1}", byteSize(have), byteSize(blockBytes))), 9, waitColour(), 0, true);
    else if (s.blockElems > shown)
      d.text(bx + 6, footY, d.said(say("{0} of {1} values", std::int64_t(shown), std::int64_t(s.blockElems))), 9, th.muted_text);
  }
  if (int(s.blocks.size()) > drawn)
    d.text(x0 + boxW + 4, y + h / 2 + 4, d.said(say("+{0} blocks", int(s.blocks.size()) - drawn)), 9, th.muted_text);
}

}  // namespace

namespace {

void drawArrival(Pen& d, const CapturedCall& c, const job::Arrival& a, const Layout& l, int m, float y) {
  const CapturedRank& r = c.ranks[std::size_t(m)];
  const Theme& th = d.theme;
  const float x = l.arrivalX, h = l.rowH - 6;
  const std::string data = attr("data-rank", std::to_string(r.worldRank));
  if (!r.present) {
    d.box(x, y, kArrivalW, h, th.bad, nullptr, "absent", data).dashed = true;
    d.text(x + 8, y + 18, d.said(say("not entered")), 11, th.bad, 0, true);
    d.text(x + 8, y + 34, d.said(say("no record of this call")), 9.5f, th.muted_text);
    return;
  }
  const bool last = a.isLast(m);
  if (last) {  // the rank the others waited for
    d.box(x - 2, y - 2, kArrivalW + 4, h + 4, th.bad, nullptr, "last", data);
    d.box(x - 1, y - 1, kArrivalW + 2, h + 2, th.bad, nullptr, "last-ring");
    d.text(x + 8, y + 18, d.said(a.last.size() > 1 ? say("arrived last (tied)") : say("arrived last")), 11, th.bad, 0, true);
  } else {
    const std::int64_t w = a.waitNs[std::size_t(m)];
    d.box(x, y, kArrivalW, h, th.row_border, nullptr, "arrival", data);
    d.text(x + 8, y + 18, d.said(say("entered {0} before the last", job::spanText(w))), 11, th.text);
    d.text(x + 8, y + 33, d.said(say("waited {0}", job::spanText(w))), 10, waitColour(), 0, true);
  }
  const float y3 = y + (last ? 33 : 48);
  if (!r.returned) d.text(x + 8, y3, d.said(say("not returned")), 10, waitColour(), 0, true);
  else if (r.status != 0) d.text(x + 8, y3, d.said(say("returned error {0}", std::int64_t(r.status))), 10, th.bad, 0, true);
  else if (r.tExit >= r.tEnter) d.text(x + 8, y3, d.said(say("returned after {0}", job::spanText(std::int64_t(r.tExit - r.tEnter)))), 10, th.muted_text);
}

// "MPI_Allreduce #5 of MPI_COMM_WORLD (0x1)" and the call's shape.
std::string drawTitle(Pen& d, const CapturedCall& c, float& y) {
  char id[24];
  std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(c.commId));
  const std::string comm = c.commName.empty() ? std::string(id) : c.commName + " (" + id + ")";
  const std::string fn = tap::funcName(c.func, c.nonblocking);
  const std::string title = d.said(say("{0} #{1} of {2}", fn.empty() ? std::string("?") : fn, std::int64_t(c.seq), comm));
  d.text(kMargin, y, title, 16, d.theme.text, 0, true);
  std::vector<int> world;
  for (const CapturedRank& r : c.ranks) world.push_back(r.worldRank);
  // The count as the call passed it: the smallest buffer any member gave
  // (all-gather's and gather's send count, scatter's and reduce-scatter's
  // receive count), all-to-all's per destination.
  std::uint64_t count = 0;
  for (const CapturedRank& r : c.ranks)
    for (std::uint64_t e : {r.inElems, r.outElems})
      if (r.present && e > 0 && (count == 0 || e < count)) count = e;
  if (c.func == tap::Func::alltoall || c.func == tap::Func::nccl_alltoall) count /= std::max<std::uint64_t>(c.ranks.size(), 1);
  Text shape = c.hostsText().empty() ? say("members: {0}", job::rankList(world)) : say("members: {0} on {1}", job::rankList(world), c.hostsText());
  if (c.dtypeSize > 0) shape = say("{0} · {1} × {2} ({3} B each)", shape, std::int64_t(count), std::string(*tap::dtypeName(c.dtype) ? tap::dtypeName(c.dtype) : "?"), std::int64_t(c.dtypeSize));
  if (*tap::ropName(c.op)) shape = say("{0} · {1}", shape, std::string(tap::ropName(c.op)));
  if (c.root >= 0 && std::size_t(c.root) < c.ranks.size())
    shape = say("{0} · root {1} ({2})", shape, std::int64_t(c.root), job::rankList({c.ranks[std::size_t(c.root)].worldRank}));
  y += 22;
  d.text(kMargin, y, d.said(shape), 12, d.theme.muted_text);
  y += 18;
  d.text(kMargin, y, d.said(say("each row is one member · the input at entry, the output at return · the first values the capture kept, the stronger the colour the larger")), 10,
         d.theme.muted_text);
  y += 14;
  return title;
}

}  // namespace

Result<NcclFigure> callFigure(const CapturedCall& c, const CallFigureParams& p) {
  if (c.ranks.empty()) return Error(say("the call has no member to draw"));
  Pen d{p, makeTheme(p.theme), {}};
  float y = 32;
  const std::string title = drawTitle(d, c, y);
  const int rows = std::min<int>(int(c.ranks.size()), std::max(p.rows, 1));
  const Layout l = layout(c, p, rows);
  const job::Arrival a = job::arrival(c);
  const auto range = valueRange(c);
  y += 16;
  d.text(l.inX, y, d.said(say("Input")), 12, d.theme.muted_text, 0, true);
  d.text(l.outX, y, d.said(say("Output")), 12, d.theme.muted_text, 0, true);
  d.text(l.arrivalX, y, d.said(say("Arrival")), 12, d.theme.muted_text, 0, true);
  d.text(l.outX - kGap / 2 - kPad / 2, y + 8 + l.rowH / 2, "→", 16, d.theme.muted_text, 1);
  y += 10;
  for (int m = 0; m < rows; ++m) {
    const CapturedRank& r = c.ranks[std::size_t(m)];
    const float h = l.rowH - 6;
    const bool root = c.root == m;
    const Rgba fill = tileFill(d.theme, 0);
    const std::string data = attr("data-rank", std::to_string(r.worldRank));
    if (p.highlight == m) {  // the trace keys' rank: outlined across its row
      d.box(kMargin - 4, y - 4, l.arrivalX + kArrivalW - kMargin + 8, h + 8, d.theme.root_text, nullptr, "highlight", data);
      d.box(kMargin - 3, y - 3, l.arrivalX + kArrivalW - kMargin + 6, h + 6, d.theme.root_text, nullptr, "highlight-ring");
    }
    d.box(kMargin, y, kLabelW, h, d.theme.row_border, &fill, "rank", data);
    d.text(kMargin + 8, y + 18, "R" + std::to_string(r.worldRank), 13, root ? d.theme.root_text : d.theme.text, 0, true);
    d.text(kMargin + 8, y + 33, d.said(say("comm rank {0}", std::int64_t(r.commRank))), 9.5f, d.theme.muted_text);
    if (!r.host.empty()) d.text(kMargin + 8, y + 47, r.host.size() > 14 ? r.host.substr(0, 13) + "…" : r.host, 9.5f, d.theme.muted_text);
    if (r.flags & tap::kInPlace) d.text(kMargin + 8, y + h - 4, d.said(say("in place")), 9, d.theme.muted_text);
    drawSide(d, c, l, m, false, y, range);
    drawSide(d, c, l, m, true, y, range);
    drawArrival(d, c, a, l, m, y);
    y += l.rowH;
  }
  if (int(c.ranks.size()) > rows)
    d.text(kMargin, y + 10, d.said(say("{0} more ranks not drawn", int(c.ranks.size()) - rows)), 10, d.theme.muted_text), y += 16;
  d.right = std::max(d.right, l.arrivalX + kArrivalW + kMargin);
  if (p.stragglers) {
    y += 14;
    WrapParams wrap;
    wrap.width = d.right - 2 * kMargin;
    wrap.measure = [](const std::string& t) { return 1.05f * approxWidth(t, 12); };
    for (const std::string& line : wrapText(d.said(job::stragglerText(*p.stragglers)), wrap)) {
      NcclShape& t = (d.text(kMargin, y, line, 12, d.theme.text), d.fig.shapes.back());
      t.bold = false;
      y += 17;
    }
  }
  d.fig.width = d.right;
  d.fig.height = y + 14;
  d.fig.background = d.theme.background;
  d.fig.title = title;
  return std::move(d.fig);
}

}  // namespace collviz::ui
