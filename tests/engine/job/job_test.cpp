// The model of a job (engine/job/job.h): names interned once, ranks and
// groups found or added, notes counted per kind, and finish() ordering ranks,
// hosts and calls the way the analysis and the figure read them.
#include <gtest/gtest.h>

#include "engine/job/job.h"

namespace collviz::job {
namespace {

TEST(JobModel, BuilderInternsMergesCountsAndOrders) {
  Job job;
  Builder b(job);
  const Name ar = b.intern("all_reduce");
  EXPECT_EQ(b.intern("all_reduce"), ar);
  EXPECT_NE(b.intern("send"), ar);
  EXPECT_EQ(b.intern(""), 0u);
  EXPECT_EQ(job.str(ar), "all_reduce");
  EXPECT_EQ(job.str(9999), "");

  b.rank(3).host = "node1";
  b.rank(1).host = "node0";
  b.rank(3).device = 2;  // the same rank, found again
  const int g = b.group("35");
  EXPECT_EQ(b.group("35"), g);
  job.groups[std::size_t(g)].desc = "TENSOR_MODEL_PARALLEL_GROUP";
  for (int r : {3, 1})
    for (std::int64_t seq : {8, 7}) {
      Call c;
      c.rank = r;
      c.group = g;
      c.seq = seq;
      c.op = ar;
      job.calls.push_back(c);
    }
  Builder::note(job.notes, say("{0}: not a job trace (skipped)", "a.txt"));
  Builder::note(job.notes, say("{0}: not a job trace (skipped)", "b.txt"));
  b.finish();

  ASSERT_EQ(job.ranks.size(), 2u);
  EXPECT_EQ(job.ranks[0].rank, 1);
  ASSERT_NE(job.rank(3), nullptr);
  EXPECT_EQ(job.rank(3)->device, 2);
  EXPECT_EQ(job.rank(2), nullptr);
  EXPECT_EQ(job.hosts, (std::vector<std::string>{"node0", "node1"}));
  EXPECT_EQ(job.groupIndex("35"), g);
  EXPECT_EQ(job.groupIndex("36"), -1);
  EXPECT_EQ(job.groups[std::size_t(g)].calls, 4);
  std::vector<std::pair<std::int64_t, int>> order;
  for (const Call& c : job.calls) order.emplace_back(c.seq, c.rank);
  EXPECT_EQ(order, (std::vector<std::pair<std::int64_t, int>>{{7, 1}, {7, 3}, {8, 1}, {8, 3}}));
  ASSERT_EQ(job.notes.size(), 1u);
  EXPECT_EQ(job.notes[0].count, 2);
  EXPECT_EQ(std::string(job.notes[0].text), "a.txt: not a job trace (skipped)");

  // A copy is a value: its names read the same.
  const Job copy = job;
  EXPECT_EQ(copy.str(copy.calls[0].op), "all_reduce");
  EXPECT_EQ(formatName(Format::flight_recorder_pickle), "flight_recorder_pickle");
  EXPECT_EQ(stateName(State::started), "started");
}

}  // namespace
}  // namespace collviz::job
