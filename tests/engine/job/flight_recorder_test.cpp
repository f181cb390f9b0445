// Flight Recorder dumps (engine/job/flight_recorder.cpp) and the analysis:
// the three real runs of ../shared/data/flight-recorder (a 16-rank MoE job,
// faults on two ranks each) give exactly the ranks and groups their
// expected.txt names (skipped, saying so, where the folder is missing);
// dumps written here in PyTorch's formats cover what they do not: JSON
// (dump_json: strings for pg_status, 0 for no time, comm_lib_version),
// host-named files, a dump with its rank only in its name, a mismatch, a
// missing dump, ranks that disagree on the world size, two dumps of a rank.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "engine/job/job.h"
#include "tests/engine/job/fr_writer.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;
using test::FrDump;
using test::FrEntry;

fs::path dataDir() {
  if (const char* e = std::getenv("COLLVIZ_JOB_DATA")) return e;
  return COLLVIZ_JOB_DATA_DIR;
}

struct Tmp {
  fs::path dir = fs::temp_directory_path() / ("collviz_job_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Tmp() { fs::create_directories(dir); }
  ~Tmp() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return (dir / name).string();
  }
};

// Expected: "74     | EXPERT_MODEL_PARALLEL_GROUP,0 | nccl:all_to_all | 4027x5120 ... | BFloat16 | 12"
struct Row {
  std::string pg, op, size, dtype;
  std::set<int> missing;
};
std::vector<Row> expected(const fs::path& file) {
  std::vector<Row> rows;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, '|')) cells.push_back(std::regex_replace(c, std::regex("^\\s+|\\s+$"), ""));
    if (cells.size() != 6 || cells[0] == "PGID") continue;
    Row r{cells[0], cells[2], cells[3], cells[4], {}};
    std::stringstream ranks(cells[5]);
    while (std::getline(ranks, c, ',')) r.missing.insert(std::stoi(c));
    rows.push_back(r);
  }
  return rows;
}

class RealRuns : public ::testing::TestWithParam<const char*> {};

TEST_P(RealRuns, TheVerdictNamesExactlyTheExpectedRanksAndGroups) {
  const fs::path dir = dataDir() / "flight-recorder" / GetParam();
  if (!fs::exists(dir / "expected.txt"))
    GTEST_SKIP() << dir << " is missing (the real dumps live in ../shared/data/flight-recorder beside the source, or set COLLVIZ_JOB_DATA)";
  auto job = read({dir.string()});
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->ranks.size(), 16u);
  EXPECT_EQ(job->worldSize, 16);
  int dumps = 0;
  for (const Source& s : job->sources) {
    dumps += s.format == Format::flight_recorder_pickle;
    EXPECT_EQ(s.version, "2.9") << s.path;
    EXPECT_EQ(s.library, "2.27.3") << s.path;
  }
  EXPECT_EQ(dumps, 16);
  const Analysis a = analyse(*job);
  const auto rows = expected(dir / "expected.txt");
  ASSERT_FALSE(rows.empty());
  // The verdict's findings come first, one per expected row, in time order.
  ASSERT_GE(a.findings.size(), rows.size());
  std::set<std::string> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Finding& f = a.findings[i];
    ASSERT_EQ(f.kind, FindingKind::hang) << std::string(f.text);
    const Group& g = job->groups[std::size_t(f.group)];
    bool matched = false;
    for (const Row& r : rows) {
      if (r.pg != g.id) continue;
      matched = true;
      EXPECT_EQ(std::set<int>(f.ranks.begin(), f.ranks.end()), r.missing) << std::string(f.text);
      EXPECT_EQ("nccl:" + std::string(job->str(f.op)), r.op);
      EXPECT_EQ(g.desc + ",0", "EXPERT_MODEL_PARALLEL_GROUP,0");
      // The size and dtype the expected table shows: the lowest waiting rank's call.
      for (const Call& c : job->calls)
        if (c.group == f.group && c.seq == f.seq && !c.p2p && c.rank == f.waiting.front()) {
          EXPECT_EQ(job->str(c.inShape), r.size);
          EXPECT_EQ(job->str(c.dtype), r.dtype);
        }
    }
    EXPECT_TRUE(matched) << "group " << g.id << " is in no row of expected.txt: " << std::string(f.text);
    seen.insert(g.id);
  }
  EXPECT_EQ(seen.size(), rows.size());
  // No other finding blames a rank the expected table does not.
  std::set<int> blamed;
  for (const Row& r : rows) blamed.insert(r.missing.begin(), r.missing.end());
  for (const Finding& f : a.findings)
    for (int r : f.ranks) EXPECT_TRUE(blamed.count(r)) << std::string(f.text);
  EXPECT_TRUE(a.missingDumps.empty());
  // The verdict names as many stuck collectives as the table has rows, no more.
  const std::string v(a.verdict);
  std::size_t said = 0;
  for (std::size_t at = v.find(" never entered "); at != std::string::npos; at = v.find(" never entered ", at + 1)) ++said;
  EXPECT_EQ(said, rows.size()) << v;
}

