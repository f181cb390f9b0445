// `collviz run --algo` and `collviz algos` as a user runs them: rounds in
// the JSON, refusals with exit 2 naming the algorithms that fit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/app/cli/cli_process.h"

namespace collviz::test {
namespace {

using json = nlohmann::json;

TEST(AlgoCli, RingRoundsInTheJson) {
  Cli c("algo_cli_", {"run", "--op", "all_reduce", "--algo", "ring", "-N", "3", "-E", "2",
                      "--backend", "gloo", "--json"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const json j = json::parse(c.out);
  EXPECT_EQ(j["algo"], "ring");
  ASSERT_EQ(j["steps"].size(), 4u);
  EXPECT_EQ(j["steps"][1]["name"], "reduce-scatter 2/2");
  EXPECT_EQ(j["steps"][2]["phase"], "all-gather");
  EXPECT_EQ(j["steps"][0]["transfers"].size(), 3u);
  EXPECT_EQ(j["steps"][0]["transfers"][0]["kind"], "reduce");
  EXPECT_EQ(j["steps"][0]["ranks"][0]["output_labels"].size(), 3u);
  EXPECT_EQ(j["bytes_sent"], json::array({32, 32, 32}));
  EXPECT_EQ(j["formula"]["rounds"], 4);
  EXPECT_EQ(j["final_matches_native"], true);
  EXPECT_EQ(j["differing_elements"], 0);
  EXPECT_EQ(j["verified"], true);
  expectNoOrphans(c);
}

TEST(AlgoCli, TextPrintsTransfers) {
  Cli c("algo_cli_", {"run", "--op", "all_to_all", "--algo", "bruck", "-N", "4", "-E", "1",
                      "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(c.out.find("step 1/4: local: rotate by r"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("R1 local  slots 1,2,3,0 → 0,1,2,3"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("step 3/4: bruck 2/2"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("R0 → R2  slots 2,3 → 2,3"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("equals the native all_to_all"), std::string::npos) << c.out;
}

// In Chinese a round's line says 轮 once: "第 1/2 轮：Reduce-scatter 1/1", the
// round's name inside it without a second 轮.
TEST(AlgoCli, ChineseRoundNamesSayRoundOnce) {
  Cli c("algo_cli_", {"run", "--lang", "zh", "--op", "all_reduce", "--algo", "ring", "-N", "2", "-E", "2",
                      "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(c.out.find("第 1/2 轮：Reduce-scatter 1/1（"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("第 2/2 轮：All-gather 1/1（"), std::string::npos) << c.out;
  std::istringstream in(c.out);
  for (std::string line; std::getline(in, line);) {
    const std::size_t first = line.find("轮");
    if (first != std::string::npos && line.rfind("第 ", 0) == 0)
      EXPECT_EQ(line.find("轮", first + 1), std::string::npos) << line;
  }
  expectNoOrphans(c);
}

TEST(AlgoCli, BadAlgorithmsExit2NamingTheOnesThatFit) {
  {
    Cli c("algo_cli_", {"run", "--op", "all_reduce", "--algo", "pairwise"});
    EXPECT_EQ(c.wait(), 2);
    EXPECT_NE(c.err.find("native, ring, tree, halving_doubling"), std::string::npos) << c.err;
  }
  {
    Cli c("algo_cli_", {"run", "--op", "scatter", "--algo", "butterfly"});
    EXPECT_EQ(c.wait(), 2);
    EXPECT_NE(c.err.find("for scatter: native, direct"), std::string::npos) << c.err;
  }
  {
    Cli c("algo_cli_", {"run", "--op", "all_reduce_decomposed", "--algo", "ring"});
    EXPECT_EQ(c.wait(), 2);
  }
  {
    Cli c("algo_cli_", {"bench", "--op", "all_gather", "--algo", "tree", "-b", "1K", "-e", "1K"});
    EXPECT_EQ(c.wait(), 2);
    EXPECT_NE(c.err.find("native, ring, recursive_doubling"), std::string::npos) << c.err;
  }
}

TEST(AlgoCli, AlgosListsEveryOp) {
  Cli c("algo_cli_", {"algos", "--json", "--ranks", "5"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const json j = json::parse(c.out);
  int ops_with_native = 0;
  for (const auto& a : j["algorithms"]) {
    if (a["algo"] == "native") ++ops_with_native;
    if (a["algo"] == "halving_doubling" && a["op"] == "all_reduce") {
      EXPECT_EQ(a["rounds"], 6);
    }
  }
  EXPECT_EQ(ops_with_native, 8);
}

// Under --lang zh the list is Chinese (descriptions, heading, formulas); its
// JSON stays English.
TEST(AlgoCli, AlgosInChineseJsonInEnglish) {
  Cli c("algo_cli_", {"algos", "--lang", "zh", "--ranks", "4"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(c.out.find("算法（轮数按 N = 4 计"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("N = 4 时 6 轮 · 2(N-1) 轮；每个 rank 发送 2(N-1)/N·S"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("环：每个 rank 发给下一个"), std::string::npos) << c.out;
  for (const char* english : {"rounds", "sent per rank", "binomial", "the root", "opaque"})
    EXPECT_EQ(c.out.find(english), std::string::npos) << english << " in\n" << c.out;
  Cli j("algo_cli_json_", {"algos", "--lang", "zh", "--json", "--ranks", "4"});
  ASSERT_EQ(j.wait(), 0) << j.err;
  bool ring = false;
  const json list = json::parse(j.out);
  for (const auto& a : list["algorithms"])
    if (a["algo"] == "ring" && a["op"] == "all_reduce") {
      ring = true;
      EXPECT_EQ(a["formula"], "2(N-1) rounds; 2(N-1)/N·S sent per rank (S = N blocks); cost 2(N-1)α + 2(N-1)/N·Sβ");
      EXPECT_EQ(a["summary"], "ring: each rank sends to the next, one block per round (broadcast: a pipelined chain)");
    }
  EXPECT_TRUE(ring);
}

}  // namespace
}  // namespace collviz::test
