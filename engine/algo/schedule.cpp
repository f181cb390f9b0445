#include "engine/algo/schedule.h"

namespace collviz::algo {

std::string Round::name() const {
  return phase + " " + std::to_string(step) + "/" + std::to_string(steps);
}

namespace {

uint64_t countBytes(const Schedule& s, int rank, int round, bool sent) {
  uint64_t total = 0;
  for (int k = 0; k < int(s.rounds.size()); ++k) {
    if (round >= 0 && k != round) continue;
    for (const Move& m : s.rounds[std::size_t(k)].moves)
      if ((sent ? m.from : m.to) == rank) total += uint64_t(m.src.size()) * s.slotBytes();
  }
  return total;
}

}  // namespace

uint64_t Schedule::bytesSent(int rank, int round) const {
  return countBytes(*this, rank, round, true);
}
uint64_t Schedule::bytesReceived(int rank, int round) const {
  return countBytes(*this, rank, round, false);
}

Schedule emptySchedule(const OpSpec& s, const std::string& algo, int slots) {
  Schedule out;
  out.spec = s;
  out.algo = algo;
  out.slots = slots;
  out.init.assign(std::size_t(s.ranks), std::vector<int>(std::size_t(slots), -1));
  out.output.assign(std::size_t(s.ranks), {});
  out.average = reduces(s.op) && s.redop == RedOp::avg;
  return out;
}

void initFromInput(Schedule& s, bool at_rank) {
  const OpSpec& sp = s.spec;
  for (int r = 0; r < sp.ranks; ++r) {
    const int blocks = inputBlocks(sp.op, sp.ranks, r, sp.root);
    for (int b = 0; b < blocks; ++b) s.init[std::size_t(r)][std::size_t(at_rank ? r : b)] = b;
  }
}

void outputFrom(Schedule& s, int first) {
  const OpSpec& sp = s.spec;
  for (int r = 0; r < sp.ranks; ++r)
    s.output[std::size_t(r)] = slotRange(first, outputBlocks(sp.op, sp.ranks, r, sp.root));
}

std::vector<int> slotRange(int first, int count) {
  std::vector<int> out;
  for (int i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

Round& addRound(Schedule& s, const std::string& phase, int step, int steps) {
  Round r;
  r.phase = phase;
  r.step = step;
  r.steps = steps;
  s.rounds.push_back(std::move(r));
  return s.rounds.back();
}

void addMove(Round& round, int from, int to, std::vector<int> src, bool reduce,
             std::vector<int> dst) {
  Move m;
  m.from = from;
  m.to = to;
  m.dst = dst.empty() ? src : std::move(dst);
  m.src = std::move(src);
  m.reduce = reduce;
  round.moves.push_back(std::move(m));
}

int ceilLog2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

int floorPow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace collviz::algo
