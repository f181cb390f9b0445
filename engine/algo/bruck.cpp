// Bruck all_to_all: a local step rotates the blocks up by r (slot i holds
// the block meant for rank r+i), then in round k send every slot whose index has bit k set
// to rank r+2^k, which stores it in the same slot; after ceil(log2 N) rounds
// slot i holds the block rank r-i meant for r, and a last local rotation
// step ("rotate back") puts rank j's block in slot j.
#include "engine/algo/algorithms.h"

namespace collviz::algo {

Schedule buildBruck(const OpSpec& sp) {
  const int n = sp.ranks, rounds = ceilLog2(n);
  Schedule s = emptySchedule(sp, "bruck", n);
  initFromInput(s);
  if (rounds == 0) {
    outputFrom(s);
    return s;
  }
  Round& rotate = addLocalRound(s, "rotate by r");
  for (int r = 0; r < n; ++r) {
    LocalCopy c{r, {}, {}};
    for (int i = 0; i < n; ++i) c.src.push_back((i + r) % n), c.dst.push_back(i);
    rotate.before.push_back(c);
  }
  for (int k = 0; k < rounds; ++k) {
    Round& round = addRound(s, "bruck", k + 1, rounds);
    const int bit = 1 << k;
    std::vector<int> slots;
    for (int i = 0; i < n; ++i)
      if (i & bit) slots.push_back(i);
    for (int r = 0; r < n; ++r) addMove(round, r, (r + bit) % n, slots, false);
  }
  Round& back = addLocalRound(s, "rotate back");
  for (int r = 0; r < n; ++r) {
    LocalCopy c{r, {}, {}};
    for (int j = 0; j < n; ++j) c.src.push_back((r - j + n) % n), c.dst.push_back(j);
    back.before.push_back(c);
  }
  outputFrom(s);
  return s;
}

Figures bruckFigures(const OpSpec& sp) {
  const int n = sp.ranks, l = ceilLog2(n);
  const double b = double(sp.elems) * double(dtypeSize(sp.dtype));
  int blocks = 0;  // blocks sent per rank: slots with bit k set, summed over rounds
  for (int k = 0; k < l; ++k)
    for (int i = 0; i < n; ++i) blocks += (i >> k) & 1;
  Figures f;
  f.text = say("ceil(log2 N) rounds; round k sends the blocks whose index has bit k set: (S/2)·log2 N per rank for N a power of two (S = N blocks); cost ceil(log2 N)α + (S/2)·ceil(log2 N)β");
  f.rounds = l;
  f.bytes = blocks * b;
  return f;
}

}  // namespace collviz::algo
