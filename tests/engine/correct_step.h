// A step whose outputs are what a correct backend returns, from the oracle
// element by element: the reference the verification tests hold the fast
// paths against.
#pragma once

#include "engine/dtype.h"
#include "engine/verify/oracle.h"
#include "engine/snapshot.h"
#include "engine/verify/verify.h"

namespace collviz::test {

inline StepResult correctStep(const OpSpec& s, const Pattern& p) {
  StepResult step;
  step.spec = s;
  step.ranks.resize(s.ranks);
  for (int r = 0; r < s.ranks; ++r) step.ranks[r].rank = r;
  fillInputs(step, p);
  const auto inputs = inputsAsDoubles(step);
  for (int r = 0; r < s.ranks; ++r) {
    BufferView& out = step.ranks[r].output;
    const auto want = expectedOutput(s, r, inputs);
    out.present = outputBlocks(s.op, s.ranks, r, s.root) > 0;
    out.bytes.assign(want.size() * dtypeSize(s.dtype), std::byte{0});
    for (std::size_t i = 0; i < want.size(); ++i) writeElement(out.bytes.data(), s.dtype, i, want[i]);
  }
  return step;
}

}  // namespace collviz::test
