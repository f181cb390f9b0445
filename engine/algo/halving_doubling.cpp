// Rabenseifner's recursive halving-doubling. Reduce-scatter by recursive
// halving: in round k partners at distance p/2^(k+1) split the blocks their
// group holds in two halves, each sends the other's half and combines the
// half it keeps; after log2 p rounds virtual rank v holds its own blocks
// reduced. all_reduce then gathers by recursive doubling (the reverse).
// N not a power of two (fold.h): a fold round first (odd ranks below
// 2(N-p) send everything to the even rank before them, which combines it)
// and an unfold round last (the result, or for reduce_scatter the partner's
// block, goes back).
#include "engine/algo/algorithms.h"
#include "engine/algo/fold.h"

namespace collviz::algo {
namespace {

void foldRound(Schedule& s, const Fold& f) {
  if (f.rem == 0) return;
  Round& round = addRound(s, "fold", 1, 1);
  for (int r = 1; r < 2 * f.rem; r += 2) addMove(round, r, r - 1, slotRange(0, f.n), true);
}

void halvingRounds(Schedule& s, const Fold& f) {
  const int rounds = ceilLog2(f.p);
  for (int k = 0; k < rounds; ++k) {
    Round& round = addRound(s, "reduce-scatter", k + 1, rounds);
    const int d = f.p >> (k + 1);
    for (int v = 0; v < f.p; ++v) {
      const int partner = v ^ d;
      const int other = partner & ~(d - 1);  // the half the partner keeps
      addMove(round, f.real(v), f.real(partner), f.blocks(other, d), true);
    }
  }
}

void doublingRounds(Schedule& s, const Fold& f) {
  const int rounds = ceilLog2(f.p);
  for (int k = 0; k < rounds; ++k) {
    Round& round = addRound(s, "all-gather", k + 1, rounds);
    const int d = 1 << k;
    for (int v = 0; v < f.p; ++v)
      addMove(round, f.real(v), f.real(v ^ d), f.blocks(v & ~(d - 1), d), false);
  }
}

}  // namespace

Schedule buildHalvingDoubling(const OpSpec& sp) {
  const int n = sp.ranks;
  const Fold f(n);
  Schedule s = emptySchedule(sp, "halving_doubling", n);
  initFromInput(s);
  foldRound(s, f);
  halvingRounds(s, f);
  if (sp.op == Op::all_reduce) {
    doublingRounds(s, f);
    if (f.rem > 0) {
      Round& round = addRound(s, "unfold", 1, 1);
      for (int r = 0; r < 2 * f.rem; r += 2) addMove(round, r, r + 1, slotRange(0, n), false);
    }
    outputFrom(s);
  } else {  // reduce_scatter
    if (f.rem > 0) {
      Round& round = addRound(s, "unfold", 1, 1);
      for (int r = 0; r < 2 * f.rem; r += 2) addMove(round, r, r + 1, {r + 1}, false);
    }
    for (int r = 0; r < n; ++r) s.output[std::size_t(r)] = {r};
  }
  return s;
}

Figures halvingDoublingFigures(const OpSpec& sp) {
  const int n = sp.ranks;
  const Fold f(n);
  const int l = ceilLog2(f.p), extra = f.rem > 0 ? 2 : 0;
  const double b = double(sp.elems) * double(dtypeSize(sp.dtype));
  Figures out;
  out.exact = f.rem == 0;
  if (sp.op == Op::all_reduce) {
    out.rounds = 2 * l + extra;
    out.bytes = 2.0 * (n - 1) * b;
    out.text = say("2·log2 N rounds; 2(N-1)/N·S sent per rank (S = N blocks); cost 2·log2 N·α + 2(N-1)/N·Sβ. N not a power of two: p = 2^floor(log2 N), 2 more rounds (fold, unfold), the 2(N-p) folded ranks move up to S more");
  } else {
    out.rounds = l + extra;
    out.bytes = (n - 1) * b;
    out.text = say("log2 N rounds; (N-1)/N·S sent per rank (S = N blocks); cost log2 N·α + (N-1)/N·Sβ. N not a power of two: p = 2^floor(log2 N), 2 more rounds (fold, unfold), the 2(N-p) folded ranks move up to S more");
  }
  return out;
}

}  // namespace collviz::algo
