// Schedules on symbols, no processes: every algorithm for every op it
// serves, N 1..16 and every root ends with what the op gives; the round
// count and the busiest rank's bytes match the textbook figures; the ring's
// invariants hold round by round.
#include <gtest/gtest.h>

#include <bit>

#include "engine/algo/algorithms.h"
#include "engine/algo/reference.h"

namespace collviz::algo {
namespace {

OpSpec spec(Op op, int n, int root = 0, int64_t e = 3) {
  OpSpec s;
  s.op = op;
  s.ranks = n;
  s.elems = e;
  s.root = root;
  return s;
}

TEST(Schedules, EveryAlgorithmComputesItsOpForEveryNAndRoot) {
  int checked = 0;
  for (const Algorithm& a : algorithms()) {
    if (!a.build) continue;
    for (Op op : a.ops)
      for (int n = 1; n <= 16; ++n)
        for (int root = 0; root < (usesRoot(op) ? n : 1); ++root) {
          const OpSpec s = spec(op, n, root);
          SCOPED_TRACE(std::string(a.name) + " " + std::string(name(op)) + " N=" +
                       std::to_string(n) + " root=" + std::to_string(root));
          auto sch = buildSchedule(a.name, s);
          ASSERT_TRUE(sch) << sch.error().message;
          const Reference ref = simulate(*sch);
          EXPECT_EQ(ref.error, "");
          const Status st = matchesOracle(*sch, ref);
          EXPECT_TRUE(st) << st.message();
          EXPECT_EQ(ref.rounds.size(), sch->rounds.size());
          // Every message goes to another rank (NCCL would wait forever on
          // half of a send-to-self pair), and none is empty.
          for (const Round& rd : sch->rounds)
            for (const Move& m : rd.moves) {
              EXPECT_NE(m.from, m.to) << rd.name();
              EXPECT_FALSE(m.src.empty()) << rd.name();
            }
          const Figures f = figuresFor(a.name, s);
          EXPECT_EQ(sch->messageRounds(), f.rounds) << f.text;
          uint64_t busiest = 0;
          for (int r = 0; r < n; ++r) busiest = std::max(busiest, sch->bytesSent(r));
          if (f.exact) {
            EXPECT_EQ(double(busiest), f.bytes) << f.text;
          }
          ++checked;
        }
  }
  EXPECT_GT(checked, 500);
}

TEST(Schedules, RingAllReduceInvariants) {
  for (int n : {2, 3, 4, 5, 7, 8, 16}) {
    SCOPED_TRACE("N=" + std::to_string(n));
    auto sch = buildSchedule("ring", spec(Op::all_reduce, n));
    ASSERT_TRUE(sch);
    ASSERT_EQ(int(sch->rounds.size()), 2 * (n - 1));
    const Reference ref = simulate(*sch);
    for (int k = 0; k < 2 * (n - 1); ++k) {
      const Round& round = sch->rounds[std::size_t(k)];
      ASSERT_EQ(int(round.moves.size()), n);
      for (const Move& m : round.moves) {
        EXPECT_EQ(m.to, (m.from + 1) % n);
        EXPECT_EQ(m.src.size(), 1u);
        EXPECT_EQ(m.reduce, k < n - 1);
      }
      if (k >= n - 1) continue;
      // After round k+1 of the reduce-scatter phase, the block a rank just
      // reduced has k+2 contributors... counted from 1: round j leaves j+1,
      // consecutive in ring order ending at the rank itself.
      for (const Move& m : round.moves) {
        const SlotState& st = ref.rounds[std::size_t(k)][std::size_t(m.to)][std::size_t(m.dst[0])];
        EXPECT_EQ(std::popcount(st.ranks), k + 2);
        for (int j = 0; j <= k + 1; ++j)
          EXPECT_TRUE(st.ranks & (1u << ((m.to - j + n) % n))) << "round " << k + 1;
      }
    }
    // Rank r ends the first phase owning block r, fully reduced.
    for (int r = 0; r < n; ++r)
      EXPECT_EQ(ref.rounds[std::size_t(n - 2)][std::size_t(r)][std::size_t(r)].ranks, (1u << n) - 1);
  }
}

// A round that copies locally and sends becomes up to three steps, in
// order; a slot copied onto itself is no move; a round left with nothing
// is dropped. Every built schedule is already split.
TEST(Schedules, LocalCopiesBecomeStepsOfTheirOwn) {
  Schedule s = emptySchedule(spec(Op::all_to_all, 2), "test", 2);
  Round& r = addRound(s, "swap", 1, 1);
  r.before = {{0, {0, 1}, {1, 0}}, {1, {0, 1}, {0, 1}}};  // rank 1: identity
  addMove(r, 0, 1, {0}, false);
  r.after = {{1, {1}, {1}}};  // identity only: nothing left
  separateLocalSteps(s);
  ASSERT_EQ(s.rounds.size(), 2u);
  EXPECT_TRUE(s.rounds[0].local());
  ASSERT_EQ(s.rounds[0].before.size(), 1u);
  EXPECT_EQ(s.rounds[0].before[0].rank, 0);
  EXPECT_EQ(s.rounds[0].name(), "local copies before (swap 1/1)");
  EXPECT_FALSE(s.rounds[1].local());
  EXPECT_TRUE(s.rounds[1].before.empty() && s.rounds[1].after.empty());
  EXPECT_EQ(s.messageRounds(), 1);
  for (const Algorithm& a : algorithms()) {
    if (!a.build) continue;
    for (Op op : a.ops)
      for (int n : {1, 3, 4, 7}) {
        auto sch = buildSchedule(a.name, spec(op, n));
        ASSERT_TRUE(sch);
        for (const Round& rd : sch->rounds)
          EXPECT_TRUE(rd.moves.empty() || (rd.before.empty() && rd.after.empty())) << a.name << " " << rd.name();
      }
  }
}

TEST(Schedules, NamesAndErrors) {
  EXPECT_EQ(algorithmsFor(Op::all_reduce), "native, ring, tree, halving_doubling");
  EXPECT_EQ(algorithmsFor(Op::all_to_all), "native, pairwise, bruck");
  const Status bad = checkAlgorithm("pairwise", spec(Op::all_reduce, 4));
  EXPECT_NE(bad.message().find("native, ring, tree, halving_doubling"), std::string::npos);
  const Status unknown = checkAlgorithm("butterfly", spec(Op::broadcast, 4));
  EXPECT_NE(unknown.message().find("native, ring, tree"), std::string::npos) << unknown.message();
  auto sch = buildSchedule("ring", spec(Op::all_reduce, 4));
  ASSERT_TRUE(sch);
  EXPECT_EQ(sch->rounds[1].name(), "reduce-scatter 2/3");
  EXPECT_EQ(sch->rounds[3].name(), "all-gather 1/3");
}

}  // namespace
}  // namespace collviz::algo
