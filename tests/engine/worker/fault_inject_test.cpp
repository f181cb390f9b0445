// COLLVIZ_FAULT (engine/worker/fault.h), sent with the run: each way a
// collective can go wrong is caught by the engine's verification, named
// block by block, on the first run and on every repeat.
#include <gmock/gmock.h>

#include "engine/verify/poison.h"
#include "engine/verify/provenance.h"
#include "engine/verify/verify.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const Snapshot> runWith(Engine& e, const OpSpec& s, const std::string& fault,
                                        int warmup = 1,
                                        Program p = Program::single) {
  Request r;
  r.spec = s;
  r.program = p;
  r.backend = BackendKind::gloo;
  r.fault = fault;
  r.warmup = warmup;
  const uint64_t id = e.submit(r);
  auto snap = e.waitFor(id, 60s);
  return snap && snap->request == id ? snap : nullptr;
}

std::vector<std::string> labelRow(const RankResult& r) {
  std::vector<std::string> out;
  for (const BlockLabel& l : r.output.labels) out.push_back(l.text(RedOp::sum));
  return out;
}

const OpSpec kAllReduce = makeSpec(Op::all_reduce, 4, 4);

TEST(FaultInjection, SkipIsCaughtOnTheFirstRunAndEveryRepeat) {
  Engine engine;
  for (int k = 0; k < 3; ++k) {
    auto snap = runWith(engine, kAllReduce, "skip");
    ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
    EXPECT_FALSE(snap->verified) << "run " << k;
    const Verification& v = snap->steps[0].verify;
    EXPECT_EQ(v.wrong, 64);
    EXPECT_EQ(v.unwritten, 64) << "the engine's poison is not what the bytes hold";
    ASSERT_EQ(v.bad_blocks.size(), 16u);
    EXPECT_EQ(v.bad_blocks[5], "rank 1 output block 1: not written (still the poison) where Σ₁ "
                               "belongs (4 of 4 elements wrong)");
    for (const RankResult& r : snap->steps[0].ranks)
      EXPECT_EQ(labelRow(r), (std::vector<std::string>{"?", "?", "?", "?"}));
  }
}

// What the audit found: a backend that leaves the output alone on a repeat
// showed the previous run's (correct) bytes as verified.
TEST(FaultInjection, AnEarlierRunsBytesNeverPass) {
  Engine engine;
  for (Op op : {Op::all_reduce, Op::broadcast, Op::all_to_all, Op::reduce_scatter}) {
    const OpSpec s = makeSpec(op, 4, 4, DType::i32);
    SCOPED_TRACE(describe(s));
    auto good = runWith(engine, s, "");
    ASSERT_TRUE(good && good->verified);
    const auto pids = engine.workerPids();
    auto stale = runWith(engine, s, "skip");
    ASSERT_TRUE(stale && stale->error.empty());
    EXPECT_EQ(engine.workerPids(), pids) << "same workers, same shared memory";
    EXPECT_FALSE(stale->verified);
    EXPECT_EQ(stale->steps[0].verify.unwritten, stale->steps[0].verify.wrong);
    EXPECT_GT(stale->steps[0].verify.wrong, 0);
  }
}

// The same for every dtype and every op: a backend that writes only on its
// first call must fail every later check, whatever the element type (the
// audit switched the poison off for f16 alone and `run --dtype f16` said
// verified). Gloo takes six dtypes; bf16, which only NCCL runs, is checked
// on the verifier: a bf16 buffer of poison reads as not written.
TEST(FaultInjection, EveryDTypeAndOpIsPoisoned) {
  Engine engine;
  int runs = 0;
  for (int t = 0; t < kDTypeCount; ++t) {
    const DType dt = DType(t);
    if (dt == DType::bf16) continue;
    for (int o = 0; o < kOpCount; ++o) {
      const OpSpec s = makeSpec(Op(o), 4, 3, dt);
      SCOPED_TRACE(describe(s));
      auto good = runWith(engine, s, "", 0);
      ASSERT_TRUE(good && good->error.empty()) << (good ? good->error : "no snapshot");
      ASSERT_TRUE(good->verified);
      // Two calls, the second (checked) one skipped: the poison before it shows.
      auto two = runWith(engine, s, "skip_after_first");
      ASSERT_TRUE(two && two->error.empty());
      EXPECT_FALSE(two->verified) << "the checked call never wrote and the run verified";
      EXPECT_GT(two->steps[0].verify.unwritten, 0);
      EXPECT_EQ(two->steps[0].verify.unwritten, two->steps[0].verify.wrong);
      // One call per run: the next run must not see this run's bytes.
      auto again = runWith(engine, s, "skip_after_first", 0);
      ASSERT_TRUE(again && again->error.empty());
      EXPECT_FALSE(again->verified) << "a repeat passed with an earlier run's bytes";
      EXPECT_EQ(again->steps[0].verify.unwritten, again->steps[0].verify.wrong);
      ++runs;
    }
  }
  EXPECT_EQ(runs, (kDTypeCount - 1) * kOpCount);
  for (int o = 0; o < kOpCount; ++o) {
    const OpSpec s = makeSpec(Op(o), 4, 3, DType::bf16);
    SCOPED_TRACE(describe(s));
    const Pattern p = choosePattern(s);
    StepResult st;
    st.spec = s;
    st.ranks.resize(4);
    for (int r = 0; r < 4; ++r) st.ranks[std::size_t(r)].rank = r;
    fillInputs(st, p);
    int64_t elements = 0;
    for (RankResult& rr : st.ranks) {
      const std::size_t bytes = outputBytes(s, rr.rank);
      rr.output.present = bytes > 0;
      rr.output.bytes.assign(bytes, std::byte{0});
      poisonBytes(rr.output.bytes.data(), bytes, s.dtype);
      elements += int64_t(bytes / dtypeSize(s.dtype));
    }
    labelAndVerify(st, p, opProvenance(s));
    EXPECT_FALSE(st.verify.verified);
    EXPECT_EQ(st.verify.unwritten, elements);
  }
}

