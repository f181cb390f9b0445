// Algorithms on real Gloo send/recv through the engine: every round's
// buffers decoded from the bytes and held against the reference, the final
// output equal to the backend's own op, the counted bytes equal to the
// schedule and the formula; faults in the middle of a schedule.
#include <gmock/gmock.h>

#include <bit>

#include "engine/algo/algorithms.h"
#include "engine/algo/reference.h"
#include "tests/engine/algo/algo_run_check.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class AlgoEveryN : public ::testing::TestWithParam<int> {};

TEST_P(AlgoEveryN, EveryAlgorithmEveryOp) {
  const int n = GetParam();
  Engine engine;
  for (const algo::Algorithm& a : algo::algorithms()) {
    if (!a.build) continue;
    for (Op op : a.ops) {
      const OpSpec s = makeSpec(op, n, 2, DType::f32, RedOp::sum, usesRoot(op) ? n - 1 : 0);
      auto snap = runAlgo(engine, s, std::string(a.name));
      ASSERT_TRUE(snap) << a.name << " " << describe(s) << ": no answer";
      checkRun(*snap, s, std::string(a.name));
    }
  }
}
INSTANTIATE_TEST_SUITE_P(Ranks, AlgoEveryN, ::testing::Values(1, 2, 3, 4, 5, 7, 8, 16));

// Dtypes, reduce ops and roots on a power of two and on a folded N.
TEST(Algo, DtypesRedopsRoots) {
  struct Case { DType t; RedOp r; int64_t e; };
  const Case cases[] = {{DType::f64, RedOp::prod, 2}, {DType::i32, RedOp::max, 3},
                        {DType::f16, RedOp::avg, 2},  {DType::u8, RedOp::min, 3},
                        {DType::i64, RedOp::sum, 5}};
  Engine engine;
  for (int n : {3, 4}) {
    for (const Case& c : cases)
      for (const algo::Algorithm& a : algo::algorithms()) {
        if (!a.build) continue;
        for (Op op : a.ops) {
          if (!reduces(op) && c.r != RedOp::sum) continue;  // copies: one dtype pass is enough
          const OpSpec s = makeSpec(op, n, c.e, c.t, c.r, usesRoot(op) ? 1 : 0);
          auto snap = runAlgo(engine, s, std::string(a.name));
          ASSERT_TRUE(snap);
          checkRun(*snap, s, std::string(a.name));
        }
      }
    for (int root = 0; root < n; ++root)
      for (auto [op, algo] : {std::pair{Op::broadcast, "ring"}, {Op::broadcast, "tree"},
                              {Op::reduce, "tree"}, {Op::scatter, "direct"},
                              {Op::gather, "direct"}}) {
        const OpSpec s = makeSpec(op, n, 2, DType::f32, RedOp::sum, root);
        auto snap = runAlgo(engine, s, algo);
        ASSERT_TRUE(snap);
        checkRun(*snap, s, algo);
      }
  }
}

// The ring, read from the bytes: N transfers r -> r+1 of one block per round;
// after round k of the reduce-scatter phase the block a rank just reduced
// names k+1 contributors, consecutive in ring order, ending at that rank.
TEST(Algo, RingAllReduceFromTheBytes) {
  const int n = 5;
  Engine engine;
  const OpSpec s = makeSpec(Op::all_reduce, n, 4);
  auto snap = runAlgo(engine, s, "ring");
  ASSERT_TRUE(snap && snap->error.empty());
  ASSERT_EQ(int(snap->steps.size()), 2 * (n - 1));
  for (int k = 0; k < 2 * (n - 1); ++k) {
    const StepResult& st = snap->steps[std::size_t(k)];
    EXPECT_EQ(st.phase, k < n - 1 ? "reduce-scatter" : "all-gather");
    ASSERT_EQ(int(st.transfers.size()), n);
    for (const Transfer& t : st.transfers) {
      EXPECT_EQ(t.to, (t.from + 1) % n);
      EXPECT_EQ(t.blocks, 1);
      EXPECT_EQ(t.bytes, 4 * sizeof(float));
      if (k >= n - 1) continue;
      const uint32_t got = st.ranks[std::size_t(t.to)].output.labels[std::size_t(t.block)].contributors;
      EXPECT_EQ(std::popcount(got), k + 2) << "round " << k + 1;
      for (int j = 0; j <= k + 1; ++j) EXPECT_TRUE(got & (1u << ((t.to - j + n) % n)));
    }
  }
  for (int r = 0; r < n; ++r)  // rank r owns block r after the first phase
    EXPECT_EQ(snap->steps[std::size_t(n - 2)].ranks[std::size_t(r)].output.labels[std::size_t(r)].contributors,
              (1u << n) - 1);
  EXPECT_EQ(snap->final_diffs, 0);
}

