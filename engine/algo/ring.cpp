// Ring: rank r sends to r+1 and receives from r-1, one block per round.
// all_reduce is a reduce-scatter phase (N-1 rounds; in round k rank r sends
// its partial of block r-k-1 and reduces the partial of block r-k-2 it
// receives, so it ends owning block r, as reduce_scatter places it) and an
// all-gather phase (N-1 rounds passing the finished blocks on). Broadcast is
// the pipelined chain root -> root+1 -> ...: block j leaves the root in
// round j and moves one hop per round.
#include "engine/algo/algorithms.h"

namespace collviz::algo {
namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

void reduceScatterPhase(Schedule& s) {
  const int n = s.spec.ranks;
  for (int k = 0; k < n - 1; ++k) {
    Round& round = addRound(s, "reduce-scatter", k + 1, n - 1);
    for (int r = 0; r < n; ++r) addMove(round, r, mod(r + 1, n), {mod(r - k - 1, n)}, true);
  }
}

void allGatherPhase(Schedule& s) {
  const int n = s.spec.ranks;
  for (int k = 0; k < n - 1; ++k) {
    Round& round = addRound(s, "all-gather", k + 1, n - 1);
    for (int r = 0; r < n; ++r) addMove(round, r, mod(r + 1, n), {mod(r - k, n)}, false);
  }
}

void chainBroadcast(Schedule& s) {
  const int n = s.spec.ranks, root = s.spec.root;
  const int rounds = n > 1 ? 2 * n - 2 : 0;
  for (int t = 0; t < rounds; ++t) {
    Round& round = addRound(s, "pipeline", t + 1, rounds);
    for (int p = 0; p + 1 < n; ++p) {
      const int block = t - p;
      if (block >= 0 && block < n) addMove(round, mod(root + p, n), mod(root + p + 1, n), {block}, false);
    }
  }
}

}  // namespace

Schedule buildRing(const OpSpec& sp) {
  const int n = sp.ranks;
  Schedule s = emptySchedule(sp, "ring", n);
  if (sp.op == Op::all_gather) {
    initFromInput(s, true);
    allGatherPhase(s);
    outputFrom(s);
  } else if (sp.op == Op::broadcast) {
    initFromInput(s);
    chainBroadcast(s);
    outputFrom(s);
  } else {  // all_reduce, reduce_scatter
    initFromInput(s);
    reduceScatterPhase(s);
    if (sp.op == Op::all_reduce) {
      allGatherPhase(s);
      outputFrom(s);
    } else {
      for (int r = 0; r < n; ++r) s.output[std::size_t(r)] = {r};
    }
  }
  return s;
}

Figures ringFigures(const OpSpec& sp) {
  const int n = sp.ranks;
  const double b = double(sp.elems) * double(dtypeSize(sp.dtype));
  Figures f;
  if (sp.op == Op::all_reduce) {
    f.text = say("2(N-1) rounds; 2(N-1)/N·S sent per rank (S = N blocks); cost 2(N-1)α + 2(N-1)/N·Sβ");
    f.rounds = 2 * (n - 1);
    f.bytes = 2.0 * (n - 1) * b;
  } else if (sp.op == Op::broadcast) {
    f.text = say("2N-2 rounds (N blocks pipelined over N-1 hops); S sent by every rank but the last; cost (2N-2)(α + S/N·β)");
    f.rounds = n > 1 ? 2 * n - 2 : 0;
    f.bytes = n > 1 ? n * b : 0;
  } else {  // reduce_scatter, all_gather
    f.text = say("N-1 rounds; (N-1)/N·S sent per rank (S = N blocks); cost (N-1)α + (N-1)/N·Sβ");
    f.rounds = n - 1;
    f.bytes = (n - 1) * b;
  }
  return f;
}

}  // namespace collviz::algo