INSTANTIATE_TEST_SUITE_P(FlightRecorder, RealRuns, ::testing::Values("gpu_error_1st", "lock_gil_1st", "lock_gil_2nd"));

TEST(FlightRecorder, TheFirstRealVerdictWordForWord) {
  const fs::path dir = dataDir() / "flight-recorder" / "gpu_error_1st";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " is missing (../shared/data/flight-recorder)";
  auto job = read({dir.string()});
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(std::string(analyse(*job).verdict),
            "rank 12 never entered all_to_all #20537 of EXPERT_MODEL_PARALLEL_GROUP (74); 3 ranks wait there");
}

// A 4-rank job, one dump a rank: all_reduce #1..#3 completed in group "g",
// #4 entered by ranks `entered` only.
FrDump rankDump(int rank, const std::vector<int>& entered, int world = 4) {
  FrDump d;
  std::vector<int> all;
  for (int r = 0; r < world; ++r) all.push_back(r);
  d.groups = {{"0", "default_pg", all}, {"5", "DATA_PARALLEL_GROUP", {0, 1, 2, 3}}, {"9" + std::to_string(rank), "SOLO", {rank}}};
  const bool in = std::find(entered.begin(), entered.end(), rank) != entered.end();
  d.status[3] = {in ? 4 : 3, -1, 3};
  for (std::int64_t s = 2; s <= (in ? 4 : 3); ++s) {
    FrEntry e;
    e.pg = "5", e.desc = "DATA_PARALLEL_GROUP", e.pgId = 3, e.seq = s, e.record = s;
    e.created = 1000 * s + rank;
    e.state = s == 4 ? "started" : "completed";
    e.completed = s == 4 ? 0 : e.created + 10;
    d.entries.push_back(e);
  }
  return d;
}

TEST(FlightRecorder, JsonDumpsWithCommLibVersionAndHostNamedFiles) {
  Tmp t;
  for (int r = 0; r < 4; ++r) {
    FrDump d = rankDump(r, {0, 1, 3});
    d.version = "2.10", d.commLibKey = true, d.library = "2.28.9";
    // host before the prefix, the rank after: as a per-host dump folder names them
    t.write("node" + std::to_string(r / 2) + "_nccl_trace_rank_" + std::to_string(r) + ".json", test::jsonDump(d));
  }
  auto job = read({t.dir.string()});
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->sources.size(), 4u);
  EXPECT_EQ(job->sources[0].format, Format::flight_recorder_json);
  EXPECT_EQ(job->sources[0].library, "2.28.9");
  EXPECT_EQ(job->sources[0].version, "2.10");
  EXPECT_EQ(job->hosts, (std::vector<std::string>{"node0", "node1"}));
  ASSERT_NE(job->rank(3), nullptr);
  EXPECT_EQ(job->rank(3)->host, "node1");
  const Analysis a = analyse(*job);
  EXPECT_EQ(std::string(a.verdict), "rank 2 never entered all_reduce #4 of DATA_PARALLEL_GROUP (5); 3 ranks wait there");
  ASSERT_FALSE(a.findings.empty());
  EXPECT_EQ(a.findings[0].waiting, (std::vector<int>{0, 1, 3}));
  // The JSON's pg_status strings were read: rank 2 completed #3.
  for (const GroupProgress& g : a.groups)
    if (job->groups[std::size_t(g.group)].id == "5") {
      EXPECT_EQ(g.ranks[2].lastCompleted, 3);
    }
}

TEST(FlightRecorder, PickleAndJsonOfOneDumpReadAlike) {
  const FrDump d = rankDump(1, {0, 1, 2, 3});
  auto p = readBytes(test::pickleDump(d), "x/_dump_1");
  auto j = readBytes(test::jsonDump(d), "x/_dump_1.json");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_TRUE(j) << j.error().message;
  ASSERT_EQ(p->calls.size(), j->calls.size());
  for (std::size_t i = 0; i < p->calls.size(); ++i) {
    const Call &a = p->calls[i], &b = j->calls[i];
    EXPECT_EQ(a.seq, b.seq);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.created, b.created);
    EXPECT_EQ(a.completed, b.completed);
    EXPECT_EQ(p->str(a.op), j->str(b.op));
    EXPECT_EQ(p->str(a.inShape), "1024");
  }
  EXPECT_EQ(p->status.size(), 1u);
  EXPECT_EQ(j->status[0].lastEnqueued, 4);
}