TEST(Algo, BackToBackChecksTheOutputOnce) {
  Engine engine;
  for (auto [op, algo] : {std::pair{Op::all_reduce, "ring"}, {Op::all_to_all, "bruck"}}) {
    const OpSpec s = makeSpec(op, 4, 8);
    auto snap = runAlgo(engine, s, algo, false);
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no answer");
    ASSERT_EQ(snap->steps.size(), 1u);
    EXPECT_TRUE(snap->verified);
    checkStep(snap->steps[0]);
  }
}

TEST(Algo, RefusedWithTheAlgorithmsThatFit) {
  Engine engine;
  auto snap = runAlgo(engine, makeSpec(Op::all_reduce, 4, 2), "pairwise");
  ASSERT_TRUE(snap);
  EXPECT_TRUE(snap->rejected);
  EXPECT_THAT(snap->error, HasSubstr("native, ring, tree, halving_doubling"));
}

// A rank killed or stopped in the middle of a schedule: the error names the
// round and the rank; the next request works.
TEST(AlgoFaults, KilledMidScheduleNamesTheRound) {
  EngineOptions eo;
  std::function<void(int)> hook;
  eo.on_round = [&hook](int round, int) { if (hook) hook(round); };
  Engine engine(eo);
  const OpSpec s = makeSpec(Op::all_reduce, 4, 2);
  ASSERT_TRUE(runAlgo(engine, s, "ring"));
  const auto pids = engine.workerPids();
  ASSERT_EQ(pids.size(), 4u);
  hook = [&](int round) {
    if (round == 2) ::kill(pids[2], SIGKILL);
  };
  auto snap = runAlgo(engine, s, "ring");
  hook = nullptr;
  ASSERT_TRUE(snap);
  EXPECT_THAT(snap->error, AllOf(HasSubstr("round 3/6"), HasSubstr("reduce-scatter 3/3"),
                                 HasSubstr("rank 2"), HasSubstr("signal 9")));
  EXPECT_FALSE(snap->verified);
  for (pid_t p : pids) EXPECT_TRUE(gone(p)) << p;
  auto next = runAlgo(engine, s, "ring");
  ASSERT_TRUE(next);
  checkRun(*next, s, "ring");
}

TEST(AlgoFaults, StoppedMidScheduleNamesTheRound) {
  EngineOptions eo;
  eo.deadline = 1000ms;
  std::function<void(int)> hook;
  eo.on_round = [&hook](int round, int) { if (hook) hook(round); };
  Engine engine(eo);
  const OpSpec s = makeSpec(Op::all_to_all, 4, 2);
  ASSERT_TRUE(runAlgo(engine, s, "pairwise"));
  const auto pids = engine.workerPids();
  ASSERT_EQ(pids.size(), 4u);
  hook = [&](int round) {
    if (round == 1) ::kill(pids[1], SIGSTOP);
  };
  auto snap = runAlgo(engine, s, "pairwise");
  hook = nullptr;
  ASSERT_TRUE(snap);
  EXPECT_THAT(snap->error, AllOf(HasSubstr("step 2/4 (exchange 1/3)"), HasSubstr("rank(s) 1"),
                                 HasSubstr("hung")));
  auto next = runAlgo(engine, s, "pairwise");
  ASSERT_TRUE(next);
  checkRun(*next, s, "pairwise");
  for (pid_t p : pids) EXPECT_TRUE(gone(p)) << p;
}

}  // namespace
}  // namespace collviz::test
