// The round runner never trusts a schedule's slots (issue 39: a schedule
// with out-of-range slots corrupted the heap, "free(): invalid pointer",
// instead of being refused): every rank, slot and input piece a schedule
// names is checked against its buffers before anything is read or written,
// and the refusal names what was out of range and what is allowed.
#include <gmock/gmock.h>

#include <functional>
#include <vector>

#include "engine/algo/algorithms.h"
#include "engine/worker/round_runner.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using ::testing::HasSubstr;

// One rank on host memory; messages go nowhere (each rank's part alone).
class LoneDevice final : public HostRoundDevice {
 public:
  explicit LoneDevice(DType t) : HostRoundDevice(t) {}
  Status exchange(const std::vector<Post>&, const std::vector<Post>&) override { return {}; }
  void reduce(std::byte* dst, const std::byte* src, std::size_t elems) override {
    for (std::size_t i = 0; i < elems; ++i)
      writeElement(dst, dtype_, i, readElement(dst, dtype_, i) + readElement(src, dtype_, i));
  }
};

// Runs `runner` over every round, in buffers exactly the schedule's size.
Result<RoundsTiming> runAll(const algo::Schedule& s, const RoundRunner& runner, int rank) {
  LoneDevice d(s.spec.dtype);
  std::vector<std::byte> in(inputBytes(s.spec, rank)), work(s.workBytes()), scratch(runner.scratchBytes());
  return runRoundRange(d, runner, 0, runner.rounds(), work.data(), scratch.data(), in.data(), RunOptions{});
}

struct Broken {
  const char* what;
  std::function<void(algo::Schedule&)> change;
  const char* says;
};

TEST(RoundRunner, ASlotOutOfRangeIsRefusedNeverWritten) {
  auto built = algo::buildSchedule("ring", makeSpec(Op::all_reduce, 4, 4));
  ASSERT_TRUE(built);
  const algo::Schedule good = *built;
  ASSERT_TRUE(RoundRunner(good, 1).status()) << RoundRunner(good, 1).status().message();
  ASSERT_TRUE(runAll(good, RoundRunner(good, 1), 1));
  const Broken cases[] = {
      {"a received slot", [](algo::Schedule& s) { s.rounds[0].moves[0].dst[0] = 1000000; },
       "round 1: a message from rank 0 to rank 1 names a slot out of range"},
      {"a sent slot", [](algo::Schedule& s) { s.rounds[2].moves[0].src[0] = -5; },
       "round 3: a message from rank 0 to rank 1 names a slot out of range"},
      {"a peer", [](algo::Schedule& s) { s.rounds[1].moves[1].to = 9; }, "round 2 sends from rank 1 to rank 9"},
      {"a start piece", [](algo::Schedule& s) { s.init[1][2] = 77; },
       "slot 2 starts from input piece 77; the input has 4"},
      {"an output slot", [](algo::Schedule& s) { s.output[1].back() = 4; }, "output slot 4 is out of range"},
      {"the start", [](algo::Schedule& s) { s.init[1].pop_back(); }, "its start fills 3 slots, not 4"},
      {"a local copy", [](algo::Schedule& s) { s.rounds[0].after.push_back({1, {0}, {4}, true}); },
       "round 1: a local copy on rank 1 names a slot out of range"},
      {"uneven lists", [](algo::Schedule& s) { s.rounds[0].moves[0].dst.push_back(0); },
       "names a slot out of range"},
  };
  for (const Broken& c : cases) {
    SCOPED_TRACE(c.what);
    algo::Schedule s = good;
    c.change(s);
    const RoundRunner runner(s, 1);
    ASSERT_FALSE(runner.status()) << "an out-of-range schedule was accepted";
    EXPECT_THAT(runner.status().message(), HasSubstr("the schedule ring cannot run on rank 1: "));
    EXPECT_THAT(runner.status().message(), HasSubstr(c.says));
    EXPECT_THAT(runner.status().message(), HasSubstr("(allowed: ranks 0 to 3, slots 0 to 3)"));
    auto ran = runAll(s, runner, 1);
    ASSERT_FALSE(ran);
    EXPECT_EQ(ran.error().message, runner.status().message());
  }
  // A rank outside the group.
  const RoundRunner outside(good, 4);
  ASSERT_FALSE(outside.status());
  EXPECT_THAT(outside.status().message(), HasSubstr("rank 4 is not one of its 4 ranks"));
}

}  // namespace
}  // namespace collviz::test
