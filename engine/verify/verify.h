// Decode every block of a step's buffers into labels and check the outputs
// against the oracle. Works on the bytes a backend returned.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/verify/provenance.h"
#include "engine/snapshot.h"

namespace collviz {

// Write rank `rank`'s input blocks of the pattern at `data` (inputBytes(s,
// rank) bytes): the closed form in chunks where the pattern has one, else
// element by element.
void writeInputs(const OpSpec& s, const Pattern& p, int rank, std::byte* data);

// Fill the input buffers of `step` (spec set, one RankResult per rank) with
// the pattern. Ranks without an input buffer get present = false.
void fillInputs(StepResult& step, const Pattern& p);

// A buffer's bytes wherever they are: the workers' shared memory or a
// BufferView's own bytes.
struct ByteSpan {
  const std::byte* data = nullptr;
  std::size_t size = 0;
};
// Every rank's input and output bytes of one step.
struct StepBytes {
  std::vector<ByteSpan> in, out;
};
// The views' own bytes (each must hold every value).
StepBytes bytesOf(const StepResult& step);

// Progress and cancel for the checks of big buffers.
struct CheckControl {
  std::function<void(double)> progress;     // fraction of the bytes checked so far
  const std::atomic<bool>* stop = nullptr;  // set: stop at the next buffer
};

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
// checked with the oracle of step.spec, provenance with `prov`), reading the
// views' own bytes.
void labelAndVerify(StepResult& step, const Pattern& p, const Provenance& prov);
// Which blocks of each rank's buffers equal the pattern's closed form (the
// whole-block check passed), 1 per such block.
struct ClosedBlocks {
  std::vector<std::vector<uint8_t>> in, out;
};
// The same, reading `bytes` (the step's views get labels only); `closed`, if
// given, gets the blocks the whole-block check passed. False when `ctl.stop`
// ended it early (step.verify is then incomplete).
bool labelAndVerify(StepResult& step, const Pattern& p, const Provenance& prov,
                    const StepBytes& bytes, const CheckControl& ctl, ClosedBlocks* closed);

// Every rank's input as doubles (empty where absent), for the oracle.
std::vector<std::vector<double>> inputsAsDoubles(const StepResult& step);
std::vector<std::vector<double>> inputsAsDoubles(const OpSpec& s, const StepBytes& bytes);

}  // namespace collviz
