#include "app/files/nccl_log_svg.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace collviz::ui {

namespace {

using namespace nccl_log;

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(v));
  std::string s = buf;
  if (s.size() > 2 && s.substr(s.size() - 2) == ".0") s.resize(s.size() - 2);
  return s;
}

std::string hex(Rgba c) {
  auto byte = [](float v) { return int(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
  return buf;
}

std::string esc(const std::string& t) {
  std::string out;
  for (char c : t) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

constexpr float kRow = 26, kNodeGap = 16, kTop = 84, kBoxX = 170, kBoxW = 56, kBoxH = 20;

struct Figure {
  const Comm& c;
  const NcclFigureParams& p;
  Theme theme;
  int n = 0, perNode = 0;
  std::string out;

  int node(int r) const { return perNode > 0 ? r / perNode : 0; }
  float y(int r) const { return kTop + float(r) * kRow + float(node(r)) * kNodeGap + kBoxH / 2; }
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
  void text(float x, float yy, const std::string& s, float size, Rgba col, const char* anchor = "start", bool bold = false) {
    out += "<text x=\"" + num(x) + "\" y=\"" + num(yy) + "\" font-size=\"" + num(size) + "\" fill=\"" + hex(col) + "\" text-anchor=\"" +
           anchor + "\"" + (bold ? " font-weight=\"bold\"" : "") + ">" + esc(s) + "</text>\n";
  }
  // An arc from row a to row b, bulging right (side 1) or left (side -1).
  void arc(const char* cls, int a, int b, int side, float width, const std::string& data, const std::string& label) {
    std::string k = kind(a, b);
    std::string kc = kindClass(k);
    Rgba col = colour(kc);
    float x = side > 0 ? kBoxX + kBoxW + 4 : kBoxX - 4;
    float ya = y(a), yb = y(b);
    float bulge = float(side) * (24 + 0.45f * std::abs(yb - ya) + (b < a ? 18 : 0));  // the way back further out
    bool inter = perNode > 0 && node(a) != node(b);
    out += "<path class=\"" + std::string(cls) + "\" data-from=\"" + std::to_string(a) + "\" data-to=\"" + std::to_string(b) + "\"" + data +
           " data-transport=\"" + esc(k) + "\" d=\"M" + num(x) + " " + num(ya) + " C" + num(x + bulge) + " " + num(ya) + " " +
           num(x + bulge) + " " + num(yb) + " " + num(x) + " " + num(yb) + "\" fill=\"none\" stroke=\"" + hex(col) + "\" stroke-width=\"" +
           num(width) + "\"" + (inter ? " stroke-dasharray=\"6 3\"" : "") + " marker-end=\"url(#arrow-" + kc + ")\"/>\n";
    if (!label.empty()) text(x + bulge * 0.75f + float(side) * 3, (ya + yb) / 2 + 4, label, 10, col, side > 0 ? "start" : "end");
  }
};

}  // namespace

Result<std::string> ncclLogSvg(const Log& log, const NcclFigureParams& p) {
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
  const float rowsBottom = f.y(f.n - 1) + kBoxH;
  const float tableTop = rowsBottom + 40;
  const float height = tableTop + 30 + 18 * float(log.choices.size()) + 60;
  const float width = 900;
  std::string& o = f.out;
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) +
       " " + num(height) + "\">\n<title>" + esc(say_(sentence(c))) + "</title>\n<defs>\n";
  for (const char* k : {"p2p", "shm", "net", "collnet", "unknown"})
    o += std::string("<marker id=\"arrow-") + k + "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 Z\" fill=\"" +
         hex(f.colour(k)) + "\"/></marker>\n";
  o += "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"" + hex(f.theme.background) +
       "\"/>\n<g font-family=\"DejaVu Sans, Verdana, Noto Sans CJK SC, sans-serif\">\n";
  f.text(24, 30, say_(say("NCCL {0} · communicator {1}", log.version.empty() ? std::string("?") : log.version,
                          c.commId.empty() ? std::string("?") : c.commId)),
         16, f.theme.text, "start", true);
  f.text(24, 50, say_(sentence(c)), 13, f.theme.text);
  std::string what;
  if (p.channel < 0) {
    what = say_(say("all {0} channels' rings: a link's number is the channels whose ring uses it", int(c.rings.size())));
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
    o += "<rect class=\"node\" data-node=\"" + std::to_string(k) + "\" x=\"20\" y=\"" + num(top) + "\" width=\"" + num(kBoxX + kBoxW + 6 - 20) +
         "\" height=\"" + num(bottom - top) + "\" rx=\"6\" fill=\"none\" stroke=\"" + hex(f.theme.neutral_border) + "\"/>\n";
    f.text(28, top + 16, say_(say("node {0}", k)), 12, f.theme.muted_text, "start", true);
    if (!host.empty()) f.text(28, top + 30, host, 10, f.theme.muted_text);
  }
  for (int r = 0; r < f.n; ++r) {
    float yy = f.y(r) - kBoxH / 2;
    o += "<rect class=\"rank\" data-rank=\"" + std::to_string(r) + "\" x=\"" + num(kBoxX) + "\" y=\"" + num(yy) + "\" width=\"" + num(kBoxW) +
         "\" height=\"" + num(kBoxH) + "\" rx=\"4\" fill=\"" + hex(tileFill(f.theme, 0)) + "\" stroke=\"" + hex(f.theme.row_border) + "\"/>\n";
    f.text(kBoxX + kBoxW / 2, yy + 15, "R" + std::to_string(r), 12, r == 0 ? f.theme.root_text : f.theme.text, "middle", r == 0);
  }
  // Links.
  if (p.channel < 0) {
    for (const auto& [ab, k] : uses)
      f.arc("overlay-link", ab.first, ab.second, 1, 1 + 4 * float(k) / float(most), " data-count=\"" + std::to_string(k) + "\"", std::to_string(k));
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
  float lx = 520, ly = kTop;
  for (const char* k : {"p2p", "shm", "net", "unknown"}) {
    o += "<line x1=\"" + num(lx) + "\" y1=\"" + num(ly) + "\" x2=\"" + num(lx + 28) + "\" y2=\"" + num(ly) + "\" stroke=\"" + hex(f.colour(k)) +
         "\" stroke-width=\"3\"" + (std::string(k) == "net" ? " stroke-dasharray=\"6 3\"" : "") + "/>\n";
    std::string name = std::string(k) == "p2p" ? "P2P (NVLink / PCIe)" : std::string(k) == "shm" ? "SHM"
                       : std::string(k) == "net" ? say_(say("network, between nodes (dashed)"))
                                                  : say_(say("transport not in the log"));
    f.text(lx + 36, ly + 4, name, 11, f.theme.text);
    ly += 18;
  }
  // The collectives table.
  f.text(24, tableTop, say_(log.choices.empty() ? say("no tuning lines: NCCL_DEBUG_SUBSYS=TUNING adds NCCL's choice per collective")
                                                : say("collectives: NCCL's choice (rank 0's TUNING lines)")),
         13, f.theme.text, "start", true);
  const float cols[] = {24, 190, 320, 470, 560, 660};
  const char* heads[] = {"op", "bytes", "algorithm", "protocol", "channels", "times"};
  for (int i = 0; i < 6 && !log.choices.empty(); ++i) f.text(cols[i], tableTop + 22, say_(say(heads[i])), 11, f.theme.muted_text, "start", true);
  float ty = tableTop + 40;
  for (const Choice& ch : log.choices) {
    std::string chs = ch.chLo >= 0 ? std::to_string(ch.chLo) + "–" + std::to_string(ch.chHi) : "?";
    const std::string cells[] = {ch.op.empty() ? "?" : ch.op, std::to_string(ch.bytes), ch.algo, ch.proto.empty() ? "—" : ch.proto, chs,
                                 std::to_string(ch.times)};
    o += "<g class=\"collective\">";
    for (int i = 0; i < 6; ++i) f.text(cols[i], ty, cells[i], 11, f.theme.text);
    o += "</g>\n";
    ty += 18;
  }
  if (f.perNode > 0 && int(c.members.size()) < f.n)
    f.text(24, height - 16, say_(say("ranks are grouped {0} to a node in rank order: the files of the other ranks, which would name their hosts, are not in the log", f.perNode)),
           10, f.theme.muted_text);
  o += "</g>\n</svg>\n";
  return o;
}

}  // namespace collviz::ui
