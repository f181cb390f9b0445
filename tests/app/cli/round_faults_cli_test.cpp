// A fault inside a round as a user meets it: `collviz run --algo` exits 1
// and names the round, in the text and in the JSON (`problem`, the elements
// that differ from the native op); `collviz bench --algo -c` names it in its
// row. (The engine's side: tests/round_faults_test.cpp.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_process.h"

namespace collviz::test {
namespace {

using json = nlohmann::json;
const std::vector<std::string> kFault = {"COLLVIZ_FAULT=round_skip_recv:3"};

TEST(RoundFaultsCli, RunNamesTheRound) {
  Cli c("round_faults_cli_", {"run", "--op", "all_reduce", "--algo", "ring", "-N", "4", "-E", "2",
                              "--backend", "gloo"}, 60s, kFault);
  EXPECT_EQ(c.wait(), 1) << c.err;
  EXPECT_NE(c.out.find("NOT VERIFIED"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("first wrong: round 3/6 (reduce-scatter 3/3): "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("DIFFERS FROM the native all_reduce"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("from the native op"), std::string::npos) << "no differing element named: " << c.out;
  expectNoOrphans(c);
}

TEST(RoundFaultsCli, JsonNamesTheRoundAndTheElements) {
  Cli c("round_faults_cli_", {"run", "--op", "all_reduce", "--algo", "ring", "-N", "4", "-E", "2",
                              "--backend", "gloo", "--json"}, 60s, kFault);
  EXPECT_EQ(c.wait(), 1) << c.err;
  const json j = json::parse(c.out);
  EXPECT_EQ(j["verified"], false);
  EXPECT_EQ(j["problem"].get<std::string>().rfind("round 3/6 (reduce-scatter 3/3): ", 0), 0u) << j["problem"];
  EXPECT_EQ(j["final_matches_native"], false);
  EXPECT_GT(j["differing_elements"].get<int>(), 0);
  EXPECT_FALSE(j["differing_places"].empty());
  EXPECT_EQ(j["steps"][2]["verified"], false);
  EXPECT_EQ(j["steps"][1]["verified"], true);
}

TEST(RoundFaultsCli, BenchCheckNamesTheRound) {
  Cli c("round_faults_cli_", {"bench", "--op", "all_reduce", "--algo", "ring", "--ranks", "4", "-b", "64",
                              "-e", "64", "-n", "2", "-w", "0", "-c", "1", "--backend", "gloo"},
        120s, kFault);
  EXPECT_EQ(c.wait(), 1) << c.out << c.err;
  EXPECT_NE(c.out.find("first wrong: round 3/6 (reduce-scatter 3/3): "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("FAILED"), std::string::npos) << c.out;
}

}  // namespace
}  // namespace collviz::test
