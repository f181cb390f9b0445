// The compare view's model: two algorithms for the same op and spec side by
// side. Per algorithm: message rounds and the busiest rank's bytes sent,
// counted from the schedule and by the textbook formula. Measured times
// come from a size sweep of both (compare_sweep.h): every size is a few
// repetitions of the whole schedule back to back, and its time is their
// median. The α–β model says an algorithm's time is
//   t = α · (message rounds) + β · Σ over its rounds of the busiest sender's bytes,
// and α, β are fitted to every (algorithm, size) point of both by least
// squares on relative error (sizes span orders of magnitude). Where the
// points do not determine α or β the fit says so instead of a number. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/spec.h"

namespace collviz::ui {

struct CompareRow {
  std::string algo;
  std::string error;            // the algorithm cannot run this spec
  int rounds = 0;               // message rounds of the schedule (local steps not counted)
  int formula_rounds = 0;
  double bytes = 0;             // busiest rank's bytes sent, counted
  double formula_bytes = 0;     // by the formula
  std::string formula_text;     // "2(N-1) rounds; 2(N-1)/N·S sent per rank"
  std::vector<double> round_bytes;  // per message round: the busiest sender's bytes
  double model_bytes = 0;       // Σ round_bytes: what β multiplies
};

// One (algorithm, size) of the sweep.
struct SizePoint {
  int64_t elems = 0;         // elements per block
  double block_bytes = 0;    // elems · dtype size
  double model_bytes = 0;    // Σ over message rounds of the busiest sender's bytes
  std::vector<double> reps_us;  // each repetition's time (slowest rank, all rounds)
  double median_us = -1;     // < 0: not measured (yet)
  std::string error;         // the run failed
};

struct SweepSeries {
  std::string algo;
  int messages = 0;          // message rounds (what α multiplies)
  std::vector<SizePoint> sizes;
};

// t ≈ alpha_us · messages + beta_us_per_byte · bytes.
struct AlphaBeta {
  double alpha_us = 0, beta_us_per_byte = 0;
  double alpha_se = 0, beta_se = 0;  // standard errors (same units)
  bool alpha_ok = false, beta_ok = false;  // determined by the points
  double rms_rel_error = 0;  // √(mean of ((model − measured) / measured)²)
  int points = 0;
  bool fitted() const { return alpha_ok || beta_ok; }
};

struct ModelPoint {
  double messages = 0, bytes = 0, us = 0;
};

// The fit. α (or β) is "not determined" when the points cannot tell it from
// the other term (collinear), when it comes out negative, or when its
// standard error is larger than half of it; the other is then refitted alone.
AlphaBeta fitAlphaBeta(const std::vector<ModelPoint>& points);
// α·messages + β·bytes with the terms the fit determined.
double modelUs(const AlphaBeta& ab, double messages, double bytes);
double medianOf(std::vector<double> v);
// "α = 35.2 ± 3.1 µs per message round; β = 1.02 ± 0.05 ns/B (0.98 GB/s)",
// with "not determined" for a term the points do not determine.
std::string fitText(const AlphaBeta& f);

// One algorithm's counts for `spec`.
CompareRow compareRow(const OpSpec& spec, const std::string& algo);
// The block sizes (elements) a sweep runs for `spec`: about 64 B, 8 KiB,
// 128 KiB and 1 MiB per block (less at large N, down to 128 KiB at N = 32,
// so all ranks' buffers stay near 128 MiB), and the spec's own size; ascending.
std::vector<int64_t> sweepElems(const OpSpec& spec);
// Every measured (algorithm, size) of the series as fit points.
std::vector<ModelPoint> modelPoints(const std::vector<SweepSeries>& series);

// The engine algorithms that run `op` round by round (no native), then the
// algorithm files read in this process for `op` at `ranks` (0: any).
std::vector<std::string> compareChoices(Op op, int ranks = 0);
// The pair shown first: `current` when it is one of them (else the first),
// and the next other one.
std::pair<std::string, std::string> defaultComparePair(Op op, const std::string& current, int ranks = 0);
// Sizes a pair can both run: `elems` up to a multiple of every algorithm
// file's chunks per block (1 for the built-ins); sorted, without repeats.
std::vector<int64_t> splittable(std::vector<int64_t> elems, const std::vector<std::string>& algos);

}  // namespace collviz::ui
