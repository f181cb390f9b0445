#include "engine/algo/reference.h"

namespace collviz::algo {
namespace {

std::string where(const Round& r, int index) {
  return "round " + std::to_string(index + 1) + " (" + r.name() + ")";
}

void applyCopies(State& st, const std::vector<LocalCopy>& copies) {
  for (const LocalCopy& c : copies) {
    auto& slots = st[std::size_t(c.rank)];
    const auto before = slots;
    for (std::size_t i = 0; i < c.src.size(); ++i)
      slots[std::size_t(c.dst[i])] = before[std::size_t(c.src[i])];
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
      if (b >= 0) ref.start[std::size_t(r)][std::size_t(k)] = {1u << r, b, false};
    }
  State st = ref.start;
  for (int i = 0; i < int(s.rounds.size()); ++i) {
    const Round& round = s.rounds[std::size_t(i)];
    applyCopies(st, round.before);
    const State sent = st;  // every message carries what its sender held before the round
    for (const Move& m : round.moves) {
      for (std::size_t j = 0; j < m.src.size(); ++j) {
        const SlotState& from = sent[std::size_t(m.from)][std::size_t(m.src[j])];
        SlotState& to = st[std::size_t(m.to)][std::size_t(m.dst[j])];
        if (from.empty() && ref.error.empty())
          ref.error = where(round, i) + ": rank " + std::to_string(m.from) + " sends empty slot " +
                      std::to_string(m.src[j]);
        if (!m.reduce) {
          to = from;
          continue;
        }
        if ((to.empty() || to.block != from.block || (to.ranks & from.ranks)) &&
            ref.error.empty())
          ref.error = where(round, i) + ": rank " + std::to_string(m.to) + " combines slot " +
                      std::to_string(m.dst[j]) + " with data that does not belong there";
        to.ranks |= from.ranks;
      }
    }
    applyCopies(st, round.after);
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
  if (!ref.error.empty()) return Error{s.algo + " " + std::string(name(s.spec.op)) + ": " + ref.error};
  for (int r = 0; r < s.spec.ranks; ++r) {
    const auto want = expectedOutputRefs(s.spec, r);
    const auto got = outputState(s, ref, r);
    if (got.size() != want.size())
      return Error{s.algo + ": rank " + std::to_string(r) + " ends with " +
                   std::to_string(got.size()) + " output blocks, the op gives " +
                   std::to_string(want.size())};
    for (std::size_t j = 0; j < got.size(); ++j)
      if (got[j].ranks != want[j].ranks || got[j].block != want[j].block)
        return Error{s.algo + ": rank " + std::to_string(r) + " output block " +
                     std::to_string(j) + " does not end with what " +
                     std::string(name(s.spec.op)) + " gives there"};
  }
  return {};
}

BlockRef toBlockRef(const SlotState& st) {
  return BlockRef{st.ranks, st.block, st.averaged};
}

}  // namespace collviz::algo
