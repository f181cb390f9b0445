// Labels equal their bytes: every label a reader sees is parsed back into
// its contributors and block ("A₁+C₁+D₁" = ranks {0, 2, 3}, block 1; "Σ₂" =
// every rank, block 2; "B" = rank 1's block 0; broadcast and scatter name
// the root's pieces; "—" = nothing yet) and the bytes under it must be what
// those contributors' inputs add up to, element by element, with the inputs
// computed by the test's own restatement of the pattern
// (tests/engine/engine_test_support.h), not by the engine's decoder. Every
// algorithm × op × N = 1..16 round by round and every native op, through
// the snapshot's labels, the JSON report's output_labels and the window's
// round model; the CLI's text for N = 5. (The audit's planted bug: a
// partial sum of three or more printed without one of them, "A₁+C₁" over
// the bytes of A₁+C₁+D₁, and nothing noticed.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "app/view/round_model.h"
#include "engine/algo/algorithms.h"
#include "engine/verify/report.h"
#include "tests/app/cli/cli_process.h"
#include "tests/engine/engine_test_support.h"
#include "tests/label_parse.h"

namespace collviz::test {
namespace {

using json = nlohmann::json;

// Every block of every buffer of a step, through the snapshot's labels and
// the JSON's output_labels.
void checkStep(const StepResult& st, const json& js, const std::string& where) {
  const OpSpec& s = st.spec;
  const TestPattern tp = testPattern(s);
  for (std::size_t r = 0; r < st.ranks.size(); ++r) {
    const RankResult& rr = st.ranks[r];
    for (const BufferView* b : {&rr.input, &rr.output}) {
      if (!b->present) continue;
      for (std::size_t k = 0; k < b->labels.size(); ++k) {
        const std::string m = labelMatchesBytes(b->labels[k].text(s.redop), s, tp, *b, int(k));
        EXPECT_EQ(m, "") << where << " rank " << r << (b == &rr.input ? " input " : " output ") << k;
      }
    }
    const json& labels = js["ranks"][r]["output_labels"];
    ASSERT_EQ(labels.size(), rr.output.labels.size()) << where;
    for (std::size_t k = 0; k < labels.size(); ++k) {
      const std::string m = labelMatchesBytes(labels[k].get<std::string>(), s, tp, rr.output, int(k));
      EXPECT_EQ(m, "") << where << " JSON rank " << r << " output_labels[" << k << "]";
    }
  }
}

std::shared_ptr<const Snapshot> run(Engine& e, const OpSpec& s, const std::string& algo) {
  Request r;
  r.spec = s;
  r.backend = BackendKind::gloo;
  r.algo = algo;
  r.keep_values = -1;  // every value: the labels are held against all of them
  return e.waitFor(e.submit(r), 120s);
}

OpSpec specFor(Op op, int n) {
  return makeSpec(op, n, 2, DType::f64, RedOp::sum, usesRoot(op) ? n / 2 : 0);
}

TEST(LabelsEqualBytes, EveryAlgorithmOpAndRankCount) {
  Engine engine;
  int labels_checked = 0;
  for (int n = 1; n <= 16; ++n)
    for (const algo::Algorithm& a : algo::algorithms())
      for (Op op : a.ops) {
        const OpSpec s = specFor(op, n);
        const std::string where = std::string(a.name) + " " + describe(s);
        SCOPED_TRACE(where);
        auto snap = run(engine, s, std::string(a.name));
        ASSERT_TRUE(snap && snap->error.empty()) << (snap ? snap->error : "no snapshot");
        ASSERT_TRUE(snap->verified) << snap->problem;
        const json j = toJson(*snap);
        for (std::size_t k = 0; k < snap->steps.size(); ++k) {
          checkStep(snap->steps[k], j["steps"][k], where + " step " + std::to_string(k + 1));
          for (const RankResult& rr : snap->steps[k].ranks) labels_checked += int(rr.output.labels.size());
        }
        if (!a.build) continue;
        // The output after the last round, and the window's model of each round.
        const TestPattern tp = testPattern(s);
        for (std::size_t r = 0; r < snap->final_ranks.size(); ++r) {
          const BufferView& out = snap->final_ranks[r].output;
          for (std::size_t k = 0; k < out.labels.size(); ++k) {
            EXPECT_EQ(labelMatchesBytes(out.labels[k].text(s.redop), s, tp, out, int(k)), "")
                << "output after the rounds, rank " << r << " block " << k;
            EXPECT_EQ(labelMatchesBytes(j["final"][r]["output_labels"][k].get<std::string>(), s, tp,
                                        out, int(k)), "")
                << "JSON final, rank " << r << " block " << k;
          }
        }
        for (int k = 1; k <= int(snap->steps.size()); ++k) {
          const ui::RoundModel m = ui::buildRoundModel(s, std::string(a.name), k, snap);
          ASSERT_EQ(m.round, k);
          const StepResult& st = snap->steps[std::size_t(k - 1)];
          for (int r = 0; r < n; ++r)
            for (int slot = 0; slot < m.slots; ++slot)
              EXPECT_EQ(labelMatchesBytes(m.now[std::size_t(r)][std::size_t(slot)].text(s.redop), s, tp,
                                          st.ranks[std::size_t(r)].output, slot), "")
                  << "window model, round " << k << " rank " << r << " slot " << slot;
        }
        if (HasFailure()) return;
      }
  EXPECT_GT(labels_checked, 20000);
}

// The CLI's text: `collviz run --algo` prints each round's labels per rank
// ("  R0  A₀+B₀ B₁ …"); the bytes come from the same spec's --json run.
TEST(LabelsEqualBytes, TheCliText) {
  for (const algo::Algorithm& a : algo::algorithms()) {
    if (!a.build) continue;
    for (Op op : a.ops) {
      const OpSpec s = specFor(op, 5);
      SCOPED_TRACE(std::string(a.name) + " " + describe(s));
      std::vector<std::string> args = {"run", "--op", std::string(name(op)), "--algo", std::string(a.name),
                                       "-N", "5", "-E", "2", "--dtype", "f64", "--backend", "gloo",
                                       "--root", std::to_string(s.root)};
      Cli text("labels_cli_", args);
      ASSERT_EQ(text.wait(), 0) << text.err;
      args.push_back("--json");
      Cli js("labels_cli_", args);
      ASSERT_EQ(js.wait(), 0) << js.err;
      const json j = json::parse(js.out);
      const TestPattern tp = testPattern(s);
      // Steps in order: "round k/R: ..." ("step k/R" where the schedule has
      // local steps) then one "  Rr  labels" line per rank.
      std::istringstream in(text.out);
      std::string line;
      int round = -1, rows = 0;
      while (std::getline(in, line)) {
        if (line.rfind("round ", 0) == 0 || line.rfind("step ", 0) == 0) {
          ++round;
          continue;
        }
        if (line.rfind("output after", 0) == 0) break;
        if (round < 0 || line.rfind("  R", 0) != 0 || line.find("→") != std::string::npos) continue;
        std::istringstream fields(line);
        std::string rank_field;
        fields >> rank_field;
        const int r = std::stoi(rank_field.substr(1));
        const json& vals = j["steps"][round]["ranks"][r]["output"];
        BufferView buf;
        buf.present = true;
        std::vector<double> v = vals.get<std::vector<double>>();
        buf.bytes.resize(v.size() * sizeof(double));
        std::memcpy(buf.bytes.data(), v.data(), buf.bytes.size());
        std::string label;
        int k = 0;
        while (fields >> label) {
          EXPECT_EQ(labelMatchesBytes(label, s, tp, buf, k), "") << "CLI round " << round + 1 << ": " << line;
          ++k;
        }
        ++rows;
      }
      EXPECT_EQ(rows, 5 * int(j["steps"].size()));
    }
  }
}

// The parser itself: it must see a dropped contributor.
TEST(LabelsEqualBytes, TheParserReadsWhatIsWritten) {
  const OpSpec s = specFor(Op::all_reduce, 4);
  const Parsed p = parseLabel("A₁+C₁+D₁", s);
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.ranks, 0b1101u);
  EXPECT_EQ(p.block, 1);
  EXPECT_EQ(parseLabel("Σ₁₂", specFor(Op::all_reduce, 16)).block, 12);
  EXPECT_EQ(parseLabel("—", s).empty, true);
  EXPECT_NE(parseLabel("?", s).error, "");
  EXPECT_NE(parseLabel("A₁+C₂", s).error, "");
  const Parsed piece = parseLabel("C", specFor(Op::broadcast, 4));
  EXPECT_EQ(piece.ranks, 1u << 2);  // the root (N/2)
  EXPECT_EQ(piece.block, 2);
}

}  // namespace
}  // namespace collviz::test
