// The whole-block checks (engine/verify_fast) against the element-by-element
// path on the same buffers: every op, dtype and reduce op, correct outputs and
// outputs with one planted wrong element, which both must find and locate.
#include "tests/engine/engine_test_support.h"
#include "engine/collectives.h"
#include "engine/verify/verify.h"
#include "engine/verify/verify_fast.h"
#include "tests/engine/correct_step.h"

namespace collviz::test {
namespace {


StepResult verified(StepResult step, const Pattern& p, bool fast) {
  useFastVerify(fast);
  labelAndVerify(step, p, opProvenance(step.spec));
  useFastVerify(true);
  return step;
}

void expectSame(const StepResult& a, const StepResult& b) {
  EXPECT_EQ(a.verify.verified, b.verify.verified);
  EXPECT_EQ(a.verify.mismatches, b.verify.mismatches);
  EXPECT_EQ(a.verify.undecodable, b.verify.undecodable);
  EXPECT_EQ(a.verify.first_problem, b.verify.first_problem);
  for (std::size_t r = 0; r < a.ranks.size(); ++r)
    for (const auto* bufs : {&a.ranks[r].input, &a.ranks[r].output}) {
      const BufferView& other = bufs == &a.ranks[r].input ? b.ranks[r].input : b.ranks[r].output;
      ASSERT_EQ(bufs->labels.size(), other.labels.size());
      for (std::size_t j = 0; j < other.labels.size(); ++j) {
        const BlockLabel &x = bufs->labels[j], &y = other.labels[j];
        SCOPED_TRACE("rank " + std::to_string(r) + " block " + std::to_string(j));
        EXPECT_EQ(x.text(a.spec.redop), y.text(a.spec.redop));
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.contributors, y.contributors);
        EXPECT_EQ(x.bad, y.bad);
        EXPECT_EQ(x.decoded, y.decoded);
      }
    }
}

void compareBothPaths(const OpSpec& s) {
  SCOPED_TRACE(describe(s));
  const Pattern p = choosePattern(s);
  const StepResult good = correctStep(s, p);
  const StepResult fast = verified(good, p, true), slow = verified(good, p, false);
  expectSame(fast, slow);
  if (p.kind != Pattern::Kind::plain) {
    EXPECT_TRUE(fast.verify.verified) << fast.verify.first_problem;
  }

  // One wrong element, in the last rank with an output, in its last block.
  StepResult bad = good;
  int rank = s.ranks - 1;
  while (rank >= 0 && !bad.ranks[rank].output.present) --rank;
  ASSERT_GE(rank, 0);
  BufferView& out = bad.ranks[rank].output;
  const std::size_t n = out.count(s.dtype);
  const std::size_t at = n - 1 - std::size_t(s.elems / 3);
  // One ulp (or one) off in every dtype; avg is allowed a few ulps, so one more.
  if (s.redop == RedOp::avg && reduces(s.op))
    writeElement(out.bytes.data(), s.dtype, at, out.value(at, s.dtype) + 1);
  else
    out.bytes[at * dtypeSize(s.dtype)] ^= std::byte{1};
  const StepResult f2 = verified(bad, p, true), s2 = verified(bad, p, false);
  expectSame(f2, s2);
  EXPECT_FALSE(f2.verify.verified);
  const std::string where = "rank " + std::to_string(rank) + " output block " +
                            std::to_string(at / std::size_t(s.elems)) + " element " +
                            std::to_string(at % std::size_t(s.elems));
  EXPECT_NE(f2.verify.first_problem.find(where), std::string::npos)
      << f2.verify.first_problem << " should name " << where;
}

TEST(VerifyFast, AgreesWithElementByElementEveryOpDtypeRedop) {
  for (const Collective& c : kCollectives)
    for (int t = 0; t < kDTypeCount; ++t)
      for (int r = 0; r < kRedOpCount; ++r) {
        if (!c.reduces && r > 0) continue;
        const OpSpec s = makeSpec(c.op, 4, 777, DType(t), RedOp(r), 1);
        if (!validate(s)) continue;
        compareBothPaths(s);
      }
}

// The decomposition's all-gather step: its inputs are the reduce-scatter's
// Σ blocks and its blocks copies of them. Whole blocks are checked at memory
// speed against the pattern (and the source block with them); the labels,
// counts and lines equal the element-by-element path's, also with a wrong
// element in an output block or in a source block.
TEST(VerifyFast, DecompositionsAllGatherAgreesWithElementByElement) {
  for (int t = 0; t < kDTypeCount; ++t)
    for (int r = 0; r < kRedOpCount; ++r) {
      const OpSpec rs_spec = makeSpec(Op::reduce_scatter, 4, 777, DType(t), RedOp(r));
      if (!validate(rs_spec)) continue;
      SCOPED_TRACE(describe(rs_spec));
      const Pattern p = choosePattern(rs_spec);
      const StepResult rs = correctStep(rs_spec, p);
      OpSpec ag_spec = rs_spec;
      ag_spec.op = Op::all_gather;
      StepResult ag;
      ag.spec = ag_spec;
      ag.ranks.resize(4);
      for (int k = 0; k < 4; ++k) {
        ag.ranks[k].rank = k;
        ag.ranks[k].input = rs.ranks[k].output;
        ag.ranks[k].output.present = true;
        for (int j = 0; j < 4; ++j) {
          const auto& src = rs.ranks[j].output.bytes;
          ag.ranks[k].output.bytes.insert(ag.ranks[k].output.bytes.end(), src.begin(), src.end());
        }
      }
      const Provenance prov = allGatherAfterReduceScatter(rs_spec);
      auto check = [&](StepResult st, bool fast) {
        useFastVerify(fast);
        labelAndVerify(st, p, prov);
        useFastVerify(true);
        return st;
      };
      expectSame(check(ag, true), check(ag, false));
      EXPECT_EQ(check(ag, true).verify.verified, check(ag, false).verify.verified);
      StepResult bad_out = ag;
      bad_out.ranks[1].output.bytes[(2 * 777 + 5) * dtypeSize(ag_spec.dtype)] ^= std::byte{1};
      const StepResult f1 = check(bad_out, true);
      expectSame(f1, check(bad_out, false));
      EXPECT_FALSE(f1.verify.verified);
      StepResult bad_src = ag;
      bad_src.ranks[3].input.bytes[9 * dtypeSize(ag_spec.dtype)] ^= std::byte{1};
      const StepResult f2 = check(bad_src, true);
      expectSame(f2, check(bad_src, false));
    }
}

TEST(VerifyFast, AgreesAtSizesThatUseEveryThread) {
  for (int r = 0; r < kRedOpCount; ++r)
    compareBothPaths(makeSpec(Op::all_reduce, 3, 300001, DType::f32, RedOp(r)));
  compareBothPaths(makeSpec(Op::all_to_all, 4, 300001, DType::f64));
  compareBothPaths(makeSpec(Op::reduce_scatter, 4, 300001, DType::i64, RedOp::max));
}

TEST(VerifyFast, PatternBeyondItsRangeFallsBackAndAgrees) {
  compareBothPaths(makeSpec(Op::all_reduce, 16, 64, DType::f16, RedOp::sum));
  compareBothPaths(makeSpec(Op::all_reduce, 5, 100, DType::u8, RedOp::prod));
}

TEST(VerifyFast, ClosedFormIsTheOracle) {
  for (int r = 0; r < kRedOpCount; ++r) {
    const OpSpec s = makeSpec(Op::all_reduce, 4, 50, DType::f32, RedOp(r));
    const Pattern p = choosePattern(s);
    const StepResult step = correctStep(s, p);
    const auto refs = expectedOutputRefs(s, 2);
    for (int j = 0; j < s.ranks; ++j)
      for (int64_t i = 0; i < s.elems; ++i)
        ASSERT_EQ(closedFormValues(s, p, refs[j], i, 1)[0],
                  step.ranks[2].output.value(std::size_t(j * s.elems + i), s.dtype))
            << name(s.redop) << " block " << j << " element " << i;
  }
}

}  // namespace
}  // namespace collviz::test
