// Recursive doubling all_gather: in round k partners at distance 2^k swap
// every block their group holds, so the blocks held double each round
// (log2 N rounds). N not a power of two: a fold round first (odd ranks
// below 2(N-p) send their block to the even rank before them) and an unfold
// round last (those even ranks send the whole result back); see fold.h.
#include "engine/algo/algorithms.h"
#include "engine/algo/fold.h"

namespace collviz::algo {

Schedule buildRecursiveDoubling(const OpSpec& sp) {
  const int n = sp.ranks;
  const Fold f(n);
  Schedule s = emptySchedule(sp, "recursive_doubling", n);
  initFromInput(s, true);
  if (f.rem > 0) {
    Round& round = addRound(s, "fold", 1, 1);
    for (int r = 1; r < 2 * f.rem; r += 2) addMove(round, r, r - 1, {r}, false);
  }
  const int rounds = ceilLog2(f.p);
  for (int k = 0; k < rounds; ++k) {
    Round& round = addRound(s, "doubling", k + 1, rounds);
    const int size = 1 << k;
    for (int v = 0; v < f.p; ++v)
      addMove(round, f.real(v), f.real(v ^ size), f.blocks(v & ~(size - 1), size), false);
  }
  if (f.rem > 0) {
    Round& round = addRound(s, "unfold", 1, 1);
    for (int r = 0; r < 2 * f.rem; r += 2) addMove(round, r, r + 1, slotRange(0, n), false);
  }
  outputFrom(s);
  return s;
}

Figures recursiveDoublingFigures(const OpSpec& sp) {
  const int n = sp.ranks;
  const Fold f(n);
  const double b = double(sp.elems) * double(dtypeSize(sp.dtype));
  Figures out;
  out.rounds = ceilLog2(f.p) + (f.rem > 0 ? 2 : 0);
  out.bytes = (n - 1) * b;
  out.exact = f.rem == 0;
  out.text = say("log2 N rounds; (N-1)/N·S sent per rank (S = N blocks); cost log2 N·α + (N-1)/N·Sβ. N not a power of two: p = 2^floor(log2 N), 2 more rounds (fold, unfold), the 2(N-p) folded ranks move up to S more");
  return out;
}

}  // namespace collviz::algo
