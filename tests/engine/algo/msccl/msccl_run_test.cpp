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

}  // namespace
}  // namespace collviz::test
