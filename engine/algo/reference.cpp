#include "engine/algo/reference.h"

namespace collviz::algo {
namespace {

Text where(const Round& r, int index) {
  return say("round {0} ({1})", index + 1, r.name());
}

// Combine `from` into `to` (a reduce); the error names what does not fit.
void combineInto(SlotState& to, const SlotState& from, const Text& where, int rank,
                 int slot, Said& error) {
  if ((to.empty() || from.empty() || to.block != from.block || to.part != from.part ||
       (to.ranks & from.ranks)) && error.empty())
    error = say("{0}: rank {1} combines slot {2} with data that does not belong there", where, rank, slot);
  to.ranks |= from.ranks;
}

void applyCopies(State& st, const std::vector<LocalCopy>& copies, const Text& where,
                 Said& error) {
  for (const LocalCopy& c : copies) {
    auto& slots = st[std::size_t(c.rank)];
    const auto before = slots;
    for (std::size_t i = 0; i < c.src.size(); ++i) {
      SlotState& to = slots[std::size_t(c.dst[i])];
      const SlotState& from = before[std::size_t(c.src[i])];
      if (c.reduce) combineInto(to, from, where, c.rank, c.dst[i], error);
      else to = from;
    }
  }
}

}  // namespace

Reference simulate(const Schedule& s) {
  Reference ref;
  const int n = s.spec.ranks;
  ref.start.assign(std::size_t(n), std::vector<SlotState>(std::size_t(s.slots)));
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < s.slots; ++k) {
      const int b = s.init[std::size_t(r)][std::size_t(k)];
      if (b >= 0) ref.start[std::size_t(r)][std::size_t(k)] = {1u << r, b / s.parts, b % s.parts, false};
    }
  State st = ref.start;
  for (int i = 0; i < int(s.rounds.size()); ++i) {
    const Round& round = s.rounds[std::size_t(i)];
    applyCopies(st, round.before, where(round, i), ref.error);
    const State sent = st;  // every message carries what its sender held before the round
    for (const Move& m : round.moves) {
      for (std::size_t j = 0; j < m.src.size(); ++j) {
        const SlotState& from = sent[std::size_t(m.from)][std::size_t(m.src[j])];
        SlotState& to = st[std::size_t(m.to)][std::size_t(m.dst[j])];
        if (from.empty() && ref.error.empty())
          ref.error = say("{0}: rank {1} sends empty slot {2}", where(round, i), m.from, m.src[j]);
        if (!m.reduce) {
          to = from;
          continue;
        }
        combineInto(to, from, where(round, i), m.to, m.dst[j], ref.error);
      }
    }
    applyCopies(st, round.after, where(round, i), ref.error);
    ref.rounds.push_back(st);
  }
  if (s.average)
    for (int r = 0; r < n; ++r)
      for (int k : s.output[std::size_t(r)]) st[std::size_t(r)][std::size_t(k)].averaged = true;
  if (!ref.rounds.empty()) ref.rounds.back() = st;
  ref.end = st;
  return ref;
}

std::vector<SlotState> outputState(const Schedule& s, const Reference& ref, int rank) {
  std::vector<SlotState> out;
  for (int k : s.output[std::size_t(rank)]) out.push_back(ref.end[std::size_t(rank)][std::size_t(k)]);
  return out;
}

Status matchesOracle(const Schedule& s, const Reference& ref) {
  if (!ref.error.empty()) return Error{say("{0} {1}: {2}", s.algo, name(s.spec.op), ref.error)};
  for (int r = 0; r < s.spec.ranks; ++r) {
    const auto want = expectedOutputRefs(s.spec, r);
    const auto got = outputState(s, ref, r);
    const std::size_t parts = std::size_t(s.parts);
    if (got.size() != want.size() * parts)
      return Error{say("{0}: rank {1} ends with {2} output pieces, the op gives {3}", s.algo, r, got.size(),
                       want.size() * parts)};
    for (std::size_t j = 0; j < got.size(); ++j) {
      const BlockRef& w = want[j / parts];
      if (got[j].ranks != w.ranks || got[j].block != w.block || got[j].part != int(j % parts))
        return Error{parts > 1 ? say("{0}: rank {1} output chunk {2} does not end with what {3} gives there", s.algo, r,
                                     j, name(s.spec.op))
                               : say("{0}: rank {1} output block {2} does not end with what {3} gives there", s.algo, r,
                                     j, name(s.spec.op))};
    }
  }
  return {};
}

BlockRef toBlockRef(const SlotState& st) {
  return BlockRef{st.ranks, st.block, st.averaged};
}

}  // namespace collviz::algo
