// MSCCL files run for real on Gloo's send/recv through the engine: every
// round decoded and held against the reference derived from the file, the
// output equal to Gloo's own op byte for byte, the bytes per rank what the
// file's steps send.
#include <gtest/gtest.h>

#include "engine/algo/msccl/msccl.h"
#include "tests/engine/algo/algo_run_check.h"
#include "tests/engine/algo/msccl/msccl_fixtures.h"

namespace collviz::test {
namespace {

std::string load(const std::string& path) {
  auto a = algo::readMscclFile(path);
  if (!a) ADD_FAILURE() << a.error().message;
  if (!a) return "";
  auto shared = std::make_shared<algo::MscclAlgo>(std::move(*a));
  const std::string name = algo::mscclAlgoName(*shared);
  algo::registerMscclFile(shared);
  return name;
}

TEST(MscclRun, EveryGoodFixtureRunsVerifiedEveryRound) {
  Engine engine;
  for (const std::string& f : goodFixtures()) {
    SCOPED_TRACE(f);
    const std::string name = load(f);
    ASSERT_FALSE(name.empty());
    auto file = algo::findMscclFile(name);
    for (auto [elems, t, op] : {std::tuple{2, DType::f32, RedOp::sum}, {3, DType::i32, RedOp::max},
                                {2, DType::f64, RedOp::avg}}) {
      OpSpec s = fixtureSpec(*file, int64_t(elems) * file->parts, t);
      s.redop = op;
      auto snap = runAlgo(engine, s, name);
      ASSERT_TRUE(snap) << "no answer";
      checkRun(*snap, s, name);
      // A run that failed has no counts: said, and the next case still runs
      // (indexing them here once segfaulted the binary on one failure).
      if (snap->bytes_sent.size() != std::size_t(s.ranks)) {
        ADD_FAILURE() << "bytes_sent has " << snap->bytes_sent.size() << " ranks, not " << s.ranks;
        continue;
      }
      for (int r = 0; r < s.ranks; ++r)
        EXPECT_EQ(snap->bytes_sent[std::size_t(r)], fileBytesSent(*file, r, s)) << "rank " << r;
    }
  }
}

TEST(MscclRun, RingTakesTwiceNMinusOneRounds) {
  Engine engine;
  const std::string name = load(goodFixture("ring_allreduce_4_fused.xml"));
  auto snap = runAlgo(engine, fixtureSpec(*algo::findMscclFile(name), 4), name);
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->steps.size(), 6u);
  EXPECT_TRUE(snap->verified) << snap->error;
}

// round_skip_reduce:K on a file: where the reduce is a file's own (`rrc`
// lowered to a receive then a local `re`, or a local `re` step), round K's
// reduce is dropped too; a round with none is refused, naming the rounds
// that have one. Never "verified" beside the fault's notice.
TEST(MscclRun, RoundSkipReduceActsOnAFilesReducesOrIsRefused) {
  Engine engine;
  for (const char* f : {"ring_allreduce_4_1ch.xml", "allpairs_allreduce_4_scratch.xml"}) {
    SCOPED_TRACE(f);
    const std::string name = load(goodFixture(f));
    ASSERT_FALSE(name.empty());
    const OpSpec s = fixtureSpec(*algo::findMscclFile(name), 2 * algo::findMscclFile(name)->parts);
    auto sch = algo::buildSchedule(name, s);
    ASSERT_TRUE(sch) << sch.error().message;
    int acted = 0;
    for (int k = 1; k <= int(sch->rounds.size()); ++k) {
      SCOPED_TRACE("round " + std::to_string(k));
      Request r;
      r.spec = s;
      r.backend = BackendKind::gloo;
      r.algo = name;
      r.fault = "round_skip_reduce:" + std::to_string(k);
      auto snap = engine.waitFor(engine.submit(r), 60s);
      ASSERT_TRUE(snap);
      if (snap->rejected) {
        EXPECT_NE(snap->error.find("has no reduce, so nothing would be dropped (rounds with a reduce: "),
                  std::string::npos) << snap->error;
        continue;
      }
      ASSERT_TRUE(snap->error.empty()) << snap->error;
      EXPECT_FALSE(snap->verified) << "round_skip_reduce:" << k << " ran verified: " << snap->notice;
      ++acted;
    }
    EXPECT_GT(acted, 0);
  }
}

}  // namespace
}  // namespace collviz::test
