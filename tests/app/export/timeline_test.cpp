// A job's calls for timeline tools (app/files/timeline): Chrome trace JSON
// read back with a JSON parser, OTF2 read back with otf2-print (Debian's
// otf2-tools; skipped, saying so, where it is missing).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "app/files/timeline.h"

namespace collviz::ui {
namespace {

namespace fs = std::filesystem;
constexpr std::int64_t kT0 = 1700000000000000000;  // ns since the epoch

// Two ranks on two hosts, MPI_COMM_WORLD and a split; rank 1 has two
// nonblocking calls outstanding at once and one call it never left.
job::Job sample() {
  job::Job j;
  job::Builder b(j);
  j.sources.push_back({});
  for (int r : {0, 1}) {
    job::Rank& rk = b.rank(r);
    rk.host = r == 0 ? "node-a" : "node-b\x1b]0;x\x07";  // a hostile host name
    rk.pid = 100 + r;
  }
  const int world = b.group("1");
  j.groups[std::size_t(world)].desc = "MPI_COMM_WORLD";
  j.groups[std::size_t(world)].ranks = {0, 1};
  const int split = b.group("100000000");
  j.groups[std::size_t(split)].desc = "split(0,1) of MPI_COMM_WORLD";
  j.groups[std::size_t(split)].ranks = {1, 0};
  auto call = [&](int rank, int group, std::int64_t seq, const char* name, const char* op, std::int64_t t0, std::int64_t t1) {
    job::Call c;
    c.rank = rank;
    c.group = group;
    c.seq = seq;
    c.name = b.intern(name);
    c.op = b.intern(op);
    c.dtype = b.intern("MPI_DOUBLE");
    c.inElems = c.outElems = 4;
    c.bytes = 32;
    c.started = kT0 + t0;
    c.completed = t1 < 0 ? 0 : kT0 + t1;
    c.state = t1 < 0 ? job::State::started : job::State::completed;
    j.calls.push_back(c);
  };
  call(0, world, 0, "MPI_Allreduce", "all_reduce", 1000, 5000);
  call(1, world, 0, "MPI_Allreduce", "all_reduce", 4000, 5000);
  call(0, world, 1, "MPI_Iallreduce", "all_reduce", 6000, 9000);
  call(0, world, 2, "MPI_Ibcast", "broadcast", 7000, 8000);  // overlaps the one above
  call(1, split, 0, "MPI_Barrier", "barrier", 6000, 7000);
  call(0, split, 0, "MPI_Barrier", "barrier", 6500, 7000);
  call(1, world, 1, "MPI_Iallreduce", "all_reduce", 9500, -1);  // never left
  b.finish();
  return j;
}

TEST(Timeline, ChromeTraceHasAProcessPerRankATrackPerCommunicatorAndNoOverlaps) {
  const job::Job j = sample();
  const std::string text = chromeTrace(j);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "control characters are escaped, never written raw";
  const auto doc = nlohmann::json::parse(text);  // throws on invalid JSON or UTF-8
  std::map<int, std::string> process, host;
  std::map<std::pair<int, int>, std::string> thread;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  int open = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      process[e["pid"]] = e["args"]["name"];
      host[e["pid"]] = e["args"]["host"];
    }
    if (e["ph"] == "M" && e["name"] == "thread_name") thread[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "X") {
      slices[{e["pid"], e["tid"]}].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
      if (e["args"]["state"].get<std::string>().find("never left") != std::string::npos) ++open;
      EXPECT_TRUE(e["args"].contains("communicator"));
      EXPECT_EQ(e["args"]["dtype"], "MPI_DOUBLE");
    }
  }
  EXPECT_EQ(process[0], "rank 0");
  EXPECT_EQ(process[1], "rank 1");
  EXPECT_EQ(host[0], "node-a");
  EXPECT_EQ(host[1].substr(0, 6), "node-b");
  std::size_t n = 0;
  for (auto& [track, v] : slices) {
    ASSERT_TRUE(thread.count(track)) << "every track is named";
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) EXPECT_LE(v[i - 1].second, v[i].first) << thread[track] << ": overlapping slices";
    n += v.size();
  }
  EXPECT_EQ(n, j.calls.size());
  EXPECT_EQ(open, 1);
  // Rank 0 has MPI_COMM_WORLD, its second lane (the overlapping Ibcast) and the split.
  int rank0Tracks = 0;
  bool second = false;
  for (auto& [track, name] : thread)
    if (track.first == 0) {
      ++rank0Tracks;
      second |= name == "MPI_COMM_WORLD (1) (2)";
    }
  EXPECT_EQ(rank0Tracks, 3);
  EXPECT_TRUE(second) << "the overlapping call has a track of its own";
}

