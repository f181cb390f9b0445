// What a rank is sent of an MSCCL file (engine/algo/schedule_wire.h): its
// part of the lowered schedule, never the file. Issue 38 items 11-12: the
// ranks were sent the whole file, JSON-escaped, and parsed it again inside
// the timed round: RING with a 40 MiB comment outgrew the 64 MiB frame
// ("rank 0 exited with code 0"; a hang on MPI), and 16 gpus x 300
// threadblocks spent the first round's deadline parsing ("hung").
#include <gtest/gtest.h>

#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/algo/schedule_wire.h"
#include "engine/worker/round_runner.h"
#include "tests/engine/algo/msccl/msccl_hostile.h"

namespace collviz::test {
namespace {

using json = nlohmann::json;

// The part of `s` rank r holds, as the round runner reads it.
void expectSamePart(const algo::Schedule& s, const algo::Schedule& p, int r) {
  EXPECT_EQ(p.spec, s.spec);
  EXPECT_EQ(p.algo, s.algo);
  EXPECT_EQ(p.slots, s.slots);
  EXPECT_EQ(p.parts, s.parts);
  EXPECT_EQ(p.average, s.average);
  EXPECT_EQ(p.init[std::size_t(r)], s.init[std::size_t(r)]);
  EXPECT_EQ(p.output[std::size_t(r)], s.output[std::size_t(r)]);
  ASSERT_EQ(p.rounds.size(), s.rounds.size());
  for (std::size_t k = 0; k < s.rounds.size(); ++k) {
    std::vector<const algo::Move*> mine;
    for (const algo::Move& m : s.rounds[k].moves)
      if (m.from == r || m.to == r) mine.push_back(&m);
    ASSERT_EQ(p.rounds[k].moves.size(), mine.size()) << "round " << k + 1;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      const algo::Move& a = *mine[i];
      const algo::Move& b = p.rounds[k].moves[i];
      EXPECT_TRUE(a.from == b.from && a.to == b.to && a.src == b.src && a.dst == b.dst && a.reduce == b.reduce)
          << "round " << k + 1 << " message " << i;
    }
    for (int side = 0; side < 2; ++side) {
      const auto& all = side ? s.rounds[k].after : s.rounds[k].before;
      const auto& got = side ? p.rounds[k].after : p.rounds[k].before;
      std::size_t j = 0;
      for (const algo::LocalCopy& c : all) {
        if (c.rank != r) continue;
        ASSERT_LT(j, got.size()) << "round " << k + 1;
        EXPECT_TRUE(got[j].src == c.src && got[j].dst == c.dst && got[j].reduce == c.reduce && got[j].rank == r);
        ++j;
      }
      EXPECT_EQ(j, got.size()) << "round " << k + 1 << ": a local copy of another rank";
    }
  }
  RoundRunner runner(p, r);
  EXPECT_TRUE(runner.status()) << runner.status().text().english();
}

void expectEveryPartRoundTrips(const algo::Schedule& s) {
  for (int r = 0; r < s.spec.ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    auto p = algo::scheduleFromPart(json::parse(algo::rankPart(s, r).dump()));
    ASSERT_TRUE(p) << p.error().text.english();
    expectSamePart(s, *p, r);
  }
}

Result<algo::Schedule> lowered(const std::string& path, int64_t elems_per_part = 2) {
  auto a = algo::readMscclFile(path);
  if (!a) return a.error();
  return algo::lowerMscclFile(*a, fixtureSpec(*a, elems_per_part * a->parts));
}

TEST(MscclWire, EveryRanksPartHoldsWhatItRuns) {
  for (const std::string& f : goodFixtures()) {
    SCOPED_TRACE(f);
    auto s = lowered(f);
    ASSERT_TRUE(s) << s.error().text.english();
    expectEveryPartRoundTrips(*s);
  }
  for (const algo::Algorithm& a : algo::algorithms())
    for (Op op : {Op::broadcast, Op::reduce, Op::all_gather, Op::reduce_scatter, Op::all_reduce, Op::all_to_all,
                  Op::gather, Op::scatter})
      for (int n : {1, 3, 4, 8}) {
        if (!algo::serves(a, op)) continue;
        OpSpec spec;
        spec.op = op, spec.ranks = n, spec.elems = 3, spec.root = n - 1;
        auto s = algo::buildSchedule(a.name, spec);
        if (!s) continue;  // not at this N
        SCOPED_TRACE(std::string(a.name) + " " + std::string(name(op)) + " N=" + std::to_string(n));
        expectEveryPartRoundTrips(*s);
      }
}

TEST(MscclWire, ThePartGrowsWithTheScheduleNotTheFile) {
  TempDir dir;
  EXPECT_EQ(ringFile(4, 1), ringText()) << "the generator no longer writes gen_fixtures.py's ring";
  auto commented = lowered(dir.write("ring40.xml", ringWithComment(std::size_t(40) << 20)));
  ASSERT_TRUE(commented) << commented.error().text.english();
  for (int r = 0; r < 4; ++r) EXPECT_LT(algo::rankPart(*commented, r).dump().size(), 4096u) << "rank " << r;

  auto big = lowered(dir.write("ring16x300.xml", ringFile(16, 300)), 1);
  ASSERT_TRUE(big) << big.error().text.english();
  std::size_t most = 0;
  for (int r = 0; r < 16; ++r) most = std::max(most, algo::rankPart(*big, r).dump().size());
  std::printf("16 gpus x 300 threadblocks: the largest rank's part is %zu bytes\n", most);
  EXPECT_LT(most, std::size_t(4) << 20);
  expectEveryPartRoundTrips(*big);
}

TEST(MscclWire, AMalformedPartIsRefused) {
  auto s = lowered(goodFixture("ring_allreduce_4_1ch.xml"));
  ASSERT_TRUE(s);
  const json good = algo::rankPart(*s, 1);
  ASSERT_TRUE(algo::scheduleFromPart(good));
  auto refused = [&](const char* what, auto change) {
    json j = good;
    change(j);
    auto p = algo::scheduleFromPart(j);
    EXPECT_FALSE(p) << what;
    if (!p) EXPECT_NE(p.error().text.english().find("malformed"), std::string::npos) << p.error().text.english();
  };
  refused("not an object", [](json& j) { j = json::array(); });
  refused("rank out of range", [](json& j) { j["rank"] = 4; });
  refused("no slots", [](json& j) { j["slots"] = 0; });
  refused("more init than slots", [](json& j) { j["init"] = json::array({0, 100}); });
  refused("a run of a billion", [](json& j) { j["rounds"][0][0][0][3] = json::array({0, 1000000000}); });
  refused("a negative count", [](json& j) { j["output"] = json::array({0, -1}); });
  refused("a message from rank -1", [](json& j) { j["rounds"][0][0][0][0] = -1; });
  refused("a message to rank 9", [](json& j) { j["rounds"][0][0][0][1] = 9; });
  refused("a round that is not three lists", [](json& j) { j["rounds"][0] = json::array({1, 2}); });
  refused("a text for a number", [](json& j) { j["rounds"][0][0][0][2] = "x"; });
  refused("an unknown op", [](json& j) { j["op"] = "allreduce!"; });
}

}  // namespace
}  // namespace collviz::test