TEST(FlightRecorder, TheRankFromItsGroupsOrItsName) {
  FrDump d = rankDump(2, {0, 1, 2, 3});
  auto named = readBytes(test::pickleDump(d), "dumps/_dump_7");  // its groups say 2: they win, and it is said
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_EQ(named->sources[0].rank, 2);
  ASSERT_FALSE(named->sources[0].notes.empty());
  EXPECT_NE(std::string(named->sources[0].notes[0].text).find("its file name says rank 7, its groups say rank 2"), std::string::npos);
  d.groups = {{"0", "default_pg", {0, 1, 2, 3}}};  // its groups say nothing: the name does
  auto byName = readBytes(test::pickleDump(d), "dumps/_dump_node3_3");
  ASSERT_TRUE(byName) << byName.error().message;
  EXPECT_EQ(byName->sources[0].rank, 3);
  EXPECT_EQ(byName->sources[0].host, "node3");
  auto none = readBytes(test::pickleDump(d), "dumps/trace");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("which rank this dump is of is not known"), std::string::npos);
}

TEST(FlightRecorder, AMismatchInDtypeOrSizeIsNamed) {
  Tmp t;
  for (int r = 0; r < 4; ++r) {
    FrDump d = rankDump(r, {0, 1, 2, 3});
    for (FrEntry& e : d.entries)
      if (e.seq == 3 && r == 2) e.dtype = "BFloat16";
      else if (e.seq == 2 && r == 1) e.in = {{2048}}, e.out = {{2048}};
    t.write("_dump_" + std::to_string(r), test::pickleDump(d));
  }
  auto job = read({t.dir.string()});
  ASSERT_TRUE(job) << job.error().message;
  const Analysis a = analyse(*job);
  std::vector<std::string> texts;
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::mismatch) {
      texts.push_back(f.text);
      EXPECT_EQ(f.ranks.size(), 1u);
    }
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(texts[0], "all_reduce #2 of DATA_PARALLEL_GROUP (5): the ranks disagree on its size: ranks 0, 2 and 3: 1024; rank 1: 2048");
  EXPECT_EQ(texts[1], "all_reduce #3 of DATA_PARALLEL_GROUP (5): the ranks disagree on its dtype: ranks 0, 1 and 3: Float; rank 2: BFloat16");
  EXPECT_EQ(std::string(a.verdict), texts[0]);  // no rank waits: the first mismatch is the verdict
}

TEST(FlightRecorder, AMissingDumpIsSaidNotGuessed) {
  Tmp t;
  for (int r : {0, 1, 3}) t.write("_dump_" + std::to_string(r), test::pickleDump(rankDump(r, {0, 1, 3})));
  auto job = read({t.dir.string()});
  ASSERT_TRUE(job) << job.error().message;
  const Analysis a = analyse(*job);
  EXPECT_EQ(a.missingDumps, (std::vector<int>{2}));
  EXPECT_EQ(std::string(a.verdict),
            "ranks 0, 1 and 3 wait in all_reduce #4 of DATA_PARALLEL_GROUP (5); no dump of rank 2: whether it entered is not known");
  bool said = false;
  for (const Finding& f : a.findings)
    said = said || (f.kind == FindingKind::missing_dump && std::string(f.text) == "no dump of rank 2 (of 4 ranks): what it did is not known");
  EXPECT_TRUE(said);
}

TEST(FlightRecorder, AllRanksWaitingInOneCollectiveIsSaid) {
  Tmp t;
  for (int r = 0; r < 4; ++r) {  // every rank entered #4, none completed it; ranks 0 and 1 went on to #5
    FrDump d = rankDump(r, {0, 1, 2, 3});
    if (r < 2) {
      FrEntry e = d.entries.back();
      e.seq = 5, e.record = 5, e.state = "scheduled";
      d.entries.push_back(e);
      d.status[3].enqueued = 5;
    }
    t.write("_dump_" + std::to_string(r), test::pickleDump(d));
  }
  auto job = read({t.dir.string()});
  ASSERT_TRUE(job) << job.error().message;
  const Analysis a = analyse(*job);
  EXPECT_EQ(std::string(a.verdict),
            "all 4 ranks of DATA_PARALLEL_GROUP (5) wait in all_reduce #4; none is missing: what holds them is below the collective (NCCL, the network)");
  for (const Finding& f : a.findings) EXPECT_TRUE(f.ranks.empty()) << std::string(f.text);  // #5 is not blamed on ranks 2 and 3
}

