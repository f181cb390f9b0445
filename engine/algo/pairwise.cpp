// Pairwise all_to_all: N-1 rounds; in round s rank r sends the block meant
// for r+s and receives the block rank r-s meant for it. The working buffer
// holds the input blocks (slots 0..N-1) and the output blocks (slots
// N..2N-1); a first local step copies the rank's own block from slot r to
// slot N+r.
#include "engine/algo/algorithms.h"

namespace collviz::algo {

Schedule buildPairwise(const OpSpec& sp) {
  const int n = sp.ranks;
  Schedule s = emptySchedule(sp, "pairwise", 2 * n);
  initFromInput(s);
  Round& own = addLocalRound(s, "own block");
  for (int r = 0; r < n; ++r) own.before.push_back({r, {r}, {n + r}});
  for (int k = 1; k < n; ++k) {
    Round& round = addRound(s, "exchange", k, n - 1);
    for (int r = 0; r < n; ++r) {
      const int to = (r + k) % n;
      addMove(round, r, to, {to}, false, {n + r});
    }
  }
  outputFrom(s, n);
  return s;
}

Figures pairwiseFigures(const OpSpec& sp) {
  const int n = sp.ranks;
  const double b = double(sp.elems) * double(dtypeSize(sp.dtype));
  Figures f;
  f.text = say("N-1 rounds; (N-1)/N·S sent per rank (S = N blocks); cost (N-1)α + (N-1)/N·Sβ");
  f.rounds = n - 1;
  f.bytes = (n - 1) * b;
  return f;
}

}  // namespace collviz::algo
