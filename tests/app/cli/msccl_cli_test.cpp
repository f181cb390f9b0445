// `collviz run --algo-file` as a user runs it: a good file's rounds in the
// JSON, verified and equal to the native op; every broken file exits 2 with
// its file:line and reason, and no rank process is started for it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_process.h"
#include "tests/engine/algo/msccl/msccl_fixtures.h"

namespace collviz::test {
namespace {

using json = nlohmann::json;

TEST(MscclCli, RingFileRunsVerified) {
  Cli c("msccl_cli_", {"run", "--algo-file", goodFixture("ring_allreduce_4_2ch.xml"), "--backend",
                       "gloo", "--json"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const json j = json::parse(c.out);
  EXPECT_EQ(j["algo"], "msccl:ring_allreduce_4_2ch");
  EXPECT_EQ(j["op"], "all_reduce");
  EXPECT_EQ(j["ranks"], 4);
  EXPECT_EQ(j["elems"], 4);  // the default 4 is a multiple of the file's 2 chunks per block
  ASSERT_EQ(j["steps"].size(), 6u);
  for (const auto& st : j["steps"]) EXPECT_EQ(st["verified"], true) << st.dump();
  EXPECT_EQ(j["final_matches_native"], true);
  EXPECT_EQ(j["differing_elements"], 0);
  EXPECT_EQ(j["verified"], true);
  // 2 channels x 6 messages of one chunk (2 f32) each
  EXPECT_EQ(j["bytes_sent"], json::array({96, 96, 96, 96}));
  expectNoOrphans(c);
}

TEST(MscclCli, TextNamesTheFileAlgorithm) {
  Cli c("msccl_cli_", {"run", "--algo-file", goodFixture("allpairs_allreduce_4_scratch.xml"),
                       "--backend", "gloo", "-E", "1"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(c.out.find("--algo msccl:allpairs_allreduce_4"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("equals the native all_reduce"), std::string::npos) << c.out;
}

TEST(MscclCli, EveryBadFileExits2WithFileLine) {
  for (const BadFixture& b : badFixtures()) {
    SCOPED_TRACE(b.path);
    Cli c("msccl_cli_", {"run", "--algo-file", b.path, "--backend", "gloo"});
    EXPECT_EQ(c.wait(), 2) << c.err;
    EXPECT_NE(c.err.find(b.path + ":" + std::to_string(b.line) + ": "), std::string::npos) << c.err;
    EXPECT_NE(c.err.find(b.words), std::string::npos) << c.err;
    expectNoOrphans(c);
  }
}

TEST(MscclCli, OptionsThatDisagreeWithTheFileExit2) {
  const std::string ring = goodFixture("ring_allreduce_4_2ch.xml");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--ranks", "8"}, ":1: ngpus = 4 but --ranks is 8"},
      {{"--op", "all_gather"}, "allowed: --op all_reduce"},
      {{"-E", "3"}, "allowed: a multiple of 2"},
      {{"--algo", "ring"}, "give one"},
  };
  for (const auto& [extra, words] : cases) {
    std::vector<std::string> args{"run", "--algo-file", ring, "--backend", "gloo"};
    args.insert(args.end(), extra.begin(), extra.end());
    Cli c("msccl_cli_", args);
    EXPECT_EQ(c.wait(), 2) << extra[0] << ": " << c.err;
    EXPECT_NE(c.err.find(words), std::string::npos) << c.err;
  }
}

TEST(MscclCli, ExportRefusesABrokenFileBeforeDrawing) {
  const std::string bad = std::string(COLLVIZ_MSCCL_DIR) + "/bad/cnt_mismatch.xml";
  Cli c("msccl_cli_", {"export", "--algo-file", bad, "--step", "1", "-o", "x.png"});
  EXPECT_EQ(c.wait(), 2) << c.err;
  EXPECT_NE(c.err.find(bad + ":5: "), std::string::npos) << c.err;
  EXPECT_FALSE(std::filesystem::exists("x.png"));
}

// Issue 37: algorithm files go wherever algorithms go. `collviz algos
// --algo-file` lists the file under its op beside the built-ins, with its
// rounds at its ranks; `bench --algo-file` sweeps it (sizes split into its
// chunks per block), verified; both refuse an --op or --ranks the file does
// not have.
TEST(MscclCli, AlgosListsTheFile) {
  const std::string ring = goodFixture("ring_allreduce_4_2ch.xml");
  Cli c("msccl_cli_", {"algos", "--algo-file", ring});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(c.out.find("msccl:ring_allreduce_4_2ch"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("2 channels, 2 chunks per block"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("6 rounds at N = 4"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("\n  ring "), std::string::npos) << "the built-ins beside it:\n" << c.out;
  EXPECT_EQ(c.out.find("\nall_gather"), std::string::npos) << "only the file's op:\n" << c.out;
  Cli j("msccl_cli_", {"algos", "--algo-file", ring, "--json"});
  ASSERT_EQ(j.wait(), 0) << j.err;
  EXPECT_NE(j.out.find("\"algo\": \"msccl:ring_allreduce_4_2ch\""), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"rounds\": 6"), std::string::npos) << j.out;
  Cli bad("msccl_cli_", {"algos", "--algo-file", ring, "--ranks", "8"});
  EXPECT_EQ(bad.wait(), 2);
  EXPECT_NE(bad.err.find("ngpus = 4 but --ranks is 8"), std::string::npos) << bad.err;
}

TEST(MscclCli, BenchSweepsTheFile) {
  const std::string ring = goodFixture("ring_allreduce_4_2ch.xml");
  Cli c("msccl_cli_", {"bench", "--algo-file", ring, "-b", "8", "-e", "1K", "-f", "8", "-n", "2", "-w", "1",
                       "--backend", "gloo", "--json"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const json j = json::parse(c.out);
  EXPECT_EQ(j["wrong_total"], 0);
  ASSERT_GE(j["rows"].size(), 3u) << c.out;
  for (const auto& r : j["rows"]) {
    EXPECT_EQ(r["op"], "all_reduce");
    EXPECT_EQ(r["ranks"], 4);
    EXPECT_EQ(r["elems_per_block"].get<int>() % 2, 0) << r.dump();
    EXPECT_EQ(r["wrong"], 0) << r.dump();
  }
  Cli text("msccl_cli_", {"bench", "--algo-file", ring, "-b", "1K", "-e", "1K", "-n", "1", "-w", "0", "--backend", "gloo"});
  ASSERT_EQ(text.wait(), 0) << text.err;
  EXPECT_NE(text.out.find("algo: msccl:ring_allreduce_4_2ch"), std::string::npos) << text.out;
  Cli bad("msccl_cli_", {"bench", "--algo-file", ring, "--op", "all_gather"});
  EXPECT_EQ(bad.wait(), 2);
  EXPECT_NE(bad.err.find("allowed: --op all_reduce"), std::string::npos) << bad.err;
  expectNoOrphans(c);
}

}  // namespace
}  // namespace collviz::test
