// `collviz run` at sizes too big to print: the default output summarises
// (first and last few values per block, "…(k)…", a count and how to get all),
// --values all prints every value, --values none none, and --json holds
// values up to the limit (labels and counts always) and parses either way.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_process.h"

namespace {

using namespace std::chrono_literals;
using namespace collviz::test;
using json = nlohmann::json;

struct Cli : collviz::test::Cli {
  explicit Cli(std::vector<std::string> args)
      : collviz::test::Cli("collviz_values_", std::move(args), 120s) {}
};

class CliValues : public SubreaperTest {};

// The values printed on the "in :" and "out:" lines.
std::size_t printedValues(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    const auto at = line.find("in :") != std::string::npos ? line.find("in :") : line.find("out:");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 4));
    std::string w;
    while (words >> w) {  // numbers only: not "|", "…(k)…" or "(6000 values)"
      char* end = nullptr;
      std::strtod(w.c_str(), &end);
      n += end && *end == 0 && end != w.c_str();
    }
  }
  return n;
}

TEST_F(CliValues, SixteenMiBPerRankIsSummarised) {
  Cli c({"run", "--op", "all_reduce", "--ranks", "4", "--elems", "1048576", "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_LT(c.out.size(), 100000u);
  EXPECT_NE(c.out.find("…(1048570)…"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("33554240 values not printed"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("--values all"), std::string::npos);
  // At this size the pattern carries positions mod K, so the shard is the
  // oracle's and each label says so with "*".
  EXPECT_NE(c.out.find("Σ₀* Σ₁* Σ₂* Σ₃*"), std::string::npos) << "labels stay complete";
  expectNoOrphans(c);
}

TEST_F(CliValues, AllPrintsEveryValueAndNoneNone) {
  const std::vector<std::string> base = {"run", "--op", "all_reduce", "--ranks", "2",
                                         "--elems", "3000", "--backend", "gloo"};
  auto args = base;
  args.insert(args.end(), {"--values", "all"});
  Cli all(args);
  ASSERT_EQ(all.wait(), 0) << all.err;
  EXPECT_EQ(printedValues(all.out), 2u * 2 * 2 * 3000);  // ranks x (in, out) x blocks x E
  EXPECT_EQ(all.out.find("not printed"), std::string::npos);
  Cli summary(base);
  ASSERT_EQ(summary.wait(), 0) << summary.err;
  EXPECT_EQ(printedValues(summary.out), 2u * 2 * 2 * 6);
  args = base;
  args.insert(args.end(), {"--values", "none"});
  Cli none(args);
  ASSERT_EQ(none.wait(), 0) << none.err;
  EXPECT_EQ(printedValues(none.out), 0u);
  EXPECT_NE(none.out.find("(6000 values)"), std::string::npos) << none.out;
}

TEST_F(CliValues, JsonParsesSummarisedAndWhole) {
  std::vector<std::string> args = {"run", "--op", "all_reduce", "--ranks", "2", "--elems",
                                   "3000", "--backend", "gloo", "--json"};
  Cli summary(args);
  ASSERT_EQ(summary.wait(), 0) << summary.err;
  const json s = json::parse(summary.out);
  const json& r0 = s["steps"][0]["ranks"][0];
  ASSERT_TRUE(r0["output"].is_object()) << r0["output"].dump().substr(0, 200);
  EXPECT_EQ(r0["output"]["elements"], 6000);
  EXPECT_EQ(r0["output"]["elided"], 6000 - 12);
  EXPECT_EQ(r0["output"]["blocks"].size(), 2u);
  EXPECT_EQ(r0["output_labels"].size(), 2u);
  EXPECT_EQ(s["steps"][0]["mismatches"], 0);
  args.insert(args.end(), {"--values", "all"});
  Cli whole(args);
  ASSERT_EQ(whole.wait(), 0) << whole.err;
  const json w = json::parse(whole.out);
  ASSERT_TRUE(w["steps"][0]["ranks"][0]["output"].is_array());
  EXPECT_EQ(w["steps"][0]["ranks"][0]["output"].size(), 6000u);
}

// The engine keeps only the ends of big blocks unless asked: a summary shows
// exactly the values at those places in the whole buffer, and a limit above
// a buffer's size prints all of it (the run asks the engine to keep them).
TEST_F(CliValues, SummaryIsTheWholeBuffersEnds) {
  const int64_t e = 5000;
  std::vector<std::string> args = {"run", "--op", "reduce_scatter", "--ranks", "2", "--elems",
                                   std::to_string(e), "--backend", "gloo", "--json"};
  Cli summary(args);
  ASSERT_EQ(summary.wait(), 0) << summary.err;
  args.insert(args.end(), {"--values", "all"});
  Cli whole(args);
  ASSERT_EQ(whole.wait(), 0) << whole.err;
  const json s = json::parse(summary.out), w = json::parse(whole.out);
  for (int r = 0; r < 2; ++r)
    for (const char* side : {"input", "output"}) {
      SCOPED_TRACE(std::string(side) + " of rank " + std::to_string(r));
      const json& sum = s["steps"][0]["ranks"][r][side];
      const json& all = w["steps"][0]["ranks"][r][side];
      ASSERT_TRUE(all.is_array());
      ASSERT_EQ(sum["elements"], all.size());
      const std::size_t blocks = all.size() / std::size_t(e);
      ASSERT_EQ(sum["blocks"].size(), blocks);
      for (std::size_t b = 0; b < blocks; ++b) {
        const json& head = sum["blocks"][b][0];
        const json& tail = sum["blocks"][b][1];
        ASSERT_EQ(head.size(), 3u);
        ASSERT_EQ(tail.size(), 3u);
        for (std::size_t k = 0; k < 3; ++k) {
          EXPECT_EQ(head[k], all[b * e + k]) << "block " << b << " head " << k;
          EXPECT_EQ(tail[k], all[b * e + e - 3 + k]) << "block " << b << " tail " << k;
        }
      }
    }
  Cli big({"run", "--op", "reduce_scatter", "--ranks", "2", "--elems", std::to_string(e),
           "--backend", "gloo", "--values", "20000"});
  ASSERT_EQ(big.wait(), 0) << big.err;
  EXPECT_EQ(printedValues(big.out), std::size_t(2 * (2 * e + e)));  // ranks x (in 2E + out E)
  EXPECT_EQ(big.out.find("not printed"), std::string::npos);
}

TEST_F(CliValues, BadValuesIsUsage) {
  Cli c({"run", "--values", "some"});
  EXPECT_EQ(c.wait(), 2) << c.err;
  EXPECT_NE(c.err.find("--values: 'some' is not allowed; use all, none, or a count"),
            std::string::npos) << c.err;
}

}  // namespace
