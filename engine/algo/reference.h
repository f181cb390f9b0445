// The symbolic reference of a schedule: what every slot of every rank's
// working buffer holds after every round, as a set of contributing ranks and
// the block they contributed, worked out on symbols (no bytes). The engine
// decodes the real bytes of each round and compares them with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/algo/schedule.h"
#include "engine/verify/oracle.h"

namespace collviz::algo {

struct SlotState {
  uint32_t ranks = 0;     // contributors (bitmask); 0: the slot is empty (zero)
  int block = -1;         // the input block index they contributed
  int part = 0;           // which of the block's Schedule::parts pieces
  bool averaged = false;  // redop avg: divided by N (after the last round)
  bool empty() const { return ranks == 0; }
  bool operator==(const SlotState&) const = default;
};
using State = std::vector<std::vector<SlotState>>;  // [rank][slot]

struct Reference {
  State start;                // after init
  std::vector<State> rounds;  // after each round
  State end;                  // after the last round and the final division
  Said error;                 // non-empty: the schedule breaks a rule (names the round)
};

Reference simulate(const Schedule& s);

// The output blocks the end state gives rank `rank` (per Schedule::output).
std::vector<SlotState> outputState(const Schedule& s, const Reference& ref, int rank);
// Does the end state hold what the op must produce (the oracle's relation)?
// The error names the first rank and block that differ.
Status matchesOracle(const Schedule& s, const Reference& ref);

// The oracle's reference for a slot state (for labels and values).
BlockRef toBlockRef(const SlotState& st);

}  // namespace collviz::algo
