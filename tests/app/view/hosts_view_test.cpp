// The picture of ranks on several hosts (issue 33), without GL: rank rows
// grouped under their host's name in the op diagram and the algorithm view,
// messages across hosts dashed (Scene and SVG), the bytes panel's share
// across hosts, the status's "R0–R1 on a · R2–R3 on b", and nothing of it
// on one host. The snapshots here are test doubles: made by hand, their
// `places` set as the engine sets them for a run across hosts
// (engine/group/rank_group_hosts.cpp), no rank run.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "app/files/svg_writer.h"
#include "app/lang/lang.h"
#include "app/view/diagram_layout.h"
#include "app/view/fit.h"
#include "app/view/layout_builder.h"
#include "app/view/link_view.h"
#include "app/view/rank_hosts.h"
#include "app/view/round_layout.h"
#include "app/view/round_model.h"
#include "app/view/status_text.h"
#include "app/view/trace.h"
#include "tests/app/view/view_spec.h"

namespace collviz::ui {
namespace {

// Test double: a snapshot of `s` that ran (one step, no buffers: the
// diagram shows the expected labels) with rank r on hosts[r].
std::shared_ptr<Snapshot> ranOn(const OpSpec& s, const std::vector<std::string>& hosts) {
  auto snap = std::make_shared<Snapshot>();
  snap->seq = 1;
  snap->spec = s;
  snap->steps.resize(1);
  snap->steps[0].spec = s;
  snap->verified = true;
  for (int r = 0; r < int(hosts.size()); ++r) snap->places.push_back({r, hosts[std::size_t(r)], 1000L + r});
  return snap;
}

// Test double: an algorithm's run (its rounds as steps, no buffers: the
// round model keeps the schedule's labels) with rank r on hosts[r].
std::shared_ptr<Snapshot> algoRanOn(const OpSpec& s, const std::string& algo, const std::vector<std::string>& hosts) {
  auto snap = ranOn(s, hosts);
  snap->algo = algo;
  snap->steps.assign(std::size_t(algoRounds(algo, s)), StepResult{});
  return snap;
}

const std::vector<std::string> kTwoHosts = {"a", "a", "b", "b"};

Scene opScene(const DiagramModel& m, Vec2 size = {1200, 700}, float u = 1.0f) {
  const TraceSets t = computeTrace(m, -1, TraceMode::reaches);
  return layoutDiagram(m, t, ViewSettings{}, makeTheme(ThemeKind::light), {size, u, nullptr});
}

ViewSettings roundView(const std::string& algo, int round) {
  ViewSettings v;
  v.algo = algo;
  v.round = round;
  return v;
}

Scene roundScene(const RoundModel& rm, Vec2 size = {1400, 800}, float u = 1.0f) {
  return layoutRounds(rm, roundDiagramModel(rm), roundView(rm.algo, rm.round), makeTheme(ThemeKind::light),
                      {size, u, nullptr});
}

const TextItem* findText(const Scene& s, const std::string& text) {
  for (const TextItem& t : s.texts)
    if (t.text == text) return &t;
  return nullptr;
}

int countTexts(const Scene& s, const std::string& prefix) {
  int n = 0;
  for (const TextItem& t : s.texts) n += t.text.rfind(prefix, 0) == 0;
  return n;
}

// Row r's box in column 0: from its first block's hit box.
Rect rowOf(const Scene& s, int r) {
  for (const HitBox& h : s.hits)
    if (h.column == 0 && h.row == r && h.block == 0) return h.rect;
  ADD_FAILURE() << "no row " << r;
  return {};
}

// Each rank's row sits beside its own host's name: the name's middle within
// the rows of its host, left of them; the hosts' rows apart by more than
// the rows within a host.
void expectGroupedByHost(const Scene& s, const std::vector<std::string>& hosts) {
  for (const HostRun& run : hostRuns(hosts)) {
    const TextItem* label = findText(s, "host " + run.host);
    ASSERT_NE(label, nullptr) << "no label for host " << run.host;
    const Rect first = rowOf(s, run.first), last = rowOf(s, run.last);
    EXPECT_GE(label->anchor.y, first.y) << run.host;
    EXPECT_LE(label->anchor.y, last.y + last.h) << run.host;
    EXPECT_LT(label->anchor.x, first.x) << run.host;
    for (int r = 0; r < int(hosts.size()); ++r) {
      const Rect row = rowOf(s, r);
      const bool inside = label->anchor.y >= row.y - 1 && label->anchor.y <= row.y + row.h + 1;
      if (inside) {
        EXPECT_EQ(hosts[std::size_t(r)], run.host) << "host " << run.host << "'s name beside R" << r;
      }
    }
  }
  const int next = hostRuns(hosts)[1].first;
  const float within = rowOf(s, 1).y - rowOf(s, 0).y, across = rowOf(s, next).y - rowOf(s, next - 1).y;
  EXPECT_GT(across, within + 5) << "no gap between hosts";
}

TEST(RankHosts, FromPlaces) {
  const OpSpec s = spec(Op::all_reduce, 4);
  EXPECT_EQ(rankHosts(*ranOn(s, kTwoHosts), 4), kTwoHosts);
  EXPECT_TRUE(rankHosts(*ranOn(s, {}), 4).empty());
  EXPECT_TRUE(rankHosts(*ranOn(s, {"a", "a", "a", "a"}), 4).empty()) << "one host: nothing to show";
  EXPECT_TRUE(rankHosts(*ranOn(s, {"a", "b"}), 4).empty()) << "ranks 2 and 3 have no place";
  auto shuffled = ranOn(s, kTwoHosts);
  std::reverse(shuffled->places.begin(), shuffled->places.end());
  EXPECT_EQ(rankHosts(*shuffled, 4), kTwoHosts) << "places are by rank, not by order";
  EXPECT_EQ(hostsLine(kTwoHosts), "R0–R1 on a · R2–R3 on b");
  EXPECT_EQ(hostsLine({"a", "b", "a", "b"}), "R0 on a · R1 on b · R2 on a · R3 on b");
  EXPECT_EQ(hostsNote(ranOn(s, kTwoHosts).get()), "R0–R1 on a · R2–R3 on b");
  EXPECT_EQ(hostsNote(ranOn(s, {"a", "a", "a", "a"}).get()), "");
  EXPECT_TRUE(acrossHosts(kTwoHosts, 1, 2));
  EXPECT_FALSE(acrossHosts(kTwoHosts, 2, 3));
  EXPECT_FALSE(acrossHosts({}, 1, 2));
}

TEST(HostsPicture, OpDiagramGroupsRowsByHost) {
  const OpSpec s = spec(Op::all_reduce, 4);
  const DiagramModel m = buildModel(Program::single, s, ranOn(s, kTwoHosts));
  ASSERT_TRUE(m.ran());
  EXPECT_EQ(m.hosts, kTwoHosts);
  const Scene sc = opScene(m);
  expectGroupedByHost(sc, kTwoHosts);
  EXPECT_EQ(countTexts(sc, "host "), 2);
  // Round-robin (--map-by node): a name beside every row.
  const std::vector<std::string> rr = {"a", "b", "a", "b"};
  const Scene alt = opScene(buildModel(Program::single, s, ranOn(s, rr)));
  EXPECT_EQ(countTexts(alt, "host "), 4);
  // The decomposition too.
  const DiagramModel dec = buildModel(Program::all_reduce_decomposed, s, [&] {
    auto snap = ranOn(s, kTwoHosts);
    snap->program = Program::all_reduce_decomposed;
    snap->steps.resize(2);
    return snap;
  }());
  ASSERT_TRUE(dec.ran());
  expectGroupedByHost(opScene(dec), kTwoHosts);
}

TEST(HostsPicture, NothingOnOneHost) {
  const OpSpec s = spec(Op::all_reduce, 4);
  const Scene none = opScene(buildModel(Program::single, s, ranOn(s, {})));
  const Scene one = opScene(buildModel(Program::single, s, ranOn(s, {"a", "a", "a", "a"})));
  EXPECT_EQ(countTexts(none, "host "), 0);
  EXPECT_EQ(countTexts(one, "host "), 0);
  // The same picture, to the pixel: what the golden images check in files.
  ASSERT_EQ(one.texts.size(), none.texts.size());
  for (std::size_t i = 0; i < one.texts.size(); ++i) {
    EXPECT_EQ(one.texts[i].text, none.texts[i].text);
    EXPECT_EQ(one.texts[i].anchor, none.texts[i].anchor);
  }
  ASSERT_EQ(one.tiles.size(), none.tiles.size());
  for (std::size_t i = 0; i < one.tiles.size(); ++i) EXPECT_EQ(one.tiles[i].rect.y, none.tiles[i].rect.y);
  const OpSpec rs = spec(Op::all_reduce, 4);
  const RoundModel rm = buildRoundModel(rs, "ring", 2, algoRanOn(rs, "ring", {"a", "a", "a", "a"}));
  ASSERT_TRUE(rm.ran());
  EXPECT_TRUE(rm.hosts.empty());
  const Scene round = roundScene(rm);
  EXPECT_EQ(countTexts(round, "host "), 0);
  EXPECT_EQ(findText(round, "across hosts"), nullptr);
  for (const CurveInstance& c : round.curves) EXPECT_EQ(c.dash, 0.0f);
  EXPECT_TRUE(hostsNote(rm.snapshot.get()).empty());
}

TEST(HostsPicture, RingRoundArrowsAcrossHostsAreDashed) {
  const OpSpec s = spec(Op::all_reduce, 4);
  const RoundModel rm = buildRoundModel(s, "ring", 2, algoRanOn(s, "ring", kTwoHosts));
  ASSERT_TRUE(rm.ran());
  ASSERT_EQ(rm.hosts, kTwoHosts);
  const Scene sc = roundScene(rm);
  expectGroupedByHost(sc, kTwoHosts);
  int across = 0;
  for (const RoundArrow& a : rm.arrows) across += acrossHosts(rm.hosts, a.from, a.to);
  ASSERT_EQ(across, 2) << "ring on a,a,b,b: R1→R2 and R3→R0 cross";
  // Each across hosts in the grid and in the link view, and the key's sample.
  int dashed = 0;
  for (const CurveInstance& c : sc.curves) dashed += c.dash > 0;
  EXPECT_EQ(dashed, 2 * across + 1);
  EXPECT_NE(findText(sc, "within a host"), nullptr);
  EXPECT_NE(findText(sc, "across hosts"), nullptr);
  // The link view's arrows across hosts in their own colour, the others in their block's.
  const Theme th = makeTheme(ThemeKind::light);
  int own_colour = 0;
  const Rgba ac = layout::acrossHostsColor(th);
  for (const CurveInstance& c : sc.curves) own_colour += c.dash > 0 && c.color.r == ac.r && c.color.g == ac.g && c.color.b == ac.b;
  EXPECT_EQ(own_colour, across + 1) << "the link view's and the key's; the grid's keep their block's colour";

  // The SVG: those curves carry stroke-dasharray, the others none.
  SvgParams p;
  p.width = 1400, p.height = 800;
  const std::string svg = sceneToSvg(sc, {}, p);
  const std::regex curve(R"(<path d="M[^"]* C[^"]*"[^>]*>)");
  int svg_dashed = 0, svg_curves = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), curve); it != std::sregex_iterator(); ++it) {
    ++svg_curves;
    svg_dashed += it->str().find("stroke-dasharray") != std::string::npos;
  }
  EXPECT_EQ(svg_curves, int(sc.curves.size()));
  EXPECT_EQ(svg_dashed, 2 * across + 1);
  EXPECT_NE(svg.find(">host a</text>"), std::string::npos);
  EXPECT_NE(svg.find(">host b</text>"), std::string::npos);
}

