// The compare view's model: two algorithms for the same op and spec side by
// side. Per algorithm: rounds and the busiest rank's bytes sent, counted and
// by the textbook formula; the measured time (sum of the rounds' times, each
// the slowest rank's); and the α–β estimate, Σ over rounds (α + β·bytes of
// the round's busiest sender), with α and β fitted by least squares to the
// measured rounds of both algorithms. Before a run the counts come from the
// schedules and nothing is measured. Pure.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/snapshot.h"
#include "engine/spec.h"

namespace collviz::ui {

struct CompareRow {
  std::string algo;
  std::string error;            // the algorithm cannot run this spec
  int rounds = 0;               // counted (the run's rounds, else the schedule's)
  int formula_rounds = 0;
  double bytes = 0;             // busiest rank's bytes sent, counted
  double formula_bytes = 0;     // by the formula
  std::string formula_text;     // "2(N-1) rounds; 2(N-1)/N·S sent per rank"
  std::vector<double> round_bytes;  // per round: the busiest sender's bytes
  std::vector<double> round_us;     // per round, measured (empty before a run)
  bool ran = false;             // a run of this algorithm without error
  std::string run_error;        // the run failed
  double measured_us = 0;       // Σ round_us
  double estimate_us = -1;      // α–β estimate; < 0 when there is no fit
};

// Round time ≈ alpha_us + beta_us_per_byte · bytes.
struct AlphaBeta {
  double alpha_us = 0;
  double beta_us_per_byte = 0;
  int points = 0;     // measured rounds fitted
  bool fitted = false;
};

struct Comparison {
  OpSpec spec;
  std::array<CompareRow, 2> rows;
  AlphaBeta fit;
};

// One algorithm's row; `snap` is used when it is this algorithm's run of `spec`.
CompareRow compareRow(const OpSpec& spec, const std::string& algo,
                      const std::shared_ptr<const Snapshot>& snap);
// Least squares of (bytes, us) over the points; α, β kept non-negative.
AlphaBeta fitAlphaBeta(const std::vector<std::pair<double, double>>& points);
// Σ over the row's rounds of α + β·bytes.
double estimateUs(const CompareRow& row, const AlphaBeta& ab);
Comparison buildComparison(const OpSpec& spec, const std::string& a,
                           std::shared_ptr<const Snapshot> snap_a, const std::string& b,
                           std::shared_ptr<const Snapshot> snap_b);

// The engine algorithms that run `op` round by round (no native).
std::vector<std::string> compareChoices(Op op);
// The pair shown first: `current` when it is one of them (else the first),
// and the next other one.
std::pair<std::string, std::string> defaultComparePair(Op op, const std::string& current);

}  // namespace collviz::ui
