// Folding N ranks onto p = 2^floor(log2 N) virtual ranks, the standard
// extra step of recursive halving/doubling when N is not a power of two:
// with rem = N - p, the odd ranks below 2·rem hand their data to the even
// rank before them and sit out; virtual rank v is real rank 2v (v < rem) or
// v + rem. Virtual rank v owns blocks [first(v), first(v+1)): two blocks
// (2v, 2v+1) for v < rem, else block v + rem, so every virtual group owns
// one contiguous range of blocks.
#pragma once

#include <vector>

#include "engine/algo/schedule.h"

namespace collviz::algo {

struct Fold {
  int n = 1, p = 1, rem = 0;
  explicit Fold(int ranks) : n(ranks), p(floorPow2(ranks)), rem(ranks - floorPow2(ranks)) {}
  // Virtual rank of real rank r; -1 for a rank that sits out.
  int virt(int r) const {
    if (r < 2 * rem) return r % 2 == 0 ? r / 2 : -1;
    return r - rem;
  }
  int real(int v) const { return v < rem ? 2 * v : v + rem; }
  int first(int v) const { return v < rem ? 2 * v : v + rem; }  // first(p) = n
  // The blocks virtual ranks [g, g + size) own.
  std::vector<int> blocks(int g, int size) const {
    return slotRange(first(g), first(g + size) - first(g));
  }
};

}  // namespace collviz::algo
