#include "engine/algo/round_check.h"

#include <bit>
#include <cmath>
#include <sstream>

namespace collviz::algo {
namespace {

// The spec whose arithmetic a slot follows: before the final division an avg
// partial is a plain sum.
OpSpec valueSpec(const OpSpec& s, const SlotState& st) {
  OpSpec v = s;
  if (s.redop == RedOp::avg && !st.averaged) v.redop = RedOp::sum;
  return v;
}

bool sameValue(const OpSpec& vs, bool averaged, double got, double want) {
  if (got == want) return true;
  if (!averaged || std::isnan(got) || std::isnan(want)) return false;
  const double rel = vs.dtype == DType::f16 ? 2e-3 : vs.dtype == DType::bf16 ? 1.6e-2
                   : vs.dtype == DType::f32 ? 1e-6 : 1e-14;
  return std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
}

struct SlotCheck {
  BlockLabel label;
  int64_t mismatches = 0, undecodable = 0;
  Said first;
};

SlotCheck checkSlot(const OpSpec& s, int parts, const Pattern& p, const BufferView& buf, int rank,
                    int slot, const SlotState& st, ExpectedSlots& expected) {
  SlotCheck c;
  const int64_t e = s.elems / parts;  // a slot: one of a block's `parts` pieces
  const int64_t first = int64_t(st.part) * e;  // the piece's first element in its block
  const std::size_t base = std::size_t(slot) * std::size_t(e);
  const bool decodes = p.kind != Pattern::Kind::plain;
  auto problem = [&](int64_t i, const Text& what) {
    if (!c.first.empty()) return;
    c.first = say("rank {0} slot {1} element {2}: {3}", rank, slot, i, what);
  };
  c.label.decoded = decodes;
  if (st.empty()) {  // nothing has arrived: the slot must still be zero
    c.label.kind = BlockLabel::Kind::unknown;
    c.label.empty = true;
    for (int64_t i = 0; i < e; ++i)
      if (buf.value(base + std::size_t(i), s.dtype) != 0) {
        ++c.label.bad;
        ++c.mismatches;
        problem(i, say("holds data where nothing should have arrived yet"));
      }
    return c;
  }
  const OpSpec vs = valueSpec(s, st);
  const std::vector<double>& want = expected.get(st);
  const bool combined = std::popcount(st.ranks) > 1 || st.averaged;
  const bool minmax = combined && (s.redop == RedOp::min || s.redop == RedOp::max);
  uint32_t seen = 0;
  for (int64_t i = 0; i < e; ++i) {
    const double got = buf.value(base + std::size_t(i), s.dtype);
    bool bad = false;
    const double w = want[std::size_t(first + i)];
    if (!sameValue(vs, st.averaged, got, w)) {
      bad = true;
      ++c.mismatches;
      std::ostringstream g, v;  // as a stream writes them ("0.5", "1e+06")
      g << got;
      v << w;
      problem(i, say("got {0}, want {1}", g.str(), v.str()));
    }
    if (decodes) {
      const int64_t code = int64_t(st.block) * s.elems + first + i;
      const DecodedElement d = decodeValue(vs, p, got, code, st.averaged);
      const int64_t want_code = p.kind == Pattern::Kind::prod_bits ? d.code
                                : p.full ? code : code % p.modulus;
      const bool ranks_ok = minmax ? (std::popcount(d.ranks) == 1 && (d.ranks & st.ranks))
                                   : d.ranks == st.ranks;
      if (!d.ok || !ranks_ok || d.code != want_code) {
        if (!bad)
          problem(i, say("value {0} does not decode to the contributors the reference predicts", std::to_string(got)));
        ++c.undecodable;
        bad = true;
      } else {
        seen |= d.ranks;
      }
    }
    if (bad) ++c.label.bad;
  }
  const BlockRef ref = toBlockRef(st);
  const uint32_t all = s.ranks >= 32 ? ~0u : (1u << s.ranks) - 1u;
  if (combined) {
    c.label.kind = BlockLabel::Kind::reduced;
    c.label.shard = blockShard(s, BlockRef{st.ranks, st.block, true});
    c.label.partial = st.ranks != all;
  } else {
    c.label.kind = BlockLabel::Kind::source;
    c.label.letter = blockLetter(s.op, ref);
    c.label.shard = blockShard(s, ref);
  }
  // Labels say what the bytes say; min/max name the set the winners came from.
  c.label.contributors = decodes && !minmax ? seen : st.ranks;
  if (c.label.bad == e) c.label.kind = BlockLabel::Kind::unknown;
  return c;
}

}  // namespace

const std::vector<double>& ExpectedSlots::get(const SlotState& st) {
  const auto key = std::make_tuple(st.ranks, st.block, st.averaged);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    // Ring at N = 16 sees N x N partial sums: held all, they took gigabytes.
    // A block's expectation is used at once (checkSlot): the cache may drop
    // the others and compute them again.
    const std::size_t bytes = std::size_t(s_.elems) * sizeof(double);
    if (cached_bytes_ + bytes > std::size_t(kExpectedCacheBytes)) {
      cache_.clear();
      cached_bytes_ = 0;
    }
    it = cache_.emplace(key, expectedBlock(valueSpec(s_, st), toBlockRef(st), inputs_)).first;
    cached_bytes_ += bytes;
  }
  return it->second;
}

void checkRound(StepResult& round, const Pattern& p, const State& state,
                ExpectedSlots& expected, int parts) {
  const OpSpec& s = round.spec;
  Verification v;
  v.mode = p.describe();
  for (RankResult& rr : round.ranks) {
    BufferView& buf = rr.output;
    buf.labels.clear();
    const auto& slots = state[std::size_t(rr.rank)];
    for (int k = 0; k < int(slots.size()); ++k) {
      SlotCheck c = checkSlot(s, parts, p, buf, rr.rank, k, slots[std::size_t(k)], expected);
      v.mismatches += c.mismatches;
      v.undecodable += c.undecodable;
      if (v.first_problem.empty()) v.first_problem = c.first;
      buf.labels.push_back(c.label);
    }
  }
  v.verified = v.mismatches == 0 && v.undecodable == 0;
  round.verify = v;
}

}  // namespace collviz::algo
