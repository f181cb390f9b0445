// MSCCL algorithm files on symbols: every broken fixture is refused with its
// file:line and reason; every good one lowers to rounds whose symbolic end
// state is the op's, with the ring's 2(N-1) rounds and the bytes its steps
// send.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/algo/reference.h"
#include "tests/engine/algo/msccl/msccl_fixtures.h"

namespace collviz::test {
namespace {

TEST(MscclRead, EveryBadFixtureNamesItsLineAndReason) {
  const auto bad = badFixtures();
  ASSERT_GE(bad.size(), 25u);
  for (const BadFixture& b : bad) {
    SCOPED_TRACE(b.path);
    auto a = algo::readMscclFile(b.path);
    ASSERT_FALSE(a) << "accepted";
    const std::string& m = a.error().message;
    EXPECT_EQ(m.rfind(b.path + ":" + std::to_string(b.line) + ": ", 0), 0u) << m;
    EXPECT_NE(m.find(b.words), std::string::npos) << m;
  }
}

TEST(MscclRead, RanksMustEqualNgpus) {
  auto a = algo::readMscclFile(goodFixture("ring_allreduce_4_1ch.xml"), 8);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("ngpus = 4 but --ranks is 8"), std::string::npos)
      << a.error().message;
  EXPECT_TRUE(algo::readMscclFile(goodFixture("ring_allreduce_4_1ch.xml"), 4));
}

TEST(MscclRead, MissingFileIsNamed) {
  auto a = algo::readMscclFile("/nonexistent/x.xml");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("/nonexistent/x.xml: cannot open"), std::string::npos);
}

TEST(MscclLower, RingIsTwiceNMinusOneRounds) {
  for (const char* f : {"ring_allreduce_4_1ch.xml", "ring_allreduce_4_2ch.xml",
                        "ring_allreduce_4_fused.xml"}) {
    SCOPED_TRACE(f);
    auto a = algo::readMscclFile(goodFixture(f));
    ASSERT_TRUE(a) << a.error().message;
    const OpSpec s = fixtureSpec(*a, 4);
    auto sch = algo::lowerMscclFile(*a, s);
    ASSERT_TRUE(sch) << sch.error().message;
    EXPECT_EQ(sch->rounds.size(), 2u * (4 - 1));
    // Every rank sends to the next in every round.
    for (const algo::Round& r : sch->rounds)
      for (const algo::Move& m : r.moves) EXPECT_EQ(m.to, (m.from + 1) % 4);
  }
}

TEST(MscclLower, GoodFixturesComputeTheirOp) {
  for (const std::string& f : goodFixtures()) {
    SCOPED_TRACE(f);
    auto a = algo::readMscclFile(f);
    ASSERT_TRUE(a) << a.error().message;
    const OpSpec s = fixtureSpec(*a, 2 * a->parts);
    auto sch = algo::lowerMscclFile(*a, s);
    ASSERT_TRUE(sch) << sch.error().message;
    const algo::Reference ref = algo::simulate(*sch);
    EXPECT_TRUE(algo::matchesOracle(*sch, ref)) << algo::matchesOracle(*sch, ref).message();
    for (int r = 0; r < s.ranks; ++r)
      EXPECT_EQ(sch->bytesSent(r), fileBytesSent(*a, r, s)) << "rank " << r;
  }
}

TEST(MscclLower, ChunksSplitBlocks) {
  auto a = algo::readMscclFile(goodFixture("ring_allreduce_4_2ch.xml"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->parts, 2);
  auto odd = algo::lowerMscclFile(*a, fixtureSpec(*a, 3));
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("allowed: a multiple of 2"), std::string::npos)
      << odd.error().message;
  auto sch = algo::lowerMscclFile(*a, fixtureSpec(*a, 4));
  ASSERT_TRUE(sch);
  EXPECT_EQ(sch->slotElems(), 2);
  EXPECT_EQ(sch->slots, 8);
}

TEST(MscclLower, AllPairsUsesScratchAndLocalReduces) {
  auto a = algo::readMscclFile(goodFixture("allpairs_allreduce_4_scratch.xml"));
  ASSERT_TRUE(a);
  auto sch = algo::lowerMscclFile(*a, fixtureSpec(*a, 1));
  ASSERT_TRUE(sch);
  ASSERT_EQ(sch->rounds.size(), 2u);
  EXPECT_EQ(sch->slots, 8);  // 4 input (in place) + 4 scratch
  int local_reduces = 0;
  for (const algo::LocalCopy& c : sch->rounds[0].after) local_reduces += c.reduce;
  EXPECT_EQ(local_reduces, 4 * 3);
  EXPECT_EQ(sch->rounds[0].moves.size(), 12u);
  for (const algo::Move& m : sch->rounds[0].moves) EXPECT_GE(m.dst[0], 4);  // into scratch
}

TEST(MscclRegistry, FileRunsUnderItsName) {
  auto a = algo::readMscclFile(goodFixture("ring_allgather_4.xml"));
  ASSERT_TRUE(a);
  algo::registerMscclFile(std::make_shared<algo::MscclAlgo>(*a));
  const OpSpec s = fixtureSpec(*a, 2);
  EXPECT_TRUE(algo::checkAlgorithm("msccl:ring_allgather_4", s));
  EXPECT_NE(algo::algorithmsFor(Op::all_gather).find("msccl:ring_allgather_4"), std::string::npos);
  OpSpec wrong = s;
  wrong.op = Op::all_reduce;
  const Status st = algo::checkAlgorithm("msccl:ring_allgather_4", wrong);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("allowed: op all_gather"), std::string::npos) << st.message();
  EXPECT_EQ(algo::figuresFor("msccl:ring_allgather_4", s).rounds, 3);
}

}  // namespace
}  // namespace collviz::test
