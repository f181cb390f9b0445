// Direct (linear) scatter and gather: one round in which the root sends
// block j to rank j (scatter) or receives rank j's block (gather). Every
// rank keeps block j in slot j of its working buffer.
#include "engine/algo/algorithms.h"

namespace collviz::algo {

Schedule buildDirect(const OpSpec& sp) {
  const int n = sp.ranks, root = sp.root;
  Schedule s = emptySchedule(sp, "direct", n);
  if (sp.op == Op::scatter) {
    initFromInput(s);
    if (n > 1) {
      Round& round = addRound(s, "scatter", 1, 1);
      for (int r = 0; r < n; ++r)
        if (r != root) addMove(round, root, r, {r}, false);
    }
    for (int r = 0; r < n; ++r) s.output[std::size_t(r)] = {r};
  } else {  // gather
    initFromInput(s, true);
    if (n > 1) {
      Round& round = addRound(s, "gather", 1, 1);
      for (int r = 0; r < n; ++r)
        if (r != root) addMove(round, r, root, {r}, false);
    }
    outputFrom(s);
  }
  return s;
}

Figures directFigures(const OpSpec& sp) {
  const int n = sp.ranks;
  const double b = double(sp.elems) * double(dtypeSize(sp.dtype));
  Figures f;
  f.rounds = n > 1 ? 1 : 0;
  if (sp.op == Op::scatter) {
    f.text = say("1 round of N-1 messages; the root sends (N-1)/N·S (S = N blocks); cost (N-1)α + (N-1)/N·Sβ at the root");
    f.bytes = (n - 1) * b;
  } else {
    f.text = say("1 round of N-1 messages; every other rank sends S/N, the root receives (N-1)/N·S (S = N blocks); cost (N-1)α + (N-1)/N·Sβ at the root");
    f.bytes = n > 1 ? b : 0;
  }
  return f;
}

}  // namespace collviz::algo
