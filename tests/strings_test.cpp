// Every string a reader sees is in the translation table with its Chinese,
// including those that reach tr() through a table rather than as a literal
// (the source scan in lecture_test sees only tr("...") literals): the
// decomposition's state captions (an exported deck's index.md named a state
// "状态 1：after reduce-scatter: one shard each" when its entry was gone),
// the stepper's names, the Break it menu, the bandwidth table's headings,
// and every phase name of every algorithm's rounds (the round view shows
// tr(phase)). The test enumerates the tables themselves.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "app/export/export_set.h"
#include "app/lang/lang.h"
#include "app/panels/bandwidth_panel.h"
#include "app/panels/fault_menu.h"
#include "app/panels/trace_bar.h"
#include "engine/algo/algorithms.h"

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
        for (const algo::Round& r : built->rounds) phases.insert(r.phase);
      }
  }
  for (const std::string& p : phases) expectTranslated(p, "a round's phase");
  EXPECT_GE(checked_, 5);
}

}  // namespace
}  // namespace collviz
