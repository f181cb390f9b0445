// `collviz run --profile`: the phases of a run (start-up, inputs, poison,
// op, verify, copies, compare, print, shut-down, other) are there in the
// JSON, none negative, and together no more than the wall time; the text
// prints every phase in English and in Chinese; --algo refuses it. No
// timing thresholds: the figures themselves are the benchmarks' business.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_process.h"

namespace {

using namespace std::chrono_literals;
using namespace collviz::test;
using json = nlohmann::json;

struct Cli : collviz::test::Cli {
  explicit Cli(std::vector<std::string> args)
      : collviz::test::Cli("collviz_profile_", std::move(args), 120s) {}
};

class CliProfile : public SubreaperTest {};

const char* kPhases[] = {"startup_us", "inputs_us",  "poison_us", "op_us",
                         "verify_us",  "copies_us",  "compare_us", "print_us",
                         "shutdown_us", "other_us"};

void expectPhasesAddUp(const json& p) {
  ASSERT_TRUE(p.is_object()) << p.dump();
  ASSERT_TRUE(p.contains("wall_us"));
  const double wall = p["wall_us"].get<double>();
  double sum = 0;
  for (const char* k : kPhases) {
    ASSERT_TRUE(p.contains(k)) << k << " missing: " << p.dump();
    const double v = p[k].get<double>();
    EXPECT_GE(v, 0.0) << k;
    sum += v;
  }
  EXPECT_GT(p["op_us"].get<double>(), 0.0) << "an op ran";
  EXPECT_GT(wall, 0.0);
  // "other" is what is left of the wall time: the phases add up to it, and
  // the named ones to no more than it.
  EXPECT_LE(sum, wall * (1 + 1e-9) + 1.0) << p.dump();
  EXPECT_GE(p["engine_work_us"].get<double>(), 0.0);
}

TEST_F(CliProfile, JsonCarriesThePhases) {
  for (const std::string program : {"all_reduce", "all_reduce_decomposed"}) {
    Cli c({"run", "--op", program, "--ranks", "4", "--elems", "4096", "--backend", "gloo",
           "--profile", "--json"});
    ASSERT_EQ(c.wait(), 0) << c.err;
    const json j = json::parse(c.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << c.out;
    ASSERT_TRUE(j.contains("profile")) << program;
    expectPhasesAddUp(j["profile"]);
    if (program == "all_reduce_decomposed") {
      EXPECT_GT(j["profile"]["compare_us"].get<double>(), 0.0) << "the comparison ran";
    }
    expectNoOrphans(c);
  }
  // Without --profile the JSON is as before.
  Cli plain({"run", "--op", "all_reduce", "--ranks", "2", "--elems", "8", "--backend", "gloo", "--json"});
  ASSERT_EQ(plain.wait(), 0) << plain.err;
  EXPECT_FALSE(json::parse(plain.out).contains("profile"));
}

// The profile adds up: its phases, "other" included, to the wall time, and
// the op phase to its parts on Gloo (the run reaching every rank, the
// warm-up calls, the outputs poisoned in the ranks, the timed calls, the
// replies), each named; "other" is what no phase names, kept small (at most
// a tenth of the wall: before this, the op's warm-up and the ranks' own
// poison hid in "op" unnamed). The printed parts add up to the op's row.
TEST_F(CliProfile, ThePhasesAddUpToTheWallTimeAndTheOpToItsParts) {
  Cli c({"run", "--op", "all_reduce", "--ranks", "4", "--elems", "65536", "--backend", "gloo",
         "--profile", "--json"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  const json j = json::parse(c.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << c.out;
  const json& p = j["profile"];
  double sum = 0;
  for (const char* k : kPhases) sum += p.value(k, -1.0);
  const double wall = p.value("wall_us", 0.0), op = p.value("op_us", 0.0);
  EXPECT_NEAR(sum, wall, 1.0 + wall * 1e-9) << p.dump();
  EXPECT_LE(p.value("other_us", 0.0), wall / 10) << "a tenth of the run is in no named phase: " << p.dump();
  double parts = 0;
  for (const char* k : {"reach_us", "warmup_us", "rank_poison_us", "timed_us", "replies_us"}) {
    ASSERT_TRUE(p.contains(k)) << k << ": " << p.dump();
    EXPECT_GE(p[k].get<double>(), 0.0) << k;
    parts += p[k].get<double>();
  }
  EXPECT_NEAR(parts, op, 1.0 + op * 1e-9) << p.dump();
  EXPECT_GT(p.value("warmup_us", 0.0), 0.0) << "one warm-up call ran";
  EXPECT_GT(p.value("timed_us", 0.0), 0.0) << "one timed call ran";
  EXPECT_GT(p.value("rank_poison_us", 0.0), 0.0) << "each rank poisons its output before the timed call";

  for (const char* lang : {"en", "zh"}) {
    Cli t({"run", "--op", "all_reduce", "--ranks", "4", "--elems", "65536", "--backend", "gloo", "--profile",
           "--values", "none", "--lang", lang});
    ASSERT_EQ(t.wait(), 0) << t.err;
    const bool en = std::string(lang) == "en";
    auto msOf = [&](const std::string& label) {
      const auto at = t.out.find(label);
      EXPECT_NE(at, std::string::npos) << label << "\n" << t.out;
      return at == std::string::npos ? -1.0 : std::stod(t.out.substr(at + label.size()));
    };
    const double opRow = msOf(en ? "op (the ranks' calls, warm-up included)" : "操作（各 rank 的调用，含预热）");
    const std::pair<const char*, const char*> kParts[] = {
        {"the run reaching every rank", "运行指令送达每个 rank"},
        {"the ranks' warm-up calls", "各 rank 的预热调用"},
        {"the ranks' outputs poisoned before the timed call", "各 rank 在计时调用前给输出写入毒化值"},
        {"the ranks' timed calls", "各 rank 的计时调用"},
        {"the replies back", "回复送回"}};
    double partRows = 0;
    for (const auto& [english, chinese] : kParts) partRows += msOf(en ? english : chinese);
    EXPECT_NEAR(partRows, opRow, 0.3) << t.out;  // each printed to 0.1 ms
  }
}

TEST_F(CliProfile, TextInEnglishAndChinese) {
  Cli en({"run", "--op", "broadcast", "--ranks", "3", "--elems", "16", "--backend", "gloo",
          "--profile", "--lang", "en"});
  ASSERT_EQ(en.wait(), 0) << en.err;
  for (const char* s : {"profile: where the run's time went (wall ", "start-up", "inputs written",
                        "outputs poisoned", "op (the ranks' calls", "verify (", "copies out",
                        "print", "shut-down", "other", "the engine's own work"})
    EXPECT_NE(en.out.find(s), std::string::npos) << s << "\n" << en.out;
  Cli zh({"run", "--op", "broadcast", "--ranks", "3", "--elems", "16", "--backend", "gloo",
          "--profile", "--lang", "zh"});
  ASSERT_EQ(zh.wait(), 0) << zh.err;
  for (const char* s : {"剖析：本次运行的时间花在哪里", "启动", "写入输入", "输出写入毒化值", "操作（各 rank 的调用",
                        "核对（", "拷出", "打印", "关闭", "其他", "引擎自身的工作"})
    EXPECT_NE(zh.out.find(s), std::string::npos) << s << "\n" << zh.out;
  expectNoOrphans(zh);
}

TEST_F(CliProfile, AlgorithmRunsRefuseIt) {
  Cli c({"run", "--op", "all_reduce", "--algo", "ring", "--ranks", "4", "--elems", "8",
         "--backend", "gloo", "--profile"});
  EXPECT_EQ(c.wait(), 2) << c.out;
  EXPECT_NE(c.err.find("--profile"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("--algo native"), std::string::npos) << c.err;
}

}  // namespace
