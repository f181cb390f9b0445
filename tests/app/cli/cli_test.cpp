// `collviz run` as a user runs it: exit codes (0 ok, 1 failure, 2 usage),
// messages on stderr, one JSON document on stdout, Ctrl-C (exit 130), and no
// collviz-rank left behind after a normal exit or an interrupt. The CLI runs
// in its own process group; this test is a child subreaper, so any worker
// that outlived the CLI would be re-parented here and seen.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli_process.h"  // Cli, workersInGroup, expectNoOrphans

namespace {

using namespace std::chrono_literals;
using namespace collviz::test;

struct Cli : collviz::test::Cli {
  explicit Cli(std::vector<std::string> args)
      : collviz::test::Cli("collviz_cli_", std::move(args), 60s) {}
};

class CliRun : public SubreaperTest {};

TEST_F(CliRun, BadRanksIsUsage) {
  Cli c({"run", "--ranks", "0"});
  ASSERT_EQ(c.wait(), 2) << c.err;
  EXPECT_NE(c.err.find("ranks = 0"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("allowed: 1 to 16"), std::string::npos) << c.err;
  EXPECT_TRUE(c.out.empty());
  expectNoOrphans(c);
}

TEST_F(CliRun, EveryBadFieldIsUsage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--op", "nope"}, "allowed: broadcast, scatter"},
      {{"run", "--ranks", "17"}, "allowed: 1 to 16"},
      {{"run", "--elems", "0"}, "elems = 0"},
      {{"run", "--root", "4"}, "allowed: 0 to 3"},
      {{"run", "--dtype", "i32", "--redop", "avg"}, "redop avg"},
      {{"run", "--dtype", "f128"}, "allowed: f32"},
      {{"run", "--redop", "xor"}, "allowed: sum"},
      {{"run", "--dtype", "bf16", "--backend", "gloo"}, "allowed: f32, f64, f16, i32, i64, u8"},
      {{"run", "--elems", "1000000000000", "--backend", "gloo"}, "over the cap"},
      {{"run", "--deadline-ms", "5"}, "allowed: 100 to 600000"},
      {{"run", "--ranks", "two"}, "ranks"},
      {{"run", "--frobnicate"}, "frobnicate"},
      {{"nope"}, "nope"},
  };
  for (const auto& [args, says] : cases) {
    Cli c(args);
    EXPECT_EQ(c.wait(), 2) << args[args.size() - 1] << ": " << c.err;
    EXPECT_NE(c.err.find(says), std::string::npos) << c.err;
    expectNoOrphans(c);
  }
}

TEST_F(CliRun, JsonIsOneDocumentWithTheResult) {
  Cli c({"run", "--op", "all_to_all", "--ranks", "4", "--elems", "2", "--dtype", "i32",
         "--backend", "gloo", "--json"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const auto j = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "stdout is not one JSON document:\n" << c.out;
  EXPECT_EQ(j["op"], "all_to_all");
  EXPECT_EQ(j["ranks"], 4);
  EXPECT_EQ(j["elems"], 2);
  EXPECT_EQ(j["dtype"], "i32");
  EXPECT_EQ(j["backend"]["name"], "gloo");
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["mismatches"], 0);
  ASSERT_EQ(j["steps"].size(), 1u);
  const auto& r1 = j["steps"][0]["ranks"][1];
  EXPECT_EQ(r1["output_labels"], (nlohmann::json{"A₁", "B₁", "C₁", "D₁"}));
  EXPECT_EQ(r1["input_labels"], (nlohmann::json{"B₀", "B₁", "B₂", "B₃"}));
  // Output block j of rank 1 = input block 1 of rank j.
  for (int jb = 0; jb < 4; ++jb)
    for (int e = 0; e < 2; ++e)
      EXPECT_EQ(r1["output"][jb * 2 + e], j["steps"][0]["ranks"][jb]["input"][2 + e]);
  expectNoOrphans(c);
}

TEST_F(CliRun, DecomposedHasTwoStepsAndATable) {
  Cli c({"run", "--op", "all_reduce_decomposed", "--ranks", "3", "--backend", "gloo", "--json"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const auto j = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["op"], "all_reduce_decomposed");
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["steps"][0]["name"], "reduce_scatter");
  EXPECT_EQ(j["steps"][1]["name"], "all_gather");
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(j["steps"][1]["ranks"][r]["input"], j["steps"][0]["ranks"][r]["output"]);
  EXPECT_EQ(j["equals_all_reduce"], true);
  expectNoOrphans(c);
  Cli t({"run", "--op", "broadcast", "--root", "2", "--backend", "gloo"});
  ASSERT_EQ(t.wait(), 0) << t.err;
  EXPECT_NE(t.out.find("R2  A B C D → A B C D"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("verified"), std::string::npos);
  expectNoOrphans(t);
}

// Ctrl-C while the op is blocked (a worker stopped before it could join):
// exit 130, every worker ended, nothing re-parented. (Stopping the device
// probe instead would hang the CLI for good: probeDevices has no timeout.)
TEST_F(CliRun, CtrlCEndsARunWithCode130AndNoWorkersLeft) {
  Cli c({"run", "--op", "all_reduce", "--ranks", "4", "--backend", "gloo",
         "--deadline-ms", "60000"});
  pid_t stopped = -1;
  std::vector<pid_t> seen;
  const auto end = std::chrono::steady_clock::now() + 30s;
  while (stopped < 0 && std::chrono::steady_clock::now() < end) {
    seen = workersInGroup(c.pid, c.pid);
    if (!seen.empty()) {
      stopped = seen[0];
      ::kill(stopped, SIGSTOP);
    } else {
      std::this_thread::sleep_for(200us);
    }
  }
  ASSERT_GT(stopped, 0) << "no collviz-rank appeared";
  // Until all four workers are there (the run is then waiting on the stopped
  // one), at most 30 s.
  while ((seen = workersInGroup(c.pid, c.pid)).size() < 4 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(seen.size(), 4u);
  int st = 0;
  ASSERT_EQ(::waitpid(c.pid, &st, WNOHANG), 0) << "the run finished despite a stopped rank";
  ::kill(-c.pid, SIGINT);  // what a terminal's Ctrl-C does: the whole group
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(c.wait(20s), 130) << c.err;
  EXPECT_LE(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_NE(c.err.find("interrupted"), std::string::npos) << c.err;
  for (pid_t p : seen) EXPECT_TRUE(::kill(p, 0) != 0 && errno == ESRCH) << "worker " << p;
  expectNoOrphans(c);
}

// Every COLLVIZ_FAULT mode: exit 1, the wrong blocks named on stdout, on
// every run (each `collviz run` is a fresh group: its first run).
TEST_F(CliRun, EveryInjectedFaultExitsOneNamingTheBadBlocks) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"skip", "bad block: rank 0 output block 0: not written (still the poison) where Σ₀ belongs"},
      {"skip_after_first", "bad block: rank 3 output block 3: not written (still the poison)"},
      {"rank:2,corrupt", "bad block: rank 2 output block 2: Σ₂ (1 of 4 elements wrong)"},
      {"swap", "bad block: rank 1 output block 0: Σ₃ where Σ₀ belongs (4 of 4 elements wrong)"},
      {"rank:1,delay_ms:3000", "rank(s) 1 did not finish"},
      {"rank:1,busy_ms:4000", "(slow, not hung: "},
  };
  for (const auto& [fault, says] : cases) {
    collviz::test::Cli c("collviz_cli_", {"run", "--backend", "gloo", "--deadline-ms", "500"}, 60s,
                         {"COLLVIZ_FAULT=" + fault});
    EXPECT_EQ(c.wait(), 1) << fault << ": " << c.err;
    EXPECT_NE((c.out + c.err).find(says), std::string::npos) << fault << ":\n" << c.out << c.err;
    expectNoOrphans(c);
  }
  // A bad value is the user's input, checked before any worker starts.
  collviz::test::Cli bad("collviz_cli_", {"run", "--backend", "gloo"}, 60s, {"COLLVIZ_FAULT=rank:7,swap"});
  EXPECT_EQ(bad.wait(), 2) << bad.err;
  EXPECT_NE(bad.err.find("not a rank of this group (0 to 3)"), std::string::npos) << bad.err;
  expectNoOrphans(bad);
}

TEST_F(CliRun, DevicesListsGloo) {
  Cli c({"devices"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(c.out.find("gloo"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("nccl"), std::string::npos) << c.out;
}

// One command line, one habit: -N on every command that takes ranks, the
// reduce op only where there is a reduction, an engine notice once, and
// `algos` wrapped at 100 columns with each op's own notes.
TEST_F(CliRun, HabitsAreTheSameEverywhere) {
  for (const char* op : {"all_gather", "all_reduce"}) {
    Cli c({"run", "--op", op, "-N", "2", "--backend", "auto"});
    ASSERT_EQ(c.wait(), 0) << c.err;
    const bool reduces = std::string(op) == "all_reduce";
    EXPECT_EQ(c.out.find("redop=") != std::string::npos, reduces) << c.out;
    const std::string all = c.out + c.err;
    std::size_t notices = 0;
    for (std::size_t at = all.find("NCCL unavailable"); at != std::string::npos;
         at = all.find("NCCL unavailable", at + 1))
      ++notices;
    EXPECT_LE(notices, 1u) << all;
    expectNoOrphans(c);
  }
  Cli bench({"bench", "--op", "all_reduce", "-b", "1K", "-e", "1K", "-n", "1", "-w", "0", "-N", "2",
             "--backend", "gloo"});
  EXPECT_EQ(bench.wait(), 0) << bench.err;
  expectNoOrphans(bench);
  Cli algos({"algos", "-N", "2"});
  ASSERT_EQ(algos.wait(), 0) << algos.err;
  EXPECT_NE(algos.out.find(" 1 round at N = 2"), std::string::npos) << algos.out;
  EXPECT_EQ(algos.out.find(" 1 rounds"), std::string::npos) << algos.out;
  std::string op;
  for (std::size_t at = 0, end; at < algos.out.size(); at = end + 1) {
    end = algos.out.find('\n', at);
    if (end == std::string::npos) end = algos.out.size();
    const std::string line = algos.out.substr(at, end - at);
    std::size_t cols = 0;
    for (unsigned char ch : line) cols += (ch & 0xC0) != 0x80;
    EXPECT_LE(cols, 100u) << line;
    if (!line.empty() && line[0] != ' ') op = line;
    // A note for another op stays under that op.
    if (op != "broadcast") {
      EXPECT_EQ(line.find("(broadcast:"), std::string::npos) << op << ": " << line;
    }
    if (op != "all_reduce") {
      EXPECT_EQ(line.find("(all_reduce:"), std::string::npos) << op << ": " << line;
    }
  }
}


// The backend line reads like the window's status line: "gloo 0.5.0 · CPU (2
// cores), one process per rank · tcp …", the name and version first, no
// "gloo: 0.5.0 backend".
TEST_F(CliRun, BackendLineReadsLikeTheWindows) {
  Cli c({"run", "--op", "broadcast", "-N", "2", "-E", "2", "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const std::size_t first = c.out.find('\n');
  ASSERT_NE(first, std::string::npos) << c.out;
  const std::string line = c.out.substr(first + 1, c.out.find('\n', first + 1) - first - 1);
  EXPECT_EQ(line.rfind("gloo ", 0), 0u) << line;
  EXPECT_NE(line.find(" · CPU ("), std::string::npos) << line;
  EXPECT_EQ(line.find("gloo:"), std::string::npos) << line;
  EXPECT_EQ(line.find("backend"), std::string::npos) << line;
  EXPECT_EQ(line.find(" · ", line.size() - 3), std::string::npos) << line;  // no empty part at the end
  expectNoOrphans(c);
}

// Issue 55: on fewer CPUs than the machine has (as taskset -c N runs it), the
// backend line says the CPUs collviz may use, not the machine's cores.
TEST_F(CliRun, BackendLineSaysTheCpusItMayUse) {
  cpu_set_t all;
  ASSERT_EQ(::sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "needs 2 usable CPUs to run on one; this process may use 1";
  int last = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) last = c;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(last, &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);  // this thread: the child inherits it
  Cli c({"run", "--op", "broadcast", "-N", "2", "-E", "2", "--backend", "gloo"});
  ASSERT_EQ(::sched_setaffinity(0, sizeof all, &all), 0);
  ASSERT_EQ(c.wait(), 0) << c.err;
  const std::string want = "CPU (1 of " + std::to_string(std::thread::hardware_concurrency()) +
                           " cores usable: CPU " + std::to_string(last) + "), one process per rank";
  EXPECT_NE(c.out.find(want), std::string::npos) << "want " << want << " in:\n" << c.out;
  expectNoOrphans(c);
}

// --lang zh: the command's own words in Chinese (the labels, the verdict, a
// usage error on stderr), the JSON still English.
TEST_F(CliRun, ChineseOutputKeepsJsonEnglish) {
  Cli c({"run", "--lang", "zh", "--op", "all_gather", "-N", "2", "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  for (const char* zh : {"输入：", "输出：", "已核对", "核），每个 rank 一个进程"})
    EXPECT_NE(c.out.find(zh), std::string::npos) << zh << "\n" << c.out;
  for (const char* en : {" in :", " out:", "verified", "backend"})
    EXPECT_EQ(c.out.find(en), std::string::npos) << en << "\n" << c.out;
  expectNoOrphans(c);
  Cli bad({"run", "--lang", "zh", "--op", "nope", "--json"});
  ASSERT_EQ(bad.wait(), 2) << bad.err;
  EXPECT_NE(bad.err.find("--op nope 不是集合操作；可选："), std::string::npos) << bad.err;
  const auto j = nlohmann::json::parse(bad.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << bad.out;
  EXPECT_EQ(j["error"].get<std::string>().rfind("--op nope is not a collective; allowed: ", 0), 0u) << bad.out;
  Cli dev({"devices", "--lang", "zh"});
  ASSERT_EQ(dev.wait(), 0) << dev.err;
  EXPECT_NE(dev.out.find("--backend auto 选用："), std::string::npos) << dev.out;
  EXPECT_EQ(dev.out.find("picks"), std::string::npos) << dev.out;
}

}  // namespace
