// Decode the bytes of one round's working buffers and hold them against the
// symbolic reference: every element's contributors (and block, where the
// pattern carries it) must be what the reference says the slot holds, and
// its value what the oracle computes for that set. Fills the labels (one per
// slot; a partial reduction is labelled with its contributors, "A₁+B₁").
#pragma once

#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/algo/reference.h"
#include "engine/verify/provenance.h"
#include "engine/snapshot.h"

namespace collviz::algo {

// The round check's cache of expected blocks holds at most this many bytes
// (engine/group/memory_budget.cpp counts it in a run's memory).
inline constexpr double kExpectedCacheBytes = 256.0 * 1024 * 1024;

// Expected values of a slot state, computed once per distinct state.
class ExpectedSlots {
 public:
  ExpectedSlots(const OpSpec& s, std::vector<std::vector<double>> inputs)
      : s_(s), inputs_(std::move(inputs)) {}
  const std::vector<double>& get(const SlotState& st);

 private:
  OpSpec s_;
  std::vector<std::vector<double>> inputs_;
  std::map<std::tuple<uint32_t, int, bool>, std::vector<double>> cache_;
  std::size_t cached_bytes_ = 0;  // at most kExpectedCacheBytes: cleared when full
};

// `round.ranks[r].output` holds rank r's working buffer; labels and
// round.verify are filled. `state`: the reference after that round;
// `parts`: slots per block (Schedule::parts).
void checkRound(StepResult& round, const Pattern& p, const State& state,
                ExpectedSlots& expected, int parts = 1);

}  // namespace collviz::algo