// Rank 0's all_reduce #3 is "started" (entered, running: not done); rank 1
// completed #2 and stops there. A "started" call counted as completed would
// leave nothing pending and say no collective waits. With and without the
// dumps' pg_status counts.
TEST(FlightRecorder, AStartedCollectiveIsPendingNotCompleted) {
  for (bool status : {false, true}) {
    Tmp t;
    for (int r = 0; r < 2; ++r) {
      FrDump d;
      d.groups = {{"0", "default_pg", {0, 1}}};
      const int last = r == 0 ? 3 : 2;
      for (int s = 1; s <= last; ++s) {
        FrEntry e;
        e.seq = s, e.record = s, e.created = 1000 * s + r;
        e.state = s == 3 ? "started" : "completed";
        e.started = e.created + 1;
        e.completed = s == 3 ? 0 : e.created + 10;
        d.entries.push_back(e);
      }
      if (status) d.status[0] = {last, last, 2};
      t.write("_dump_" + std::to_string(r), test::pickleDump(d));
    }
    auto job = read({t.dir.string()});
    ASSERT_TRUE(job) << job.error().message;
    const Analysis a = analyse(*job);
    EXPECT_EQ(std::string(a.verdict).rfind("rank 1 never entered all_reduce #3", 0), 0u) << std::string(a.verdict) << (status ? " (pg_status)" : "");
    ASSERT_FALSE(a.findings.empty());
    EXPECT_EQ(a.findings[0].waiting, (std::vector<int>{0}));
    EXPECT_EQ(a.findings[0].ranks, (std::vector<int>{1}));
    ASSERT_EQ(a.groups.size(), 1u);
    ASSERT_EQ(a.groups[0].ranks.size(), 2u);
    EXPECT_EQ(a.groups[0].ranks[0].lastCompleted, 2) << "rank 0's started #3 taken for completed";
    EXPECT_EQ(a.groups[0].ranks[0].lastStarted, 3);
  }
}

// A send and a receive in a group of global ranks 4-7: the name says the
// peer's rank in the group ("nccl:send 1->3"); the call's peer is global.
TEST(FlightRecorder, AP2pPeerIsTheGlobalRank) {
  FrDump d;
  d.groups = {{"0", "default_pg", {0, 1, 2, 3, 4, 5, 6, 7}}, {"7", "PIPELINE_MODEL_PARALLEL_GROUP", {4, 5, 6, 7}}};
  FrEntry send, recv;
  send.pg = recv.pg = "7", send.desc = recv.desc = "PIPELINE_MODEL_PARALLEL_GROUP", send.pgId = recv.pgId = 2;
  send.p2p = recv.p2p = true;
  send.seq = 1, send.record = 1, send.name = "nccl:send 1->3";
  recv.seq = 2, recv.record = 2, recv.name = "nccl:recv 1<-0";
  d.entries = {send, recv};
  auto job = readBytes(test::pickleDump(d), "_dump_5");
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->calls.size(), 2u);
  std::map<std::string, int> peers;
  for (const Call& c : job->calls) {
    EXPECT_TRUE(c.p2p);
    EXPECT_EQ(c.rank, 5);
    peers[std::string(job->str(c.op))] = c.peer;
  }
  EXPECT_EQ(peers["send"], 7) << "group rank 3 of [4, 5, 6, 7]";
  EXPECT_EQ(peers["recv"], 4) << "group rank 0 of [4, 5, 6, 7]";
}

TEST(FlightRecorder, WorldSizeDisagreementAndDuplicateRanksAreCounted) {
  Tmp t;
  fs::create_directories(t.dir / "a");
  fs::create_directories(t.dir / "b");
  for (int r = 0; r < 4; ++r) t.write("a/_dump_" + std::to_string(r), test::pickleDump(rankDump(r, {0, 1, 2, 3}, r == 3 ? 8 : 4)));
  t.write("b/_dump_1", test::pickleDump(rankDump(1, {0, 1, 2, 3})));  // a second dump of rank 1
  auto job = read({(t.dir / "a").string(), (t.dir / "b").string()});
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->rank(1)->duplicates, 1);
  const Analysis a = analyse(*job);
  std::set<FindingKind> kinds;
  for (const Finding& f : a.findings) kinds.insert(f.kind);
  EXPECT_TRUE(kinds.count(FindingKind::world_size));
  EXPECT_TRUE(kinds.count(FindingKind::duplicate_rank));
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::world_size) {
      EXPECT_EQ(std::string(f.text), "the dumps disagree on the job's size: ranks 0–2: 4; rank 3: 8");
    }
  bool noted = false;
  for (const Note& n : job->notes) noted = noted || std::string(n.text).find("rank 1: a second dump") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace collviz::job
