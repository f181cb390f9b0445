// The oracle: pure functions that say what each op must produce.
// It checks results (like nccl-tests' expected buffers); it never stands in
// for a backend's result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec.h"

namespace collviz {

// BlockRef (where one block's data comes from) is in engine/spec.h.


// The symbolic data relation of an op: for output block `block` of `rank`,
// which input blocks feed it. Empty when the rank has no output buffer.
std::vector<BlockRef> expectedOutputRefs(const OpSpec& s, int rank);
// The identity of each input block (one rank bit, that block index).
std::vector<BlockRef> inputRefs(const OpSpec& s, int rank);

// How a block is named on screen: letter index (A = 0, ...) and shard
// subscript (-1 when the op's buffers are single blocks). For broadcast and
// scatter the letter is the piece of the root's tensor, elsewhere the rank.
int blockLetter(Op op, const BlockRef& ref);
int blockShard(const OpSpec& s, const BlockRef& ref);

// Numeric expectation: the output elements of `rank`, in double precision,
// computed from every rank's input (as doubles) by the rules above. The
// result is rounded to the dtype (so f16/bf16/int results match exactly when
// the pattern is exact).
std::vector<double> expectedOutput(const OpSpec& s, int rank,
                                   const std::vector<std::vector<double>>& inputs);

// Combine two values with a reduce op, in the dtype's arithmetic (avg is the
// sum here; the division by N happens once at the end, see finishAvg).
// One block's expected elements (what expectedOutput does per block).
std::vector<double> expectedBlock(const OpSpec& s, const BlockRef& ref,
                                  const std::vector<std::vector<double>>& inputs);

double combine(RedOp r, DType t, double a, double b);
double roundToDType(DType t, double v);

}  // namespace collviz
