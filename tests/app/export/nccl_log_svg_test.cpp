// The figure of an NCCL log (app/files/nccl_log_svg): its arrows follow the
// log's order. The ring's arcs, read back from the SVG, are the ring of the
// "Channel" line in order; the tree's arcs are the parent -> child edges of
// the "Trees" lines; the overlay's counts are the channels using each link.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "app/files/nccl_log_png.h"
#include "app/files/nccl_log_svg.h"

namespace collviz::ui {
namespace {

struct Arc {
  std::string cls;
  int from = -1, to = -1, count = -1, step = -1;
  std::string transport;
};

std::vector<Arc> arcs(const std::string& svg) {
  std::vector<Arc> out;
  std::regex path(R"re(<path class="([a-z-]+)" data-from="(\d+)" data-to="(\d+)"([^>]*)>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), path); it != std::sregex_iterator(); ++it) {
    Arc a;
    a.cls = (*it)[1], a.from = std::stoi((*it)[2]), a.to = std::stoi((*it)[3]);
    std::string rest = (*it)[4];
    std::smatch m;
    if (std::regex_search(rest, m, std::regex(R"re(data-count="(\d+)")re"))) a.count = std::stoi(m[1]);
    if (std::regex_search(rest, m, std::regex(R"re(data-step="(\d+)")re"))) a.step = std::stoi(m[1]);
    if (std::regex_search(rest, m, std::regex(R"re(data-transport="([^"]*)")re"))) a.transport = m[1];
    out.push_back(a);
  }
  return out;
}

const std::string kP = "a:1:1 [0] NCCL INFO ";

nccl_log::Log fixture() {
  auto r = nccl_log::readText(kP + "NCCL version 2.26.2+cuda12.6\n" + kP + "comm 0x1 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0\n" +
                              kP + "Channel 00/02 : 0 1 3 2\n" + kP + "Channel 01/02 : 0 2 3 1\n" + kP +
                              "Trees [0] 1/2/-1->0->-1 [1] 2/-1/-1->0->-1\n" + kP + "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n" + kP +
                              "Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0\n" + kP +
                              "AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..1}\n");
  EXPECT_TRUE(r.ok());
  return *r;
}

TEST(NcclLogSvg, RingArrowsFollowTheChannelLine) {
  nccl_log::Log log = fixture();
  NcclFigureParams p;
  p.channel = 0;
  auto svg = ncclLogSvg(log, p);
  ASSERT_TRUE(svg.ok()) << svg.error().message;
  std::vector<int> order;
  int prevTo = -1;
  std::set<std::pair<int, int>> tree;
  for (const Arc& a : arcs(*svg)) {
    if (a.cls == "ring-link") {
      ASSERT_EQ(a.step, int(order.size()));
      if (prevTo >= 0) EXPECT_EQ(a.from, prevTo);  // each arrow starts where the last ended
      prevTo = a.to;
      order.push_back(a.from);
      if (a.step == 3) EXPECT_EQ(a.to, 0);  // the cycle closes on rank 0
    }
    if (a.cls == "tree-link") tree.insert({a.from, a.to});
    if (a.from == 0 && a.to == 1) EXPECT_EQ(a.transport, "P2P/CUMEM");
    if (a.from == 2 && a.to == 0) EXPECT_EQ(a.transport, "NET/IB");
  }
  EXPECT_EQ(order, log.comms[0].rings[0].order);
  EXPECT_EQ(tree, (std::set<std::pair<int, int>>{{0, 1}, {0, 2}}));
  EXPECT_NE(svg->find("stroke-dasharray"), std::string::npos);  // 1 -> 3 crosses nodes
  EXPECT_NE(svg->find(">LL128</text>"), std::string::npos);
}

TEST(NcclLogSvg, OverlayCountsTheChannelsOfEachLink) {
  nccl_log::Log log = fixture();
  auto svg = ncclLogSvg(log, NcclFigureParams{});
  ASSERT_TRUE(svg.ok());
  std::map<std::pair<int, int>, int> got;
  for (const Arc& a : arcs(*svg))
    if (a.cls == "overlay-link") got[{a.from, a.to}] = a.count;
  // 0 1 3 2 and 0 2 3 1: 0->1, 1->3, 3->2, 2->0, 0->2, 2->3, 3->1, 1->0, each once.
  std::map<std::pair<int, int>, int> want{{{0, 1}, 1}, {{1, 3}, 1}, {{3, 2}, 1}, {{2, 0}, 1},
                                          {{0, 2}, 1}, {{2, 3}, 1}, {{3, 1}, 1}, {{1, 0}, 1}};
  EXPECT_EQ(got, want);
}

TEST(NcclLogSvg, MissingChannelIsAClearError) {
  NcclFigureParams p;
  p.channel = 7;
  auto svg = ncclLogSvg(fixture(), p);
  ASSERT_FALSE(svg.ok());
  EXPECT_EQ(svg.error().message, "channel 7: the log has neither its ring nor its trees (rings of channels 0–1)");
}

// The real 8-rank 2-node log: the overlay of its 24 rings (channels 12-23 repeat 0-11).
TEST(NcclLogSvg, RealEightRankOverlay) {
  std::string dir = std::getenv("COLLVIZ_NCCL_LOGS") ? std::getenv("COLLVIZ_NCCL_LOGS") : COLLVIZ_NCCL_LOGS_DIR;
  std::string f = dir + "/boeschf_nccl-benchmark-on-alps-2025-n8N2-rank0.log";
  if (!std::filesystem::exists(f)) GTEST_SKIP() << "the real NCCL logs are not here: " << f << " is missing";
  auto log = nccl_log::read({f});
  ASSERT_TRUE(log.ok());
  auto svg = ncclLogSvg(*log, NcclFigureParams{});
  ASSERT_TRUE(svg.ok());
  std::map<std::pair<int, int>, int> got;
  int total = 0;
  for (const Arc& a : arcs(*svg))
    if (a.cls == "overlay-link") got[{a.from, a.to}] = a.count, total += a.count;
  EXPECT_EQ(total, 24 * 8);
  EXPECT_EQ((got[{0, 3}]), 10);  // grep + awk over the "Channel NN/24" lines: channels 0 1 2 4 10, 12 13 14 16 22
  EXPECT_EQ((got[{5, 0}]), 2);  // rings ending 5 (0 and 12)
}

// The pixel at (x, y) of `img` at `scale`, against `c`: within 40 of 255 per channel.
bool near(const Image& img, float scale, float x, float y, Rgba c) {
  const int px = int(x * scale), py = int(y * scale);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int X = px + dx, Y = py + dy;
      if (X < 0 || Y < 0 || X >= img.width || Y >= img.height) continue;
      const uint8_t* p = img.rgb.data() + (std::size_t(Y) * img.width + X) * 3;
      if (std::abs(p[0] - int(c.r * 255)) < 40 && std::abs(p[1] - int(c.g * 255)) < 40 && std::abs(p[2] - int(c.b * 255)) < 40)
        return true;
    }
  return false;
}

TEST(NcclLogPng, EveryArcAndBoxIsDrawnWhereItsShapeIs) {
  nccl_log::Log log = fixture();
  for (int channel : {0, 1, -1}) {
    NcclFigureParams p;
    p.channel = channel;
    auto fig = ncclLogFigure(log, p);
    ASSERT_TRUE(fig.ok()) << fig.error().message;
    for (float scale : {1.0f, 2.0f}) {
      auto img = figureToImage(*fig, scale);
      ASSERT_TRUE(img.ok()) << img.error().message;
      ASSERT_EQ(img->width, int(std::ceil(fig->width * scale)));
      ASSERT_EQ(img->height, int(std::ceil(fig->height * scale)));
      int arcs_seen = 0;
      for (const NcclShape& s : fig->shapes) {
        if (s.kind == NcclShape::Kind::arc && !s.dashed) {  // the cubic's middle: (P0 + 3 C0 + 3 C1 + P1) / 8
          const float x = (s.x0 + 3 * s.cx0 + 3 * s.cx1 + s.x1) / 8, y = (s.y0 + 3 * s.cy0 + 3 * s.cy1 + s.y1) / 8;
          EXPECT_TRUE(near(*img, scale, x, y, s.stroke))
              << "channel " << channel << " scale " << scale << ": the arc " << s.data << " is not drawn at (" << x << ", " << y << ")";
          ++arcs_seen;
        }
        if (s.kind == NcclShape::Kind::rect && s.filled) {
          EXPECT_TRUE(near(*img, scale, s.x0 + s.x1 / 2, s.y0 + 3, s.fill)) << "a box at (" << s.x0 << ", " << s.y0 << ") is not drawn";
        }
      }
      EXPECT_GT(arcs_seen, 0) << "channel " << channel;
    }
  }
  auto fig = ncclLogFigure(log, NcclFigureParams{});
  ASSERT_TRUE(fig.ok());
  EXPECT_FALSE(figureToImage(*fig, 9.0f).ok());
  EXPECT_FALSE(figureToImage(*fig, 0.1f).ok());
}

}  // namespace
}  // namespace collviz::ui
