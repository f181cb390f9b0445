// The checks' texts in Chinese: spec refusals, the provenance pattern, what a
// verification found, the backend's choice and the bench's refusals, each
// made by the engine code that says it (no workers: the steps are built
// here), rendered by app/lang. In English each is its old text byte for
// byte; in 中文 every message id has its entry, no {k} is left, and
// tests/app/lang/english_words.py finds no English word outside the allow list.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "app/lang/lang.h"
#include "engine/bench/bench.h"
#include "engine/collectives.h"
#include "engine/group/devices.h"
#include "engine/verify/poison.h"
#include "engine/verify/value_summary.h"
#include "engine/verify/verify.h"
#include "tests/engine/engine_test_support.h"

namespace collviz {
namespace {

using test::makeSpec;

// A step with the pattern's inputs and outputs that `fill` writes, verified.
template <typename Fill>
Verification verifyStep(const OpSpec& s, Fill fill) {
  StepResult st;
  st.spec = s;
  st.ranks.resize(std::size_t(s.ranks));
  const Pattern p = choosePattern(s);
  fillInputs(st, p);
  for (int r = 0; r < s.ranks; ++r) {
    st.ranks[r].rank = r;
    BufferView& out = st.ranks[r].output;
    out.present = outputBlocks(s.op, s.ranks, r, s.root) > 0;
    out.bytes.resize(outputBytes(s, r));
    fill(st, r);
  }
  labelAndVerify(st, p, opProvenance(s));
  return st.verify;
}

// Every message id in `t` (nested too) is in the string table.
void expectInTable(const Text& t) {
  if (t.literal) return;
  const auto table = translations();
  EXPECT_TRUE(std::any_of(table.begin(), table.end(), [&](const Translation& e) { return e.en == t.id; }))
      << "no Chinese for \"" << t.id << "\"";
  for (const Text& a : t.args) expectInTable(a);
}

class ChecksZh : public ::testing::Test {
 protected:
  void TearDown() override { setLanguage(Lang::en); }
  // `english`: what the engine's string says (Error::message, a Said).
  void add(const Text& t, const std::string& english) {
    ASSERT_FALSE(t.empty());
    setLanguage(Lang::en);
    EXPECT_EQ(render(t), english);
    expectInTable(t);
    setLanguage(Lang::zh);
    const std::string zh = render(t);
    EXPECT_NE(zh, english) << zh;
    for (char k = '0'; k <= '9'; ++k)
      EXPECT_EQ(zh.find(std::string("{") + k + "}"), std::string::npos) << zh;
    setLanguage(Lang::en);
    lines_.push_back(zh);
  }
  void add(const Status& st) {
    ASSERT_FALSE(st.ok());
    add(st.text(), st.message());
  }
  void add(const Said& s) {
    ASSERT_NE(s.current(), nullptr) << "said without its message: " << std::string(s);
    add(*s.current(), s);
  }
  // english_words.py over every Chinese line.
  void expectNoEnglish() {
    const std::string path = ::testing::TempDir() + "checks_zh.txt";
    {
      std::ofstream f(path);
      for (const std::string& l : lines_) f << l << "\n";
    }
    const std::string cmd = "python3 " COLLVIZ_SOURCE_DIR "/tests/app/lang/english_words.py " + path;
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    EXPECT_EQ(::pclose(p), 0) << out;
  }
  std::vector<std::string> lines_;
};

TEST_F(ChecksZh, SpecRefusals) {
  add(validate(makeSpec(Op::all_reduce, 99, 4)));
  add(validate(makeSpec(Op::all_reduce, 4, 0)));
  add(validate(makeSpec(Op::broadcast, 4, 4, DType::f32, RedOp::sum, 7)));
  add(validate(makeSpec(Op::all_reduce, 4, 4, DType::i32, RedOp::avg)));
  BackendCaps caps;
  caps.name = "gloo";
  caps.max_ranks = 8;
  caps.dtypes = {DType::f32};
  caps.redops = {RedOp::sum};
  caps.max_rank_bytes = 1 << 20;
  add(validate(makeSpec(Op::all_reduce, 12, 4), caps));
  add(validate(makeSpec(Op::all_reduce, 4, 4, DType::f64), caps));
  add(validate(makeSpec(Op::all_reduce, 4, 4, DType::f32, RedOp::max), caps));
  add(validate(makeSpec(Op::all_reduce, 4, 1 << 20), caps));
  add(validate(makeSpec(Op::all_reduce, 4, int64_t(1) << 61), caps));  // "more than 9e18"
  expectNoEnglish();
}

TEST_F(ChecksZh, PatternDescriptions) {
  const std::vector<OpSpec> specs = {
      makeSpec(Op::all_reduce, 4, 4),                             // full
      makeSpec(Op::all_reduce, 4, 33, DType::f16),                // contributors, mod 32
      makeSpec(Op::all_reduce, 4, 4, DType::i32, RedOp::prod),    // prod
      makeSpec(Op::all_reduce, 8, 1, DType::f16)};                // values only
  for (const OpSpec& s : specs) {
    const Pattern p = choosePattern(s);
    add(p.text(), p.describe());
    // The app gets the mode string only (Verification::mode): it maps back.
    const Text back = patternText(p.describe());
    EXPECT_FALSE(back.literal) << p.describe();
    EXPECT_EQ(back.english(), p.describe());
  }
  EXPECT_TRUE(patternText("something else").literal);
  expectNoEnglish();
}

TEST_F(ChecksZh, WhatVerificationFound) {
  // all_reduce outputs left as each rank's own input: A where Σ belongs.
  const OpSpec ar = makeSpec(Op::all_reduce, 4, 4);
  Verification v = verifyStep(ar, [](StepResult& st, int r) {
    st.ranks[r].output.bytes = st.ranks[r].input.bytes;
  });
  ASSERT_FALSE(v.verified);
  ASSERT_FALSE(v.bad_blocks.empty());
  EXPECT_NE(v.bad_blocks[0].find("where"), std::string::npos) << v.bad_blocks[0];
  add(v.first_problem);
  add(v.bad_blocks[0]);
  // Never written: the poison where Σ belongs.
  v = verifyStep(ar, [&](StepResult& st, int r) {
    poisonBytes(st.ranks[r].output.bytes.data(), st.ranks[r].output.bytes.size(), ar.dtype);
  });
  ASSERT_FALSE(v.verified);
  EXPECT_NE(v.first_problem.find("poison"), std::string::npos) << v.first_problem;
  add(v.first_problem);
  add(v.bad_blocks[0]);
  // all_gather with two elements of a block swapped: right data, out of place.
  const OpSpec ag = makeSpec(Op::all_gather, 2, 4);
  v = verifyStep(ag, [&](StepResult& st, int r) {
    auto& out = st.ranks[r].output.bytes;
    const std::size_t block = st.ranks[0].input.bytes.size();
    for (int j = 0; j < ag.ranks; ++j)
      std::memcpy(out.data() + j * block, st.ranks[j].input.bytes.data(), block);
    if (r == 0) std::swap_ranges(out.begin(), out.begin() + 4, out.begin() + 4);
  });
  ASSERT_FALSE(v.verified);
  EXPECT_NE(v.bad_blocks[0].find("out of place"), std::string::npos) << v.bad_blocks[0];
  add(v.first_problem);
  add(v.bad_blocks[0]);
  // The counts mean what they say: "(W of T elements wrong)" is
  // "（T 个元素中 W 个错误）", the whole first (issue 39: {4} and {5} swapped
  // said "4 of 1 wrong" and passed).
  const std::string en = v.bad_blocks[0];
  const std::size_t open = en.rfind('(');
  ASSERT_NE(open, std::string::npos) << en;
  long wrong = 0, total = 0;
  ASSERT_EQ(std::sscanf(en.c_str() + open, "(%ld of %ld elements wrong)", &wrong, &total), 2) << en;
  ASSERT_NE(wrong, total) << "the case must tell the two counts apart: " << en;
  setLanguage(Lang::zh);
  EXPECT_NE(render(v.bad_blocks[0]).find("（" + std::to_string(total) + " 个元素中 " + std::to_string(wrong) + " 个错误）"),
            std::string::npos)
      << render(v.bad_blocks[0]) << " (English: " << en << ")";
  setLanguage(Lang::en);
  expectNoEnglish();
}

TEST_F(ChecksZh, BackendChoiceAndBench) {
  auto rep = parseProbe(R"({"backends": [
      {"name": "nccl", "available": false, "reason": "/usr/lib/libnccl.so.2"},
      {"name": "gloo", "available": true}]})");
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  Said notice;
  ASSERT_TRUE(rep->choose(BackendKind::automatic, &notice).ok());
  add(notice);
  std::string english_notice;  // the English-only overload says the same
  ASSERT_TRUE(rep->choose(BackendKind::automatic, &english_notice).ok());
  EXPECT_EQ(english_notice, std::string(notice));
  add(Status(rep->choose(BackendKind::nccl, static_cast<Said*>(nullptr)).error()));
  add(Status(rep->choose(BackendKind::mpi, static_cast<Said*>(nullptr)).error()));
  add(Status(parseProbe("{}").error()));