TEST(HostsPicture, BytesAcrossHostsAddUp) {
  const OpSpec s = spec(Op::all_reduce, 4);
  auto snap = algoRanOn(s, "ring", kTwoHosts);
  const int rounds = algoRounds("ring", s);
  for (int k = 0; k <= rounds; ++k) {
    const RoundModel rm = buildRoundModel(s, "ring", k, snap);
    ASSERT_EQ(rm.sent_across.size(), 4u);
    ASSERT_EQ(rm.received_across.size(), 4u);
    uint64_t sent = 0, received = 0, out = 0, in = 0;
    for (int r = 0; r < 4; ++r) {
      EXPECT_LE(rm.sent_across[std::size_t(r)], rm.sent[std::size_t(r)]) << "R" << r << " round " << k;
      EXPECT_LE(rm.received_across[std::size_t(r)], rm.received[std::size_t(r)]) << "R" << r << " round " << k;
      sent += rm.sent[std::size_t(r)], received += rm.received[std::size_t(r)];
      out += rm.sent_across[std::size_t(r)], in += rm.received_across[std::size_t(r)];
    }
    EXPECT_EQ(sent, received);
    EXPECT_EQ(out, in) << "every byte that leaves a host arrives on another";
    // The ring R0→R1→R2→R3→R0: R1 and R3 send across, R2 and R0 receive
    // from across, each one message a round, as many bytes as the others.
    EXPECT_EQ(rm.sent_across[0], 0u);
    EXPECT_EQ(rm.sent_across[2], 0u);
    EXPECT_EQ(rm.sent_across[1], rm.sent[1]);
    EXPECT_EQ(rm.sent_across[3], rm.sent[3]);
    EXPECT_EQ(rm.received_across[1], 0u);
    EXPECT_EQ(rm.received_across[2], rm.received[2]);
  }
  // The panel names each rank's share across hosts.
  const RoundModel rm = buildRoundModel(s, "ring", 2, snap);
  const Scene sc = roundScene(rm);
  EXPECT_EQ(countTexts(sc, "across hosts: "), 4);
  const std::string r1 = "across hosts: " + byteText(double(rm.sent_across[1])) + " / " + byteText(double(rm.received_across[1]));
  EXPECT_NE(findText(sc, r1), nullptr) << r1;
}