TEST(FaultInjection, SkipAfterFirstIsCaughtEveryTime) {
  Engine engine;
  // One call per run: the first run writes, every repeat must fail.
  auto first = runWith(engine, kAllReduce, "skip_after_first", 0);
  ASSERT_TRUE(first && first->error.empty());
  EXPECT_TRUE(first->verified);
  for (int k = 0; k < 3; ++k) {
    auto again = runWith(engine, kAllReduce, "skip_after_first", 0);
    ASSERT_TRUE(again && again->error.empty());
    EXPECT_FALSE(again->verified) << "repeat " << k << " passed with the first run's bytes";
    EXPECT_EQ(again->steps[0].verify.unwritten, 64);
  }
  // A run of two calls (the default): the checked call is a skipped one.
  Engine fresh;
  auto two = runWith(fresh, kAllReduce, "skip_after_first");
  ASSERT_TRUE(two && two->error.empty());
  EXPECT_FALSE(two->verified);
  EXPECT_EQ(two->steps[0].verify.unwritten, 64);
}

TEST(FaultInjection, CorruptNamesTheOneElement) {
  Engine engine;
  for (int k = 0; k < 2; ++k) {
    auto snap = runWith(engine, kAllReduce, "rank:2,corrupt");
    ASSERT_TRUE(snap && snap->error.empty());
    EXPECT_FALSE(snap->verified);
    const Verification& v = snap->steps[0].verify;
    EXPECT_EQ(v.wrong, 1);
    EXPECT_EQ(snap->mismatches, 1) << "one wrong element, counted once";
    EXPECT_THAT(v.bad_blocks, ::testing::ElementsAre("rank 2 output block 2: Σ₂ (1 of 4 elements wrong)"));
    EXPECT_THAT(v.first_problem, HasSubstr("rank 2 output block 2 element 0"));
  }
}

TEST(FaultInjection, SwapReadsAsTheBlocksThatAreThere) {
  Engine engine;
  auto snap = runWith(engine, kAllReduce, "swap");
  ASSERT_TRUE(snap && snap->error.empty());
  EXPECT_FALSE(snap->verified);
  EXPECT_EQ(snap->mismatches, 32);
  for (const RankResult& r : snap->steps[0].ranks) {
    EXPECT_EQ(labelRow(r), (std::vector<std::string>{"Σ₃", "Σ₁", "Σ₂", "Σ₀"}));
    EXPECT_EQ(r.output.labels[0].bad, 4);
    EXPECT_EQ(r.output.labels[1].bad, 0);
  }
  EXPECT_EQ(snap->steps[0].verify.bad_blocks[0],
            "rank 0 output block 0: Σ₃ where Σ₀ belongs (4 of 4 elements wrong)");
  auto b = runWith(engine, makeSpec(Op::broadcast, 4, 4), "rank:1,swap");
  ASSERT_TRUE(b && b->error.empty());
  EXPECT_FALSE(b->verified);
  EXPECT_EQ(labelRow(b->steps[0].ranks[1]), (std::vector<std::string>{"D", "B", "C", "A"}));
  EXPECT_EQ(labelRow(b->steps[0].ranks[0]), (std::vector<std::string>{"A", "B", "C", "D"}));
  // The decomposition: its steps and its all_reduce comparison fail.
  auto d = runWith(engine, kAllReduce, "swap", 1, Program::all_reduce_decomposed);
  ASSERT_TRUE(d && d->error.empty()) << d->error;
  EXPECT_FALSE(d->verified);
  EXPECT_NE(d->all_reduce_diffs, 0);
}

TEST(FaultInjection, DelayBeyondTheDeadlineNamesTheRank) {
  EngineOptions o;
  o.deadline = 1000ms;
  Engine engine(o);
  auto slow = runWith(engine, kAllReduce, "rank:2,delay_ms:50");
  ASSERT_TRUE(slow && slow->error.empty());
  EXPECT_TRUE(slow->verified) << "a straggler within the deadline is not wrong";
  auto hung = runWith(engine, kAllReduce, "rank:2,delay_ms:5000");
  ASSERT_TRUE(hung);
  EXPECT_THAT(hung->error, HasSubstr("rank(s) 2 did not finish"));
  EXPECT_FALSE(hung->verified);
  auto next = runWith(engine, kAllReduce, "");
  ASSERT_TRUE(next && next->error.empty()) << next->error;
  EXPECT_TRUE(next->verified);
}

TEST(FaultInjection, ABadFaultSaysWhatIsAllowed) {
  Engine engine;
  auto snap = runWith(engine, kAllReduce, "rank:9,swap");
  ASSERT_TRUE(snap);
  EXPECT_THAT(snap->error, HasSubstr("COLLVIZ_FAULT=rank:9,swap"));
  EXPECT_THAT(snap->error, HasSubstr("not a rank of this group (0 to 3)"));
  EXPECT_THAT(snap->error, HasSubstr("allowed: skip, skip_after_first"));
  auto next = runWith(engine, kAllReduce, "");
  ASSERT_TRUE(next && next->verified);
}

}  // namespace
}  // namespace collviz::test
