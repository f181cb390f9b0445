// Every string a reader sees is in the translation table with its Chinese,
// including those that reach tr() through a table rather than as a literal
// (the source scan in lecture_test sees only tr("...") literals): the
// decomposition's state captions (an exported deck's index.md named a state
// "状态 1：after reduce-scatter: one shard each" when its entry was gone),
// the stepper's names, the Break it menu, the bandwidth table's headings,
// and every phase name of every algorithm's rounds (the round view shows
// tr(phase)). The test enumerates the tables themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "app/files/export_set.h"
#include "app/lang/lang.h"
#include "app/panels/bandwidth_panel.h"
#include "app/panels/fault_menu.h"
#include "app/panels/trace_bar.h"
#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"

namespace collviz {
namespace {

class Strings : public ::testing::Test {
 protected:
  // In the table, with a Chinese text that differs from the English.
  void expectTranslated(const std::string& en, const std::string& where) {
    ++checked_;
    bool found = false;
    for (const Translation& t : translations())
      if (t.en == en) {
        found = true;
        EXPECT_FALSE(t.zh.empty()) << where << ": \"" << en << "\" has no Chinese";
        EXPECT_NE(t.zh, t.en) << where << ": \"" << en << "\" is not translated";
      }
    EXPECT_TRUE(found) << where << ": \"" << en << "\" is not in app/lang/translations.cpp";
  }
  int checked_ = 0;
};

// fn(algorithm, spec, schedule) for every built-in algorithm, each of its
// ops, N = 1 to 16.
template <typename Fn>
void forEverySchedule(Fn fn) {
  for (const algo::Algorithm& a : algo::algorithms()) {
    if (!a.build) continue;
    for (Op op : a.ops)
      for (int n = 1; n <= 16; ++n) {
        OpSpec s;
        s.op = op;
        s.ranks = n;
        s.elems = 1;
        auto built = algo::buildSchedule(a.name, s);
        ASSERT_TRUE(built) << built.error().message;
        fn(a, s, *built);
      }
  }
}

TEST_F(Strings, TheDecompositionsCaptionsAndSteps) {
  for (const char* s : ui::kDecompositionStates) expectTranslated(s, "export_set.h kDecompositionStates");
  for (const char* s : ui::kDecompositionSteps) expectTranslated(s, "trace_bar.h kDecompositionSteps");
  EXPECT_EQ(checked_, 6);
  // What the deck's index shows: the caption in Chinese holds no English state.
  setLanguage(Lang::zh);
  for (int stage = 0; stage < 3; ++stage) {
    ui::ViewSettings v;
    v.stage = stage;
    const std::string c = ui::exportCaption(Program::all_reduce_decomposed, Op::all_reduce, 4, v);
    for (const char* s : ui::kDecompositionStates)
      if (std::string(s) != "input") {
        EXPECT_EQ(c.find(s), std::string::npos) << c;
      }
  }
  setLanguage(Lang::en);
}

TEST_F(Strings, TheBreakItMenuAndTheBandwidthTable) {
  for (const ui::FaultChoice& c : ui::kFaultChoices) expectTranslated(c.what, "fault_menu.h kFaultChoices");
  for (const char* h : ui::kBandwidthColumns) expectTranslated(h, "bandwidth_panel.h kBandwidthColumns");
  EXPECT_GE(checked_, 15);
}

// The round view names a round by tr(phase): every phase any algorithm's
// schedule uses, at every N.
TEST_F(Strings, EveryPhaseOfEveryAlgorithm) {
  std::set<std::string> phases;
  forEverySchedule([&](const algo::Algorithm&, const OpSpec&, const algo::Schedule& sched) {
    for (const algo::Round& r : sched.rounds) phases.insert(r.phase);
  });
  for (const std::string& p : phases) expectTranslated(p, "a round's phase");
  EXPECT_GE(checked_, 5);
}

// The algorithm texts are messages (engine/text.h): every summary, every
// formula and every round name of every algorithm at every N has its
// Chinese, and in Chinese none keeps its English words.
TEST_F(Strings, EveryAlgorithmsSummaryFormulaAndRoundName) {
  for (const algo::Algorithm& a : algo::algorithms())
    expectTranslated(std::string(a.summary), "algorithms.cpp summary");
  forEverySchedule([&](const algo::Algorithm& a, const OpSpec& s, const algo::Schedule& sched) {
    const algo::Figures f = algo::figuresFor(a.name, s);
    ASSERT_TRUE(f.text.current()) << a.name << ": the formula is not a message";
    expectTranslated(f.text.text.id, "a formula");
    for (const algo::Round& r : sched.rounds) {
      const Said name = r.name();
      ASSERT_TRUE(name.current()) << a.name << ": round " << name << " is not a message";
      setLanguage(Lang::zh);
      const std::string zh = render(name), formula = render(f.text);
      setLanguage(Lang::en);
      EXPECT_EQ(render(name), std::string(name));
      if (!r.local()) {
        EXPECT_NE(zh.find("/"), std::string::npos) << zh;
      }
      EXPECT_EQ(zh.find(r.phase + " "), std::string::npos) << a.name << ": " << zh;
      for (const char* word : {"rounds", "sent", "cost", "blocks"})
        EXPECT_EQ(formula.find(word), std::string::npos) << a.name << ": " << formula;
    }
  });
  EXPECT_GE(checked_, 20);
}

// An MSCCL file's errors are messages too: their Chinese keeps the path and
// the line, and the English is what it always was.
TEST_F(Strings, AnMscclFilesErrorsInChinese) {
  auto bad = algo::parseMscclText("bad.xml", "<algo name=\"x\" coll=\"allreduce\" ngpus=\"99\" nchunksperloop=\"1\"/>", 0, 0);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "bad.xml:1: ngpus = 99; allowed: 1 to 16");
  setLanguage(Lang::zh);
  EXPECT_EQ(render(bad.error()), "bad.xml:1：ngpus = 99；可选：1 到 16");
  auto broken = algo::parseMscclText("b.xml", "<algo", 0, 0);
  ASSERT_FALSE(broken);
  EXPECT_NE(render(broken.error()).find("XML 格式不正确"), std::string::npos) << render(broken.error());
  setLanguage(Lang::en);
}

// Placeholders keep their meaning in Chinese, not only their set (issue 39:
// swapping {4} and {5} in "（{5} 个元素中 {4} 个错误）" passed every test and
// said "4 of 1 wrong"). Where the English fixes an order the Chinese must
// keep it: a range "{a} to {b}", "{a}..{b}", "{a}–{b}", a ratio "{a}/{b}",
// a size "{a}x{b}" keep a before b. A part of a whole, "{a} of {b}" (or
// "{a} of <word> {b}"), puts the whole first ("{b} 个…中 {a}", "{b} 的 {a}")
// or names it after the part with 共 ("{a}（共 {b}）"). A size ("{a} of
// {b} B") is not a part.
TEST(StringsOrder, PlaceholdersKeepTheirMeaningInChinese) {
  int ranges = 0, parts = 0;
  for (const Translation& t : translations()) {
    const std::string en(t.en), zh(t.zh);
    for (std::size_t i = en.find('{'); i != std::string::npos; i = en.find('{', i + 1)) {
      if (i + 2 >= en.size() || !std::isdigit(static_cast<unsigned char>(en[i + 1])) || en[i + 2] != '}') continue;
      const std::size_t j = en.find('{', i + 3);
      if (j == std::string::npos || j + 2 >= en.size() || !std::isdigit(static_cast<unsigned char>(en[j + 1])) ||
          en[j + 2] != '}')
        continue;
      const std::string a = en.substr(i, 3), b = en.substr(j, 3), gap = en.substr(i + 3, j - i - 3);
      if (a == b) continue;
      const std::size_t za = zh.find(a), zb = zh.find(b);
      if (za == std::string::npos || zb == std::string::npos) continue;  // the set test's business
      const bool range = gap == " to " || gap == ".." || gap == "–" || gap == "/" || gap == "x" || gap == " x ";
      if (range) {
        ++ranges;
        EXPECT_LT(za, zb) << "\"" << en << "\": " << a << gap << b << " reversed in \"" << zh << "\"";
        continue;
      }
      bool part = gap == " of ";
      if (!part && gap.rfind(" of ", 0) == 0 && gap.size() > 5 && gap.back() == ' ') {
        const std::string word = gap.substr(4, gap.size() - 5);
        part = std::all_of(word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
      }
      const std::string after = en.substr(j + 3, 3);
      if (!part || after == " B " || after == " B)" || en.substr(j + 3) == " B") continue;
      ++parts;
      const bool whole_first = zb < za && (zh.substr(zb, za - zb).find("中") != std::string::npos ||
                                           zh.substr(zb, za - zb).find("的") != std::string::npos);
      const bool whole_after = za < zb && zh.substr(za, zb - za).find("共") != std::string::npos;
      EXPECT_TRUE(whole_first || whole_after)
          << "\"" << en << "\": " << a << " is a part of " << b << ", but \"" << zh
          << "\" neither puts " << b << " first (…中, …的) nor after " << a << " with 共";
    }
  }
  EXPECT_GE(ranges, 10);
  EXPECT_GE(parts, 8);
}

}  // namespace
}  // namespace collviz
