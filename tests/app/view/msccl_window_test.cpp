// File → Open algorithm… without a window: a good file points the state at
// its op, ranks and rounds and joins the algorithm selector; a broken one
// leaves the state as it was and says file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "app/panels/algo_file_dialog.h"
#include "app/view/round_layout.h"
#include "app/view/round_model.h"
#include "app/view/round_play.h"
#include "tests/engine/algo/msccl/msccl_fixtures.h"

namespace collviz::test {
namespace {

TEST(MscclWindow, OpenedFileJoinsTheSelector) {
  ui::AppState s;  // starts at broadcast
  ASSERT_TRUE(ui::openAlgoFile(s, goodFixture("ring_allgather_4.xml")));
  EXPECT_EQ(s.runSpec().op, Op::all_gather);
  EXPECT_EQ(s.spec.ranks, 4);
  EXPECT_EQ(s.view.algo, "msccl:ring_allgather_4");
  const auto choices = ui::algoChoices(s);
  EXPECT_NE(std::find(choices.begin(), choices.end(), "msccl:ring_allgather_4"), choices.end());
  EXPECT_TRUE(ui::isRoundAlgo("msccl:ring_allgather_4", Op::all_gather));
  EXPECT_FALSE(ui::isRoundAlgo("msccl:ring_allgather_4", Op::all_reduce));
  EXPECT_EQ(ui::algoRounds("msccl:ring_allgather_4", s.runSpec()), 3);
}

TEST(MscclWindow, BrokenFileLeavesTheStateAndSaysWhere) {
  ui::AppState s;
  const ui::AppState before = s;
  const std::string bad = std::string(COLLVIZ_MSCCL_DIR) + "/bad/two_tbs.xml";
  const Status st = ui::openAlgoFile(s, bad);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message().rfind(bad + ":17: ", 0), 0u) << st.message();
  EXPECT_EQ(s.entry, before.entry);
  EXPECT_EQ(s.spec, before.spec);
  EXPECT_EQ(s.view.algo, before.view.algo);
}

// Issue 37: a 2-channel file drawn as clearly as a built-in algorithm. Each
// block's two chunks are parts of one tile (one label per block, each chunk's
// index in its corner), and the two channels' arrows lie apart: in the grid
// a rank's two messages at least three arrow widths apart, in the link view
// bent differently. (Before: eight tiles a row with the labels twice, and the
// channels' arrows a few pixels apart, on top of each other in the link view.)
TEST(MscclWindow, TwoChannelRoundShowsOneTilePerBlockAndChannelsApart) {
  ui::AppState s;
  ASSERT_TRUE(ui::openAlgoFile(s, goodFixture("ring_allreduce_4_2ch.xml")));
  const ui::RoundModel rm = ui::buildRoundModel(s.runSpec(), s.view.algo, 2, nullptr);
  ASSERT_EQ(rm.slots, 8);
  EXPECT_EQ(rm.parts, 2);
  EXPECT_EQ(rm.channels, 2);
  ui::ViewSettings v;
  v.algo = s.view.algo;
  v.round = 2;
  v.in_file = v.hide_times = true;
  const float u = 1.5f;
  const ui::Scene sc = ui::layoutRounds(rm, ui::roundDiagramModel(rm), v, ui::makeTheme(ui::ThemeKind::light),
                                        {{1920, 1080}, u, nullptr, 1.0f});
  // Labels per row: texts inside the row's tiles, not a chunk's index or a badge.
  auto isLabel = [](const std::string& t) {
    if (t.empty() || t == "+" || t == "→" || t.find("←") != std::string::npos) return false;
    return t.find_first_not_of("0123456789") != std::string::npos;
  };
  for (int column = 0; column < 2; ++column)
    for (int rank = 0; rank < 4; ++rank) {
      int labels = 0, indices = 0;
      for (const ui::TextItem& t : sc.texts) {
        bool inside = false;
        for (const ui::HitBox& h : sc.hits)
          inside = inside || (h.column == column && h.row == rank && h.rect.contains(t.anchor));
        if (!inside) continue;
        labels += isLabel(t.text);
        indices += !isLabel(t.text) && t.text.find_first_not_of("01") == std::string::npos;
      }
      EXPECT_EQ(labels, 4) << "column " << column << " R" << rank << ": one label per block of two chunks";
      EXPECT_EQ(indices, 8) << "column " << column << " R" << rank << ": each chunk's index";
    }
  // The grid's arrows: per sending rank, its two messages' starts.
  float grid_x0 = 1e9f;
  for (const ui::CurveInstance& c : sc.curves) grid_x0 = std::min(grid_x0, c.p0.x);
  std::map<int, std::vector<float>> starts;  // sender's rank -> start y of its arrows
  const ui::Region* links = nullptr;
  for (const ui::Region& r : sc.regions)
    if (r.name == "links") links = &r;
  ASSERT_NE(links, nullptr);
  float width = 0;
  std::vector<const ui::CurveInstance*> ring;
  for (const ui::CurveInstance& c : sc.curves) {
    if (links->rect.contains(c.p0)) {
      ring.push_back(&c);
      continue;
    }
    if (std::abs(c.p0.x - grid_x0) > 1) continue;
    for (const ui::HitBox& h : sc.hits)  // the sender: the row the arrow leaves
      if (h.column == 0 && h.block == 0 && c.p0.y >= h.rect.y - 8 && c.p0.y <= h.rect.y + h.rect.h + 8)
        starts[h.row].push_back(c.p0.y);
    width = std::max(width, c.width);
  }
  ASSERT_EQ(starts.size(), 4u) << "four senders";
  for (auto& [row, ys] : starts) {
    ASSERT_EQ(ys.size(), 2u) << "two channels' messages from one rank";
    EXPECT_GE(std::abs(ys[0] - ys[1]), 3 * width) << "channels' arrows " << std::abs(ys[0] - ys[1]) << " px apart, "
                                                 << width << " px wide";
  }
  // The link view: the same two nodes joined by each channel, bent apart.
  ASSERT_EQ(ring.size(), 8u);
  int pairs = 0;
  for (std::size_t i = 0; i < ring.size(); ++i)
    for (std::size_t j = i + 1; j < ring.size(); ++j) {
      const ui::CurveInstance &a = *ring[i], &b = *ring[j];
      if (std::hypot(a.p0.x - b.p0.x, a.p0.y - b.p0.y) > 1 || std::hypot(a.p3.x - b.p3.x, a.p3.y - b.p3.y) > 1) continue;
      ++pairs;
      EXPECT_GE(std::hypot(a.p1.x - b.p1.x, a.p1.y - b.p1.y), 4.0f) << "two channels' arrows on top of each other";
    }
  EXPECT_EQ(pairs, 4);
}

}  // namespace
}  // namespace collviz::test
