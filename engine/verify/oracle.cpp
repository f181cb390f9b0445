#include "engine/verify/oracle.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/collectives.h"
#include "engine/dtype.h"

namespace collviz {

std::vector<BlockRef> inputRefs(const OpSpec& s, int rank) {
  const int n = inputBlocks(s.op, s.ranks, rank, s.root);
  std::vector<BlockRef> out(n);
  for (int b = 0; b < n; ++b) out[b] = BlockRef{1u << rank, b, false};
  return out;
}

std::vector<BlockRef> expectedOutputRefs(const OpSpec& s, int rank) {
  const int n = outputBlocks(s.op, s.ranks, rank, s.root);
  const uint32_t all = s.ranks >= 32 ? ~0u : ((1u << s.ranks) - 1u);
  const SourceRelation& rel = collective(s.op).source;
  std::vector<BlockRef> out(n);
  for (int j = 0; j < n; ++j) {
    BlockRef& ref = out[j];
    switch (rel.ranks) {
      case FromRanks::root: ref.ranks = 1u << s.root; break;
      case FromRanks::rank_j: ref.ranks = 1u << j; break;
      case FromRanks::all: ref.ranks = all; break;
    }
    switch (rel.block) {
      case FromBlock::zero: ref.block = 0; break;
      case FromBlock::j: ref.block = j; break;
      case FromBlock::r: ref.block = rank; break;
    }
    ref.reduced = rel.reduced;
  }
  return out;
}

int blockLetter(Op op, const BlockRef& ref) {
  if (ref.reduced) return -1;
  if (collective(op).letters == Lettering::root_piece) return ref.block;
  for (int r = 0; r < 32; ++r)
    if (ref.ranks == (1u << r)) return r;
  return -1;
}

int blockShard(const OpSpec& s, const BlockRef& ref) {
  const Collective& c = collective(s.op);
  if (c.letters == Lettering::root_piece) return -1;
  // Shards are named when the input holds several blocks per rank.
  return blockCount(c.input.other, s.ranks) > 1 ? ref.block : -1;
}

double roundToDType(DType t, double v) { return fromBits(t, toBits(t, v)); }

double combine(RedOp r, DType t, double a, double b) {
  double v = 0;
  switch (r) {
    case RedOp::sum:
    case RedOp::avg: v = a + b; break;
    case RedOp::prod: v = a * b; break;
    case RedOp::min: v = std::min(a, b); break;
    case RedOp::max: v = std::max(a, b); break;
  }
  return roundToDType(t, v);
}

std::vector<double> expectedBlock(const OpSpec& s, const BlockRef& ref,
                                  const std::vector<std::vector<double>>& inputs) {
  const std::size_t e = std::size_t(s.elems);
  std::vector<double> out(e, 0.0);
  bool first = true;
  for (int r = 0; r < s.ranks; ++r) {
    if (!(ref.ranks & (1u << r))) continue;
    const double* x = inputs[r].data() + std::size_t(ref.block) * e;
    if (first) std::copy(x, x + e, out.begin());
    else
      for (std::size_t i = 0; i < e; ++i) out[i] = combine(s.redop, s.dtype, out[i], x[i]);
    first = false;
  }
  if (ref.reduced && s.redop == RedOp::avg)
    for (auto& v : out) v = roundToDType(s.dtype, v / s.ranks);
  return out;
}

std::vector<double> expectedOutput(const OpSpec& s, int rank,
                                   const std::vector<std::vector<double>>& inputs) {
  const auto refs = expectedOutputRefs(s, rank);
  const std::size_t e = std::size_t(s.elems);
  std::vector<double> out;
  out.reserve(refs.size() * e);
  for (const BlockRef& ref : refs) {
    const auto b = expectedBlock(s, ref, inputs);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

}  // namespace collviz