TEST(HostsPicture, StatusNamesEachRanksHost) {
  const OpSpec s = spec(Op::all_reduce, 4);
  auto snap = ranOn(s, kTwoHosts);
  StatusLineParams p;
  p.shown = snap.get();
  bool found = false;
  for (const TextItem& t : statusLineTexts(p, makeTheme(ThemeKind::light))) found = found || t.text == "R0–R1 on a · R2–R3 on b";
  EXPECT_TRUE(found) << "the window's status";
  p.machine = false;  // a file's figure: the picture shows the hosts already
  for (const TextItem& t : statusLineTexts(p, makeTheme(ThemeKind::light))) EXPECT_EQ(t.text.find(" on a"), std::string::npos);
}

TEST(HostsPicture, Chinese) {
  const OpSpec s = spec(Op::all_reduce, 4);
  setLanguage(Lang::zh);
  const Scene sc = opScene(buildModel(Program::single, s, ranOn(s, kTwoHosts)));
  const RoundModel rm = buildRoundModel(s, "ring", 2, algoRanOn(s, "ring", kTwoHosts));
  const Scene round = roundScene(rm);
  const std::string note = hostsNote(rm.snapshot.get());
  setLanguage(Lang::en);
  EXPECT_NE(findText(sc, "主机 a"), nullptr);
  EXPECT_NE(findText(sc, "主机 b"), nullptr);
  EXPECT_NE(findText(round, "跨主机"), nullptr);
  EXPECT_NE(findText(round, "主机内"), nullptr);
  EXPECT_EQ(note, "R0–R1 在 a 上 · R2–R3 在 b 上");
}