  add(Status(parseSize("12Q").error()));
  BenchConfig c;
  c.ops = {Op::all_reduce};
  auto bad = [&](auto change) {
    BenchConfig b = c;
    change(b);
    add(validate(b));
  };
  bad([](BenchConfig& b) { b.ops.clear(); });
  bad([](BenchConfig& b) { b.min_bytes = 0; });
  bad([](BenchConfig& b) { b.min_bytes = 1 << 20, b.max_bytes = 8; });
  bad([](BenchConfig& b) { b.factor = 1; });
  bad([](BenchConfig& b) { b.iters = 0; });
  bad([](BenchConfig& b) { b.warmup = -1; });
  bad([](BenchConfig& b) { b.check = b.iters + 1; });
  bad([](BenchConfig& b) { b.ranks = 99; });
  BackendCaps caps;
  caps.name = "gloo";
  caps.dtypes = {DType::f32};
  caps.redops = {RedOp::sum};
  caps.max_rank_bytes = 1 << 10;
  c.max_bytes = 1 << 20;
  EXPECT_NE(checkAgainstBackend(planSweep(c), caps).message().find("can hold"), std::string::npos);
  add(checkAgainstBackend(planSweep(c), caps));

  Said why;
  EXPECT_FALSE(parseValueLimit("-5", &why));
  add(why);
  expectNoEnglish();
}

}  // namespace
}  // namespace collviz
