// The table of algorithms: one row per algorithm (name, the ops it serves,
// how to build its schedule, its textbook figures). `native` is the
// library's own call (no schedule). One file per algorithm fills a row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/algo/schedule.h"
#include "engine/spec.h"
#include "engine/text.h"

namespace collviz::algo {

// The textbook figures for an algorithm on one spec, to hold the counted
// traffic against. b = E * dtype bytes (one block), S = the op's whole
// buffer (N blocks; one block for reduce).
struct Figures {
  Said text;              // "2(N-1) rounds; 2(N-1)/N·S sent per rank"
  int rounds = 0;         // rounds of the schedule
  double bytes = 0;       // bytes the busiest rank sends, by the formula
  bool exact = true;      // the schedule sends exactly `bytes` from its busiest rank
};

struct Algorithm {
  std::string_view name;
  std::vector<Op> ops;          // the ops it serves
  std::string_view summary;     // one line for `collviz algos`
  Schedule (*build)(const OpSpec&) = nullptr;  // nullptr: native
  Figures (*figures)(const OpSpec&) = nullptr;
};

inline constexpr std::string_view kNative = "native";

const std::vector<Algorithm>& algorithms();
const Algorithm* findAlgorithm(std::string_view name);
bool serves(const Algorithm& a, Op op);
// "native, ring, tree" (the algorithms that run `op`).
std::string algorithmsFor(Op op);
// Every algorithm name, for error messages.
std::string allowedAlgorithms();

// Can `algo` run `s`? The error names what does not fit and the algorithms
// that do.
Status checkAlgorithm(std::string_view algo, const OpSpec& s);
// The schedule of a non-native algorithm for `s` (checkAlgorithm first).
Result<Schedule> buildSchedule(std::string_view algo, const OpSpec& s);
Figures figuresFor(std::string_view algo, const OpSpec& s);

// The rows, one per algorithm file.
Schedule buildRing(const OpSpec& s);
Figures ringFigures(const OpSpec& s);
Schedule buildTree(const OpSpec& s);
Figures treeFigures(const OpSpec& s);
Schedule buildRecursiveDoubling(const OpSpec& s);
Figures recursiveDoublingFigures(const OpSpec& s);
Schedule buildHalvingDoubling(const OpSpec& s);
Figures halvingDoublingFigures(const OpSpec& s);
Schedule buildDirect(const OpSpec& s);
Figures directFigures(const OpSpec& s);
Schedule buildPairwise(const OpSpec& s);
Figures pairwiseFigures(const OpSpec& s);
Schedule buildBruck(const OpSpec& s);
Figures bruckFigures(const OpSpec& s);

}  // namespace collviz::algo
