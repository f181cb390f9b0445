// Binomial tree over ranks relative to the root (v = r - root mod N).
// Broadcast: in round k every v < 2^k that has the data sends all of it to
// v + 2^k. Reduce: in round k every v with v mod 2^(k+1) = 2^k sends its
// partial to v - 2^k, which combines it. all_reduce: reduce to rank 0, then
// broadcast from rank 0 (2·ceil(log2 N) rounds of the whole buffer).
#include "engine/algo/algorithms.h"

namespace collviz::algo {
namespace {

int realRank(int v, int root, int n) { return (v + root) % n; }

void broadcastPhase(Schedule& s, int root, const std::string& phase) {
  const int n = s.spec.ranks, rounds = ceilLog2(n);
  for (int k = 0; k < rounds; ++k) {
    Round& round = addRound(s, phase, k + 1, rounds);
    const int mask = 1 << k;
    for (int v = 0; v < mask && v + mask < n; ++v)
      addMove(round, realRank(v, root, n), realRank(v + mask, root, n), slotRange(0, s.slots),
              false);
  }
}

void reducePhase(Schedule& s, int root) {
  const int n = s.spec.ranks, rounds = ceilLog2(n);
  for (int k = 0; k < rounds; ++k) {
    Round& round = addRound(s, "reduce", k + 1, rounds);
    const int mask = 1 << k;
    for (int v = mask; v < n; v += 2 * mask)
      addMove(round, realRank(v, root, n), realRank(v - mask, root, n), slotRange(0, s.slots),
              true);
  }
}

}  // namespace

Schedule buildTree(const OpSpec& sp) {
  const int n = sp.ranks;
  if (sp.op == Op::reduce) {
    Schedule s = emptySchedule(sp, "tree", 1);
    initFromInput(s);
    reducePhase(s, sp.root);
    s.output[std::size_t(sp.root)] = {0};
    return s;
  }
  Schedule s = emptySchedule(sp, "tree", n);
  initFromInput(s);
  if (sp.op == Op::all_reduce) {
    reducePhase(s, 0);
    broadcastPhase(s, 0, "broadcast");
  } else {  // broadcast
    broadcastPhase(s, sp.root, "broadcast");
  }
  outputFrom(s);
  return s;
}

Figures treeFigures(const OpSpec& sp) {
  const int n = sp.ranks, l = ceilLog2(n);
  const double b = double(sp.elems) * double(dtypeSize(sp.dtype));
  Figures f;
  if (sp.op == Op::reduce) {
    f.text = say("ceil(log2 N) rounds; every rank but the root sends S once (S = 1 block), the root receives ceil(log2 N)·S; cost ceil(log2 N)(α + Sβ)");
    f.rounds = l;
    f.bytes = n > 1 ? b : 0;
  } else if (sp.op == Op::all_reduce) {
    f.text = say("2·ceil(log2 N) rounds of S (reduce to rank 0, then broadcast; S = N blocks); rank 0 sends ceil(log2 N)·S; cost 2·ceil(log2 N)(α + Sβ)");
    f.rounds = 2 * l;
    f.bytes = l * n * b;
  } else {  // broadcast
    f.text = say("ceil(log2 N) rounds of S (S = N blocks); the root sends ceil(log2 N)·S; cost ceil(log2 N)(α + Sβ)");
    f.rounds = l;
    f.bytes = l * n * b;
  }
  return f;
}

}  // namespace collviz::algo
