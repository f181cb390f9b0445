// File → Open algorithm… without a window: a good file points the state at
// its op, ranks and rounds and joins the algorithm selector; a broken one
// leaves the state as it was and says file:line.
#include <gtest/gtest.h>

#include <algorithm>

#include "app/panels/algo_file_dialog.h"
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

}  // namespace
}  // namespace collviz::test
