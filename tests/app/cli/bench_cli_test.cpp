// `collviz bench` as a user runs it: a short sweep of every op on Gloo whose
// JSON has every column and #wrong = 0, the table, refusals with exit 2, and
// Ctrl-C (exit 130, the rows so far printed, no collviz-rank left, nothing in
// /dev/shm). The CLI runs in its own process group; this test is a child
// subreaper, so a worker that outlived the CLI would be re-parented here.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_process.h"  // Cli, workersInGroup, expectNoOrphans

namespace {

using namespace std::chrono_literals;
using namespace collviz::test;

struct Cli : collviz::test::Cli {
  explicit Cli(std::vector<std::string> args)
      : collviz::test::Cli("collviz_bench_", std::move(args), 120s) {}
};

class BenchCli : public SubreaperTest {};

TEST_F(BenchCli, ShortSweepOfEveryOpHasEveryColumnAndNoWrongElements) {
  Cli c({"bench", "-b", "8", "-e", "64K", "-f", "8", "-n", "3", "-w", "1", "--op", "all",
         "--backend", "gloo", "--json"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const auto j = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "stdout is not one JSON document:\n" << c.out;
  EXPECT_EQ(j["backend"]["name"], "gloo");
  EXPECT_EQ(j["interrupted"], false);
  EXPECT_EQ(j["wrong_total"], 0);
  std::set<std::string> ops;
  for (const auto& r : j["rows"]) {
    for (const char* col : {"op", "size", "count", "type", "redop", "root", "time_us", "algbw",
                            "busbw", "wrong", "checks", "ranks", "elems_per_block",
                            "busbw_factor", "rank_time_us", "engine_us", "overhead_us",
                            "requests"})
      EXPECT_TRUE(r.contains(col)) << col << " missing in " << r.dump();
    EXPECT_EQ(r["wrong"], 0) << r.dump();
    EXPECT_EQ(r["type"], "f32");
    EXPECT_GT(r["time_us"].get<double>(), 0.0);
    EXPECT_LE(r["size"].get<std::size_t>(), std::size_t(64) << 10);
    EXPECT_NEAR(r["algbw"].get<double>(),
                r["size"].get<double>() / (r["time_us"].get<double>() * 1e3), 1e-9);
    EXPECT_NEAR(r["busbw"].get<double>(),
                r["algbw"].get<double>() * r["busbw_factor"].get<double>(), 1e-9);
    ops.insert(r["op"].get<std::string>());
  }
  EXPECT_EQ(ops.size(), 8u);
  EXPECT_EQ(j["avg_busbw"].size(), 8u);
  // 5 sizes (8 or 16, 64, 512, 4K, 32K) for each of the 8 ops.
  EXPECT_EQ(j["rows"].size(), 40u);
  expectNoOrphans(c);
}

// Every COLLVIZ_FAULT that returns data: #wrong > 0 on every checked
// iteration (-c 3: three requests, each checked), exit 1; the overhead is
// measured, never negative.
TEST_F(BenchCli, InjectedFaultsCountWrongOnEveryCheck) {
  for (const std::string fault : {"skip", "skip_after_first", "corrupt", "swap"}) {
    collviz::test::Cli c("collviz_bench_",
                         {"bench", "-b", "1K", "-e", "4K", "-f", "4", "-n", "3", "-w", "1", "-c",
                          "3", "--backend", "gloo", "--json"},
                         120s, {"COLLVIZ_FAULT=" + fault});
    EXPECT_EQ(c.wait(), 1) << fault << ": " << c.err;
    const auto j = nlohmann::json::parse(c.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << fault << ": " << c.out;
    ASSERT_EQ(j["rows"].size(), 2u) << fault;
    for (const auto& r : j["rows"]) {
      EXPECT_EQ(r["checks"], 3) << fault;
      // corrupt flips one element per rank and check: 4 ranks x 3 checks.
      EXPECT_GE(r["wrong"].get<int64_t>(), fault == "corrupt" ? 12 : 3 * r["count"].get<int64_t>())
          << fault << ": " << r.dump();
      EXPECT_GE(r["overhead_us"].get<double>(), 0.0);
    }
    expectNoOrphans(c);
  }
}

// A sweep that fails before its first row says no size was checked (not
// "-c 0", which the user did not ask for), with the rank's own error.
TEST_F(BenchCli, FailureBeforeTheFirstRowSaysNothingWasChecked) {
  collviz::test::Cli c("collviz_bench_",
                       {"bench", "--op", "all_gather", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0",
                        "--ranks", "2", "--backend", "gloo", "--deadline-ms", "1000"},
                       120s, {"COLLVIZ_FAULT=rank:1,skip"});
  EXPECT_EQ(c.wait(), 1) << c.err;
  EXPECT_NE(c.out.find("N/A (no size was checked)"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("-c 0"), std::string::npos) << c.out;
  EXPECT_NE(c.err.find("rank 0"), std::string::npos) << c.err;
  EXPECT_EQ(c.err.find(": ;"), std::string::npos) << c.err;
  expectNoOrphans(c);
}

TEST_F(BenchCli, TableLooksLikeNcclTests) {
  Cli c({"bench", "--op", "all_gather", "-b", "1K", "-e", "4K", "-n", "2", "-w", "0",
         "--ranks", "2", "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  for (const char* s : {"size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                        "#wrong", "(N-1)/N = 0.5", "# Avg bus bandwidth", "0 OK"})
    EXPECT_NE(c.out.find(s), std::string::npos) << s << " in\n" << c.out;
  // 1K, 2K, 4K: all_gather on 2 ranks, f32: count = size / 8.
  EXPECT_NE(c.out.find("        1024           128       f32    none     -1"),
            std::string::npos)
      << c.out;
  expectNoOrphans(c);
}

// The display columns (a CJK character takes two) where each word of `line`
// ends.
std::vector<std::size_t> wordEnds(const std::string& line) {
  std::vector<std::size_t> ends;
  std::size_t col = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(line[i]);
    if ((ch & 0xC0) == 0x80) continue;  // a continuation byte
    const bool space = ch == ' ';
    if (space && in_word) ends.push_back(col);
    in_word = !space;
    col += ch >= 0xE3 ? 2 : 1;  // U+3000 on: CJK
  }
  if (in_word) ends.push_back(col);
  return ends;
}

// In Chinese the table lines up as a terminal shows it: every row's cells
// end where the headings end, though 无 (no reduce op) and the headings take
// two columns a character.
TEST_F(BenchCli, ChineseTableAlignsByDisplayWidth) {
  Cli c({"bench", "--lang", "zh", "--op", "all_gather", "-b", "1K", "-e", "2K", "-n", "1", "-w", "0",
         "--ranks", "2", "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  std::vector<std::string> rows;
  std::string heading;
  std::istringstream in(c.out);
  for (std::string line; std::getline(in, line);) {
    if (line.find("大小") != std::string::npos && line.find("算法带宽") != std::string::npos) heading = line;
    else if (!line.empty() && line[0] != '#') rows.push_back(line);
  }
  ASSERT_FALSE(heading.empty()) << c.out;
  ASSERT_EQ(rows.size(), 2u) << c.out;
  EXPECT_NE(rows[0].find(" 无 "), std::string::npos) << rows[0];
  const std::vector<std::size_t> head = wordEnds(heading);
  for (const std::string& row : rows) {
    const std::vector<std::size_t> ends = wordEnds(row);
    EXPECT_EQ(ends.size(), 11u) << row;
    for (std::size_t e : ends)
      EXPECT_NE(std::find(head.begin(), head.end(), e), head.end())
          << "a cell ends at column " << e << ", under no heading:\n" << heading << "\n" << row;
  }
  expectNoOrphans(c);
}

TEST_F(BenchCli, BadOptionsAreRefusedWithExit2) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", "--op", "nope"}, "allowed: broadcast, scatter"},
      {{"bench", "-b", "12Q"}, "-b 12Q is not a size"},
      {{"bench", "-e", "lots"}, "-e lots is not a size"},
      {{"bench", "-b", "64K", "-e", "8"}, "allowed: -e >= -b"},
      {{"bench", "-f", "1"}, "-f 1"},
      {{"bench", "-c", "5", "-n", "2"}, "-c 5"},
      {{"bench", "--ranks", "0"}, "allowed: 1 to 16"},
      {{"bench", "--dtype", "bf16", "--backend", "gloo", "-b", "8", "-e", "8"}, "dtype bf16"},
      {{"bench", "-b", "8", "-e", "64G", "--backend", "gloo"},
       "more than backend gloo can hold"},
  };
  for (const auto& [args, says] : cases) {
    Cli c(args);
    EXPECT_EQ(c.wait(), 2) << args.back() << ": " << c.err;
    EXPECT_NE(c.err.find(says), std::string::npos) << c.err;
    EXPECT_TRUE(c.out.empty()) << c.out;
    expectNoOrphans(c);
  }
}

TEST_F(BenchCli, CtrlCPrintsTheRowsSoFarAndLeavesNothingBehind) {
  Cli c({"bench", "-b", "1K", "-e", "64M", "-f", "2", "-n", "200", "-w", "0", "-c", "0",
         "--backend", "gloo"});
  std::vector<pid_t> seen;
  const auto end = std::chrono::steady_clock::now() + 60s;
  // Wait for two measured rows.
  for (;;) {
    const std::string out = c.stdoutSoFar();
    int rows = 0;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') ++rows;
    if (rows >= 2) break;
    ASSERT_LT(std::chrono::steady_clock::now(), end) << "no rows:\n" << out;
    std::this_thread::sleep_for(20ms);
  }
  seen = workersInGroup(c.pid, c.pid);
  EXPECT_EQ(seen.size(), 4u);
  ::kill(-c.pid, SIGINT);  // a terminal's Ctrl-C: the whole group
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(c.wait(20s), 130) << c.err;
  EXPECT_LE(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_NE(c.err.find("interrupted after"), std::string::npos) << c.err;
  EXPECT_NE(c.out.find("# Avg bus bandwidth"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("        1024"), std::string::npos) << c.out;
  for (pid_t p : seen) EXPECT_TRUE(::kill(p, 0) != 0 && errno == ESRCH) << "worker " << p;
  expectNoOrphans(c);
}

TEST_F(BenchCli, CtrlCWithJsonStillPrintsOneDocument) {
  Cli c({"bench", "-b", "1K", "-e", "64M", "-n", "200", "-w", "0", "-c", "0", "--backend",
         "gloo", "--json"});
  // Until the sweep runs (its four workers are there), at most 30 s.
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (workersInGroup(c.pid, c.pid).size() < 4 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  ASSERT_EQ(workersInGroup(c.pid, c.pid).size(), 4u) << "the sweep never started";
  ::kill(-c.pid, SIGINT);
  ASSERT_EQ(c.wait(20s), 130) << c.err;
  const auto j = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << c.out;
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_TRUE(j["rows"].is_array());
  expectNoOrphans(c);
}

}  // namespace