// A send and its receive between ranks 0 and 1 (a Flight Recorder's p2p
// records): each names its peer, rank 0 as much as rank 1; a peer of 0 is
// a rank, not "no peer" (issue 56, round four: planted as `peer > 0`).
TEST(Timeline, EveryP2pCallNamesItsPeerRankZeroToo) {
  job::Job j;
  job::Builder b(j);
  j.sources.push_back({});
  b.rank(0), b.rank(1);
  const int world = b.group("0");
  j.groups[std::size_t(world)].ranks = {0, 1};
  for (int r : {0, 1}) {
    job::Call c;
    c.rank = r;
    c.group = world;
    c.seq = 1;
    c.p2p = true;
    c.peer = 1 - r;
    c.name = b.intern(r == 0 ? "nccl:send" : "nccl:recv");
    c.op = b.intern(r == 0 ? "send" : "recv");
    c.started = kT0 + 1000;
    c.completed = kT0 + 2000;
    c.state = job::State::completed;
    j.calls.push_back(c);
  }
  b.finish();
  const auto doc = nlohmann::json::parse(chromeTrace(j));
  std::map<int, int> peerOf;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X") {
      EXPECT_EQ(e["cat"], "p2p");
      ASSERT_TRUE(e["args"].contains("peer")) << "rank " << e["pid"] << "'s " << e["name"] << " names no peer";
      peerOf[e["pid"]] = e["args"]["peer"];
    }
  EXPECT_EQ(peerOf, (std::map<int, int>{{0, 1}, {1, 0}}));
}

TEST(Timeline, TheOpenCallRunsToTheTracesEnd) {
  const Timeline t = layoutTimeline(sample());
  EXPECT_EQ(t.origin, kT0 + 1000);
  EXPECT_EQ(t.span, 8500);  // the last entry (9500) is the latest time
  int open = 0;
  for (const TimelineSlice& s : t.slices)
    if (s.open) {
      ++open;
      EXPECT_EQ(s.end, t.span);
    }
  EXPECT_EQ(open, 1);
}

std::string run(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    std::size_t k;
    while ((k = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, k);
    pclose(p);
  }
  return out;
}

TEST(Timeline, Otf2ReadsBackWithOtf2Print) {
  if (!haveOtf2()) GTEST_SKIP() << "built without OTF2 (libopen-trace-format2-dev)";
  if (system("command -v otf2-print >/dev/null 2>&1") != 0) GTEST_SKIP() << "otf2-print missing (Debian: otf2-tools)";
  const fs::path dir = fs::temp_directory_path() / ("collviz_otf2_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const job::Job j = sample();
  ASSERT_TRUE(writeOtf2(j, (dir / "trace.otf2").string()).ok());
  EXPECT_TRUE(fs::exists(dir / "trace.def"));
  EXPECT_TRUE(fs::is_directory(dir / "trace"));
  // A second write refuses to replace the events folder it would overwrite.
  EXPECT_FALSE(writeOtf2(j, (dir / "trace.otf2").string()).ok());
  const std::string events = run("otf2-print " + (dir / "trace.otf2").string() + " 2>&1");
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t p = events.find(what); p != std::string::npos; p = events.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("MPI_COLLECTIVE_BEGIN"), j.calls.size()) << events;
  EXPECT_EQ(count("MPI_COLLECTIVE_END"), j.calls.size() - 1) << "the call never left has no end";
  EXPECT_EQ(count("\nENTER"), j.calls.size());
  const std::string defs = run("otf2-print -G " + (dir / "trace.otf2").string() + " 2>&1");
  EXPECT_NE(defs.find("MPI_COMM_WORLD (1)"), std::string::npos) << defs;
  EXPECT_NE(defs.find("split(0,1) of MPI_COMM_WORLD"), std::string::npos) << defs;
  EXPECT_NE(defs.find("MPI_Allreduce"), std::string::npos);
  EXPECT_NE(defs.find("node-a"), std::string::npos);
  fs::remove_all(dir);
  // Nothing is left beside a refused target.
  EXPECT_FALSE(writeOtf2(j, (dir / "x.otf2").string()).ok()) << "its folder is gone";
}

}  // namespace
}  // namespace collviz::ui
