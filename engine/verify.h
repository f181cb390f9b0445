// Decode every block of a step's buffers into labels and check the outputs
// against the oracle. Works on the bytes a backend returned.
#pragma once

#include <vector>

#include "engine/provenance.h"
#include "engine/snapshot.h"

namespace collviz {

// Fill the input buffers of `step` (spec set, one RankResult per rank) with
// the pattern. Ranks without an input buffer get present = false.
void fillInputs(StepResult& step, const Pattern& p);

// What each block of a step should hold, in terms of the pattern's inputs.
// For one op that is the oracle's relation; for the all-gather step of the
// decomposition, its inputs are already the reduce-scatter's Σᵢ blocks.
struct Provenance {
  OpSpec pattern_spec;  // the spec the pattern values were made for
  std::vector<std::vector<BlockRef>> in_refs, out_refs;  // per rank
};
Provenance opProvenance(const OpSpec& s);
// Step 2 of all_reduce_decomposed: all_gather of reduce_scatter(rs) outputs.
Provenance allGatherAfterReduceScatter(const OpSpec& rs);

// Label every input and output block and fill step.verify (values are
// checked with the oracle of step.spec, provenance with `prov`).
void labelAndVerify(StepResult& step, const Pattern& p, const Provenance& prov);

// Every rank's input as doubles (empty where absent), for the oracle.
std::vector<std::vector<double>> inputsAsDoubles(const StepResult& step);

}  // namespace collviz
