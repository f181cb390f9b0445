#include "app/view/nccl_log_figure.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace collviz::ui {

namespace {

using namespace nccl_log;

// A value for an SVG attribute: no quote, no markup.
std::string attr(std::string s) {
  for (char& ch : s)
    if (ch == '"' || ch == '<' || ch == '>' || ch == '&') ch = '_';
  return s;
}

constexpr float kRow = 26, kNodeGap = 16, kTop = 84, kBoxX = 170, kBoxW = 56, kBoxH = 20;

struct Figure {
  const Comm& c;
  const NcclFigureParams& p;
  Theme theme;
  int n = 0, perNode = 0;
  std::vector<NcclShape> out;
  // The ranks' column and spacing, and how far arcs bulge: one channel of a
  // few ranks spreads over the width (it sat in the left 280 px of 900).
  float row = kRow, boxX = kBoxX, bulgeRight = 1, bulgeLeft = 1;

  int node(int r) const { return perNode > 0 ? r / perNode : 0; }
  float y(int r) const { return kTop + float(r) * row + float(node(r)) * kNodeGap + kBoxH / 2; }
  std::string kind(int a, int b) const {
    std::string k = linkKind(c, a, b);
    if (k.empty()) k = linkKind(c, b, a);  // rank 0's file names the links it receives too
    return k;
  }
  static std::string kindClass(const std::string& k) {
    if (k.rfind("NET", 0) == 0) return "net";
    if (k.rfind("COLLNET", 0) == 0) return "collnet";
    if (k.rfind("SHM", 0) == 0) return "shm";
    if (k.rfind("P2P", 0) == 0) return "p2p";
    return "unknown";
  }
  Rgba colour(const std::string& cls) const {
    if (cls == "p2p") return letterColor(0);
    if (cls == "shm") return letterColor(1);
    if (cls == "net") return letterColor(2);
    if (cls == "collnet") return letterColor(3);
    return theme.muted_text;
  }
  void text(float x, float yy, const std::string& s, float size, Rgba col, int anchor = 0, bool bold = false) {
    NcclShape t;
    t.kind = NcclShape::Kind::text, t.x0 = x, t.y0 = yy, t.text = s, t.size = size, t.fill = col, t.anchor = anchor, t.bold = bold;
    out.push_back(std::move(t));
  }
  void rect(float x, float yy, float w, float h, float r, Rgba stroke, const Rgba* fill, std::string cls, std::string data) {
    NcclShape t;
    t.kind = NcclShape::Kind::rect, t.x0 = x, t.y0 = yy, t.x1 = w, t.y1 = h, t.radius = r, t.stroke = stroke;
    if (fill) t.fill = *fill, t.filled = true;
    t.cls = std::move(cls), t.data = std::move(data);
    out.push_back(std::move(t));
  }
  // An arc from row a to row b, bulging right (side 1) or left (side -1).
  void arc(const char* cls, int a, int b, int side, float width, const std::string& data, const std::string& label) {
    std::string k = kind(a, b);
    std::string kc = kindClass(k);
    Rgba col = colour(kc);
    float x = side > 0 ? boxX + kBoxW + 4 : boxX - 4;
    float ya = y(a), yb = y(b);
    float bulge = float(side) * (side > 0 ? bulgeRight : bulgeLeft) * (24 + 0.45f * std::abs(yb - ya) + (b < a ? 18 : 0));  // the way back further out
    bool inter = perNode > 0 && node(a) != node(b);
    NcclShape t;
    t.kind = NcclShape::Kind::arc, t.x0 = x, t.y0 = ya, t.x1 = x, t.y1 = yb;
    t.cx0 = x + bulge, t.cy0 = ya, t.cx1 = x + bulge, t.cy1 = yb;
    t.stroke = col, t.width = width, t.dashed = inter, t.arrow = true, t.marker = kc, t.cls = cls;
    t.data = " data-from=\"" + std::to_string(a) + "\" data-to=\"" + std::to_string(b) + "\"" + data + " data-transport=\"" + attr(k) + "\"";
    out.push_back(std::move(t));
    if (!label.empty()) text(x + bulge * 0.75f + float(side) * 3, (ya + yb) / 2 + 4, label, 10, col, side > 0 ? 0 : 2);
  }
};

}  // namespace

