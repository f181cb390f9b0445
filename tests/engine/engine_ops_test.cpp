// Every op through a real Engine on Gloo: N in {1,2,3,4,8}, several E, each
// Gloo dtype and reduce op, several roots. Each snapshot is re-checked here
// (engine_test_support.h) so a wrong verify.cpp cannot pass a wrong result.
// One test per (N, op): one Engine, one worker group per test process.
#include <gtest/gtest-spi.h>

#include <set>

#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

constexpr DType kGlooDTypes[] = {DType::f32, DType::f64, DType::f16,
                                 DType::i32, DType::i64, DType::u8};
constexpr RedOp kRedOps[] = {RedOp::sum, RedOp::prod, RedOp::min, RedOp::max, RedOp::avg};

std::vector<int> rootsFor(int n) {
  std::set<int> r = {0, n - 1, n / 2};
  return {r.begin(), r.end()};
}

// The full dtype x redop matrix at N = 4; elsewhere every dtype with sum and
// max, f32 with every reduce op, and prod for the integer types.
std::vector<std::pair<DType, RedOp>> typeMatrix(int n, Op op) {
  std::vector<std::pair<DType, RedOp>> out;
  for (DType t : kGlooDTypes) {
    if (!reduces(op)) {
      out.push_back({t, RedOp::sum});
      continue;
    }
    for (RedOp r : kRedOps) {
      if (r == RedOp::avg && !isFloat(t)) continue;
      const bool thin = r == RedOp::sum || r == RedOp::max || t == DType::f32 ||
                        (r == RedOp::prod && !isFloat(t));
      if (n == 4 || thin) out.push_back({t, r});
    }
  }
  return out;
}

class EngineOps : public ::testing::TestWithParam<std::tuple<int, Op>> {};

TEST_P(EngineOps, MatchesOracle) {
  const auto [n, op] = GetParam();
  Engine engine;
  const std::vector<int64_t> elems = n == 4 ? std::vector<int64_t>{1, 4, 33}
                                            : std::vector<int64_t>{1, 33};
  int ran = 0;
  for (auto [t, r] : typeMatrix(n, op))
    for (int64_t e : elems)
      for (int root : usesRoot(op) ? rootsFor(n) : std::vector<int>{0}) {
        // Roots: every one for the E = 1 case, the first and last otherwise.
        if (e != 1 && root != 0 && root != n - 1) continue;
        const OpSpec s = makeSpec(op, n, e, t, r, root);
        auto snap = runAndWait(engine, s);
        ASSERT_TRUE(snap) << describe(s) << ": no snapshot";
        checkSingle(*snap, s);
        ASSERT_FALSE(HasFatalFailure());
        ++ran;
      }
  // A larger E: the pattern goes from "full" to "contributors mod K" at
  // f16/u8 and must still verify.
  for (DType t : {DType::f16, DType::u8, DType::f32}) {
    const OpSpec s = makeSpec(op, n, 1000, t, RedOp::sum, n - 1);
    auto snap = runAndWait(engine, s);
    ASSERT_TRUE(snap);
    checkSingle(*snap, s);
    ++ran;
  }
  EXPECT_GE(ran, 10);
  // The group lived across every op of this N: one set of workers.
  EXPECT_EQ(engine.workerPids().size(), std::size_t(n));
}

std::string paramName(const ::testing::TestParamInfo<std::tuple<int, Op>>& i) {
  return std::string(name(std::get<1>(i.param))) + "_N" + std::to_string(std::get<0>(i.param));
}

INSTANTIATE_TEST_SUITE_P(
    AllOps, EngineOps,
    ::testing::Combine(::testing::Values(1, 2, 3, 4, 8),
                       ::testing::Values(Op::broadcast, Op::scatter, Op::gather, Op::reduce,
                                         Op::all_gather, Op::reduce_scatter, Op::all_reduce,
                                         Op::all_to_all)),
    paramName);

// all_reduce_decomposed: reduce_scatter, then all_gather of its outputs; the
// result equals a real all_reduce on the same inputs, byte for byte.
class Decomposed : public ::testing::TestWithParam<int> {};

