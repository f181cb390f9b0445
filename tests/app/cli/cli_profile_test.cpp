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
