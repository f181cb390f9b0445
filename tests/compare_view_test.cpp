// The compare view's model without GL: two algorithms' rounds and bytes from
// the schedules and formulas, the α–β fit, and two real runs side by side.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "app/view/compare_model.h"
#include "engine/engine.h"

namespace collviz::ui {
namespace {

OpSpec spec(Op op, int n, int64_t elems = 4) {
  OpSpec s;
  s.op = op;
  s.ranks = n;
  s.elems = elems;
  return s;
}

TEST(CompareModel, RingAgainstTreeAllReduceAtEightFromTheFormulas) {
  const OpSpec s = spec(Op::all_reduce, 8, 16);
  const Comparison c = buildComparison(s, "ring", nullptr, "tree", nullptr);
  const CompareRow& ring = c.rows[0];
  const CompareRow& tree = c.rows[1];
  ASSERT_TRUE(ring.error.empty()) << ring.error;
  ASSERT_TRUE(tree.error.empty()) << tree.error;
  EXPECT_EQ(ring.rounds, 14);  // 2(N-1)
  EXPECT_EQ(ring.formula_rounds, 14);
  EXPECT_EQ(tree.rounds, 6);   // 2⌈log₂N⌉
  EXPECT_EQ(tree.formula_rounds, 6);
  const double S = 8.0 * 16 * 4;  // N blocks of 16 f32
  EXPECT_DOUBLE_EQ(ring.formula_bytes, 2.0 * 7 / 8 * S);
  EXPECT_DOUBLE_EQ(ring.bytes, ring.formula_bytes);
  EXPECT_EQ(ring.round_bytes.size(), 14u);
  EXPECT_EQ(tree.round_bytes.size(), 6u);
  for (double b : ring.round_bytes) EXPECT_DOUBLE_EQ(b, S / 8);  // one block per round
  EXPECT_GT(tree.bytes, 0);
  EXPECT_FALSE(ring.ran);
  EXPECT_FALSE(tree.ran);
  EXPECT_FALSE(c.fit.fitted);
  EXPECT_LT(ring.estimate_us, 0);  // nothing measured, nothing to fit
}

TEST(CompareModel, NativeAndUnservedAlgorithmsSayWhy) {
  const CompareRow native = compareRow(spec(Op::all_reduce, 4), "native", nullptr);
  EXPECT_FALSE(native.error.empty());
  const CompareRow nope = compareRow(spec(Op::all_to_all, 4), "tree", nullptr);
  EXPECT_FALSE(nope.error.empty());
}

TEST(CompareModel, FitRecoversAlphaAndBeta) {
  // t = 5 µs + 0.01 µs/byte · bytes
  std::vector<std::pair<double, double>> pts;
  for (double b : {100.0, 400.0, 1000.0, 4000.0}) pts.emplace_back(b, 5 + 0.01 * b);
  const AlphaBeta ab = fitAlphaBeta(pts);
  ASSERT_TRUE(ab.fitted);
  EXPECT_EQ(ab.points, 4);
  EXPECT_NEAR(ab.alpha_us, 5, 1e-9);
  EXPECT_NEAR(ab.beta_us_per_byte, 0.01, 1e-12);
  // Same size everywhere: latency only.
  const AlphaBeta flat = fitAlphaBeta({{64, 3}, {64, 5}});
  EXPECT_NEAR(flat.alpha_us, 4, 1e-12);
  EXPECT_EQ(flat.beta_us_per_byte, 0);
  // Times falling with size: no negative β.
  const AlphaBeta neg = fitAlphaBeta({{10, 9}, {100, 1}});
  EXPECT_GE(neg.beta_us_per_byte, 0);
  EXPECT_GE(neg.alpha_us, 0);
  EXPECT_FALSE(fitAlphaBeta({}).fitted);
}

TEST(CompareModel, EstimateSumsAlphaPlusBetaBytesOverRounds) {
  CompareRow r;
  r.round_bytes = {100, 200, 300};
  AlphaBeta ab;
  ab.alpha_us = 2;
  ab.beta_us_per_byte = 0.5;
  ab.fitted = true;
  EXPECT_DOUBLE_EQ(estimateUs(r, ab), 3 * 2 + 0.5 * 600);
}

TEST(CompareModel, SnapshotOfAnotherAlgorithmIsNotUsed) {
  auto snap = std::make_shared<Snapshot>();
  snap->algo = "tree";
  snap->spec = spec(Op::all_reduce, 8);
  const CompareRow r = compareRow(spec(Op::all_reduce, 8), "ring", snap);
  EXPECT_FALSE(r.ran);
  EXPECT_EQ(r.rounds, 14);
}

TEST(CompareModel, DefaultPair) {
  auto [a, b] = defaultComparePair(Op::all_reduce, "tree");
  EXPECT_EQ(a, "tree");
  EXPECT_NE(b, "tree");
  EXPECT_FALSE(b.empty());
  auto [c, d] = defaultComparePair(Op::all_reduce, "native");
  EXPECT_EQ(c, compareChoices(Op::all_reduce).front());
  EXPECT_NE(c, d);
  for (const std::string& x : compareChoices(Op::all_reduce)) EXPECT_NE(x, "native");
}

// With real rank workers: ring and tree all_reduce at N=8 run, their counted
// rounds and bytes are the formulas', the times are the rounds' sum, and the
// estimate comes from a fit over both.
TEST(CompareModelEngine, RingAgainstTreeRuns) {
  Engine engine;
  const OpSpec s = spec(Op::all_reduce, 8, 64);
  std::shared_ptr<const Snapshot> snaps[2];
  const char* algos[2] = {"ring", "tree"};
  for (int i = 0; i < 2; ++i) {
    Request r;
    r.spec = s;
    r.backend = BackendKind::gloo;
    r.algo = algos[i];
    snaps[i] = engine.waitFor(engine.submit(r), std::chrono::seconds(60));
    ASSERT_TRUE(snaps[i]);
    ASSERT_TRUE(snaps[i]->error.empty()) << snaps[i]->error;
    // A comparison of runs that computed the wrong thing compares nothing.
    EXPECT_TRUE(snaps[i]->verified) << algos[i] << ": " << snaps[i]->problem;
    EXPECT_TRUE(snaps[i]->final_compared && snaps[i]->final_diffs == 0) << algos[i];
  }
  const Comparison c = buildComparison(s, "ring", snaps[0], "tree", snaps[1]);
  for (int i = 0; i < 2; ++i) {
    const CompareRow& row = c.rows[std::size_t(i)];
    ASSERT_TRUE(row.ran) << row.algo;
    EXPECT_EQ(row.rounds, row.formula_rounds) << row.algo;
    EXPECT_EQ(row.round_us.size(), std::size_t(row.rounds));
    double sum = 0;
    for (const StepResult& st : snaps[i]->steps) sum += st.time_us;
    EXPECT_DOUBLE_EQ(row.measured_us, sum);
    EXPECT_GT(row.measured_us, 0);
    EXPECT_GT(row.estimate_us, 0) << row.algo << ": every round costs at least α";
  }
  EXPECT_DOUBLE_EQ(c.rows[0].bytes, c.rows[0].formula_bytes);
  EXPECT_EQ(c.fit.points, 14 + 6);
  EXPECT_TRUE(c.fit.fitted);
  // Every round takes time: the fitted latency is positive, the cost per
  // byte never negative (a fit zeroed or flipped after the fact fails here).
  EXPECT_GT(c.fit.alpha_us, 0);
  EXPECT_GE(c.fit.beta_us_per_byte, 0);
  EXPECT_TRUE(std::isfinite(c.fit.alpha_us) && std::isfinite(c.fit.beta_us_per_byte));
  // An unclamped least-squares line through the points: the estimates add up
  // to the measured total over both algorithms.
  if (c.fit.alpha_us > 0 && c.fit.beta_us_per_byte > 0) {
    EXPECT_NEAR(c.rows[0].estimate_us + c.rows[1].estimate_us,
              c.rows[0].measured_us + c.rows[1].measured_us,
              1e-6 * (c.rows[0].measured_us + c.rows[1].measured_us) + 1e-9);
  }
}

}  // namespace
}  // namespace collviz::ui