TEST_P(Decomposed, EqualsAllReduce) {
  const int n = GetParam();
  Engine engine;
  for (auto [t, r] : std::vector<std::pair<DType, RedOp>>{
           {DType::f32, RedOp::sum}, {DType::f32, RedOp::avg}, {DType::f16, RedOp::sum},
           {DType::i32, RedOp::max}, {DType::i64, RedOp::prod}, {DType::u8, RedOp::min},
           {DType::f64, RedOp::sum}})
    for (int64_t e : {int64_t(1), int64_t(4), int64_t(33)}) {
      const OpSpec s = makeSpec(Op::all_reduce, n, e, t, r);
      SCOPED_TRACE(describe(s));
      auto snap = runAndWait(engine, s, Program::all_reduce_decomposed);
      ASSERT_TRUE(snap);
      ASSERT_TRUE(snap->error.empty()) << snap->error;
      EXPECT_EQ(snap->program, Program::all_reduce_decomposed);
      ASSERT_EQ(snap->steps.size(), 2u);
      const StepResult &rs = snap->steps[0], &ag = snap->steps[1];
      EXPECT_EQ(rs.spec.op, Op::reduce_scatter);
      EXPECT_EQ(ag.spec.op, Op::all_gather);
      checkStep(rs);
      checkStep(ag, false);
      const std::size_t blk = std::size_t(e) * dtypeSize(t);
      for (int k = 0; k < n; ++k) {
        // Step 2's input is step 1's output, byte for byte.
        EXPECT_EQ(ag.ranks[k].input.bytes, rs.ranks[k].output.bytes) << "rank " << k;
        // And every rank ends with Σ₀ … Σₙ₋₁ (labels) = every rank's shard.
        ASSERT_EQ(ag.ranks[k].output.bytes.size(), blk * n);
        ASSERT_EQ(ag.ranks[k].output.labels.size(), std::size_t(n));
        for (int j = 0; j < n; ++j) {
          EXPECT_EQ(0, std::memcmp(ag.ranks[k].output.bytes.data() + j * blk,
                                   rs.ranks[j].output.bytes.data(), blk));
          const BlockLabel& l = ag.ranks[k].output.labels[j];
          EXPECT_EQ(l.kind, BlockLabel::Kind::reduced);
          EXPECT_EQ(l.shard, n > 1 ? j : -1);
          if (r != RedOp::min && r != RedOp::max) {
            EXPECT_EQ(l.contributors, (1u << n) - 1);
          }
        }
      }
      EXPECT_TRUE(snap->all_reduce_compared);
      EXPECT_EQ(snap->all_reduce_diffs, 0);
      EXPECT_TRUE(snap->verified);
      // Independently: a real all_reduce through the engine, same spec.
      auto ar = runAndWait(engine, s);
      ASSERT_TRUE(ar);
      checkSingle(*ar, s);
      for (int k = 0; k < n; ++k) {
        EXPECT_EQ(ar->steps[0].ranks[k].input.bytes, rs.ranks[k].input.bytes);
        EXPECT_EQ(ar->steps[0].ranks[k].output.bytes, ag.ranks[k].output.bytes) << "rank " << k;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Ranks, Decomposed, ::testing::Values(1, 2, 3, 4, 8),
                         [](const auto& i) { return "N" + std::to_string(i.param); });

// The re-check in engine_test_support.h fails on a wrong result even where
// the snapshot's own verification (verify.cpp) says all is well.
TEST(IndependentCheck, CatchesWhatAWrongVerifierWouldMiss) {
  Engine engine;
  auto a2a = runAndWait(engine, makeSpec(Op::all_to_all, 3, 4, DType::i32));
  ASSERT_TRUE(a2a && a2a->verified);
  StepResult st = a2a->steps[0];
  st.ranks[1].output.bytes[5] ^= std::byte{4};  // verify stays "verified"
  EXPECT_NONFATAL_FAILURE(checkStep(st), "is not input block 1 of rank 0");
  auto ar = runAndWait(engine, makeSpec(Op::all_reduce, 3, 4, DType::f32, RedOp::max));
  ASSERT_TRUE(ar && ar->verified);
  StepResult st2 = ar->steps[0];
  writeElement(st2.ranks[2].output.bytes.data(), DType::f32, 6, 1.0);
  EXPECT_NONFATAL_FAILURE(checkStep(st2), "own reduction");
  StepResult st3 = ar->steps[0];
  st3.ranks[0].output.labels[1].kind = BlockLabel::Kind::source;
  EXPECT_NONFATAL_FAILURE(checkStep(st3), "l.kind");
  StepResult st4 = a2a->steps[0];
  st4.ranks[0].input.bytes[0] ^= std::byte{1};  // an input that is not the pattern,
  st4.ranks[0].output.bytes[0] ^= std::byte{1};  // faithfully copied to R0's A₀
  EXPECT_NONFATAL_FAILURE(checkStep(st4), "is not the pattern");
}

// Changing N restarts the group; keeping it keeps the workers.
TEST(EngineGroup, KeepsWorkersUntilNChanges) {
  Engine engine;
  auto a = runAndWait(engine, makeSpec(Op::all_reduce, 2, 4));
  ASSERT_TRUE(a && a->error.empty());
  const auto p2 = engine.workerPids();
  ASSERT_EQ(p2.size(), 2u);
  auto b = runAndWait(engine, makeSpec(Op::broadcast, 2, 8, DType::i64, RedOp::sum, 1));
  ASSERT_TRUE(b && b->verified);
  EXPECT_EQ(engine.workerPids(), p2);
  EXPECT_GT(b->seq, a->seq);
  auto c = runAndWait(engine, makeSpec(Op::all_reduce, 3, 4));
  ASSERT_TRUE(c && c->verified);
  const auto p3 = engine.workerPids();
  ASSERT_EQ(p3.size(), 3u);
  for (pid_t p : p2) {
    EXPECT_TRUE(std::find(p3.begin(), p3.end(), p) == p3.end());
    EXPECT_TRUE(gone(p)) << "old worker " << p << " still exists";
  }
}

}  // namespace
}  // namespace collviz::test