Result<NcclFigure> ncclLogFigure(const Log& log, const NcclFigureParams& p) {
  auto say_ = [&](const Text& t) { return p.say ? p.say(t) : t.english(); };
  if (log.comms.empty()) return Error(say("the log names no communicator to draw (NCCL_DEBUG_SUBSYS=INIT adds them)"));
  if (p.comm >= log.comms.size())
    return Error(say("--comm {0}: the log has communicators 0 to {1}", int(p.comm), int(log.comms.size()) - 1));
  const Comm& c = log.comms[p.comm];
  Figure f{c, p, makeTheme(p.theme)};
  f.n = c.nRanks > 0 ? c.nRanks : int(c.members.size());
  if (f.n <= 0) return Error(say("the communicator's rank count is not in the log"));
  if (f.n > 512) return Error(say("{0} ranks: the figure draws at most 512", f.n));
  if (c.nNodes > 1 && f.n % c.nNodes == 0) f.perNode = f.n / c.nNodes;
  std::vector<int> ring;
  if (p.channel >= 0) {
    // One channel: the rows further apart for a few ranks, the ranks in the
    // middle of the drawing's part (left of the legend), the trees' arcs
    // bulging left and the ring's right as far as that part allows.
    f.row = f.n <= 8 ? 46 : f.n <= 16 ? 34 : kRow;
    f.boxX = 250;
    const float widest = 24 + 0.45f * (f.y(f.n - 1) - f.y(0)) + 18;
    f.bulgeLeft = std::clamp((f.boxX - 4 - 104) / widest, 1.0f, 4.0f);             // clear of the node's name
    f.bulgeRight = std::clamp((540 - (f.boxX + kBoxW + 4)) / widest, 1.0f, 4.0f);  // up to the legend
    ring = ringOrder(c, p.channel);
    bool tree = std::any_of(c.members.begin(), c.members.end(), [&](const Member& m) { return m.trees.count(p.channel); });
    if (ring.empty() && !tree)
      return Error(say("channel {0}: the log has neither its ring nor its trees (rings of channels {1})", p.channel,
                       c.rings.empty() ? std::string("none") : std::to_string(c.rings.front().channel) + "–" + std::to_string(c.rings.back().channel)));
  }
  // The overlay: how many channels' rings use each link.
  std::map<std::pair<int, int>, int> uses;
  int most = 1;
  if (p.channel < 0)
    for (const Ring& r : c.rings) {
      std::vector<int> o = ringOrder(c, r.channel);
      for (std::size_t i = 0; i < o.size(); ++i) most = std::max(most, ++uses[{o[i], o[(i + 1) % o.size()]}]);
    }
  // ... listed right of the rows, most used first, in up to three columns
  // (a count on each arc would pile up where arcs of one span meet).
  std::vector<std::pair<std::pair<int, int>, int>> listed(uses.begin(), uses.end());
  std::stable_sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const float rowsBottom = f.y(f.n - 1) + kBoxH;
  const float listTop = kTop + 4 * 18 + 14, listRow = 15;
  int perColumn = std::max(4, int((rowsBottom - listTop - 18) / listRow));
  if (int(listed.size()) > 3 * perColumn) perColumn = (int(listed.size()) + 2) / 3;
  const float listBottom = listed.empty() ? 0 : listTop + 18 + listRow * float(std::min<int>(perColumn, int(listed.size())));
  const float tableTop = std::max(rowsBottom, listBottom) + 40;
  const float height = tableTop + 30 + 18 * float(log.choices.size()) + 60;
  const float width = 900;
  NcclFigure fig;
  fig.width = width, fig.height = height, fig.background = f.theme.background, fig.title = say_(sentence(c));
  for (const char* k : {"p2p", "shm", "net", "collnet", "unknown"}) fig.markers.push_back({k, f.colour(k)});
  f.text(24, 30, say_(say("NCCL {0} · communicator {1}", log.version.empty() ? std::string("?") : log.version,
                          commLabel(c))),
         16, f.theme.text, 0, true);
  f.text(24, 50, say_(sentence(c)), 13, f.theme.text);
  std::string what;
  if (p.channel < 0) {
    what = say_(say("all {0} channels' rings: a link is as thick as the channels whose ring uses it (their count on the right)", int(c.rings.size())));
  } else {
    std::string order;
    for (int r : ring) order += (order.empty() ? "" : " → ") + std::to_string(r);
    what = say_(ring.empty() ? say("channel {0}: trees (no whole ring in the log)", p.channel)
                             : say("channel {0}: ring {1} (right), trees parent → child (left)", p.channel, order));
  }
  f.text(24, 68, what, 12, f.theme.muted_text);
  // Nodes and ranks.
  int nodes = f.perNode > 0 ? c.nNodes : 1;
  for (int k = 0; k < nodes; ++k) {
    int first = f.perNode > 0 ? k * f.perNode : 0, last = f.perNode > 0 ? first + f.perNode - 1 : f.n - 1;
    std::string host;
    for (const Member& m : c.members)
      if (m.rank >= first && m.rank <= last) host = m.host;
    float top = f.y(first) - kBoxH / 2 - 4, bottom = f.y(last) + kBoxH / 2 + 4;
    f.rect(20, top, f.boxX + kBoxW + 6 - 20, bottom - top, 6, f.theme.neutral_border, nullptr, "node", " data-node=\"" + std::to_string(k) + "\"");
    f.text(28, top + 16, say_(say("node {0}", k)), 12, f.theme.muted_text, 0, true);
    if (!host.empty()) f.text(28, top + 30, host, 10, f.theme.muted_text);
  }
  for (int r = 0; r < f.n; ++r) {
    float yy = f.y(r) - kBoxH / 2;
    Rgba fill = tileFill(f.theme, 0);
    f.rect(f.boxX, yy, kBoxW, kBoxH, 4, f.theme.row_border, &fill, "rank", " data-rank=\"" + std::to_string(r) + "\"");
    f.text(f.boxX + kBoxW / 2, yy + 15, "R" + std::to_string(r), 12, r == 0 ? f.theme.root_text : f.theme.text, 1, r == 0);
  }
  // Links.
  if (p.channel < 0) {
    for (const auto& [ab, k] : uses)
      f.arc("overlay-link", ab.first, ab.second, 1, 1 + 4 * float(k) / float(most), " data-count=\"" + std::to_string(k) + "\"", "");
    if (!listed.empty()) f.text(520, listTop, say_(say("channels per link")), 11, f.theme.muted_text, 0, true);
    for (std::size_t i = 0; i < listed.size(); ++i) {
      const auto& [ab, k] = listed[i];
      const float x = 520 + 120 * float(int(i) / perColumn), yy = listTop + 18 + listRow * float(int(i) % perColumn);
      f.text(x, yy, "R" + std::to_string(ab.first) + " → R" + std::to_string(ab.second), 11,
             f.colour(Figure::kindClass(f.kind(ab.first, ab.second))));
      f.text(x + 96, yy, std::to_string(k), 11, f.theme.text, 2);
    }
  } else {
    for (std::size_t i = 0; i < ring.size(); ++i)
      f.arc("ring-link", ring[i], ring[(i + 1) % ring.size()], 1, 2, " data-channel=\"" + std::to_string(p.channel) + "\" data-step=\"" + std::to_string(i) + "\"", "");
    std::set<std::pair<int, int>> edges;  // parent -> child
    for (const Member& m : c.members) {
      auto t = m.trees.find(p.channel);
      if (t == m.trees.end() || m.rank < 0) continue;
      if (t->second.up >= 0) edges.insert({t->second.up, m.rank});
      for (int d : t->second.down)
        if (d >= 0) edges.insert({m.rank, d});
    }
    for (const auto& [a, b] : edges)
      if (a < f.n && b < f.n) f.arc("tree-link", a, b, -1, 1.5f, " data-channel=\"" + std::to_string(p.channel) + "\"", "");
  }
  // Legend.
  float lx = p.channel >= 0 ? 560 : 520, ly = kTop;
  for (const char* k : {"p2p", "shm", "net", "unknown"}) {
    NcclShape l;
    l.kind = NcclShape::Kind::line, l.x0 = lx, l.y0 = ly, l.x1 = lx + 28, l.y1 = ly, l.stroke = f.colour(k), l.width = 3;
    l.dashed = std::string(k) == "net";
    f.out.push_back(l);
    std::string name = std::string(k) == "p2p" ? "P2P (NVLink / PCIe)" : std::string(k) == "shm" ? "SHM"
                       : std::string(k) == "net" ? say_(say("network, between nodes (dashed)"))
                                                  : say_(say("transport not in the log"));
    f.text(lx + 36, ly + 4, name, 11, f.theme.text);
    ly += 18;
  }
  // The collectives table; without one, a quiet note of what would add it
  // (it was the loudest text of the figure).
  if (log.choices.empty())
    f.text(24, tableTop, say_(say("no tuning lines: NCCL_DEBUG_SUBSYS=TUNING adds NCCL's choice per collective")), 11,
           f.theme.muted_text);
  else
    f.text(24, tableTop, say_(say("collectives: NCCL's choice (rank 0's TUNING lines)")), 13, f.theme.text, 0, true);
  const float cols[] = {24, 190, 320, 470, 560, 660};
  const char* heads[] = {"op", "bytes", "algorithm", "protocol", "channels", "times"};
  for (int i = 0; i < 6 && !log.choices.empty(); ++i) f.text(cols[i], tableTop + 22, say_(say(heads[i])), 11, f.theme.muted_text, 0, true);
  float ty = tableTop + 40;
  for (const Choice& ch : log.choices) {
    std::string chs = ch.chLo >= 0 ? std::to_string(ch.chLo) + "–" + std::to_string(ch.chHi) : "?";
    const std::string cells[] = {ch.op.empty() ? "?" : ch.op, std::to_string(ch.bytes), ch.algo, ch.proto.empty() ? "—" : ch.proto, chs,
                                 std::to_string(ch.times)};
    for (int i = 0; i < 6; ++i) f.text(cols[i], ty, cells[i], 11, f.theme.text);
    ty += 18;
  }
  if (f.perNode > 0 && int(c.members.size()) < f.n)
    f.text(24, height - 16, say_(say("ranks are grouped {0} to a node in rank order: the files of the other ranks, which would name their hosts, are not in the log", f.perNode)),
           10, f.theme.muted_text);
  fig.shapes = std::move(f.out);
  return fig;
}

}  // namespace collviz::ui