// The fitted figure still fits with the hosts' names and gaps: inside the
// view, nothing overlapping, block labels at 11 px or more, at a full-HD
// window and at a small export.
TEST(HostsPicture, FitsLargeAndSmall) {
  const std::vector<std::string> eight = {"node1", "node1", "node1", "node1", "node2", "node2", "node2", "node2"};
  for (Vec2 size : {Vec2{1920, 1080}, Vec2{800, 450}}) {
    for (int n : {4, 8}) {
      const std::vector<std::string> hosts = n == 4 ? kTwoHosts : eight;
      const OpSpec s = spec(Op::all_reduce, n);
      const DiagramModel m = buildModel(Program::single, s, ranOn(s, hosts));
      auto op = [&](float u) { return opScene(m, size, u); };
      const float u = fitScale(op, {size, 1.0f, nullptr});
      const Scene sc = op(u);
      EXPECT_TRUE(sceneFits(sc, size, nullptr)) << "op N=" << n << " at " << size.x << "x" << size.y;
      EXPECT_GE(sc.label_px_min, kMinLabelPx) << "op N=" << n << " at " << size.x << "x" << size.y;
      expectGroupedByHost(sc, hosts);
      const RoundModel rm = buildRoundModel(s, "ring", 2, algoRanOn(s, "ring", hosts));
      auto round = [&](float k) { return roundScene(rm, size, k); };
      const float ur = fitScale(round, {size, 1.0f, nullptr});
      const Scene rs = round(ur);
      EXPECT_TRUE(sceneFits(rs, size, nullptr)) << "ring N=" << n << " at " << size.x << "x" << size.y;
      expectGroupedByHost(rs, hosts);
    }
  }
}

}  // namespace
}  // namespace collviz::ui
