#include "engine/algo/schedule.h"

namespace collviz::algo {

namespace {

// A phase as a message: the phase itself is the id ("reduce-scatter"), which
// app/lang knows for every built-in phase; a name it lacks shows as it is.
Text phaseText(const Said& phase) {
  if (const Text* t = phase.current()) return *t;
  Text t;
  t.id = phase;
  return t;
}

}  // namespace

Said Round::name() const {
  if (local()) return phaseText(phase);
  return say("{0} {1}/{2}", phaseText(phase), step, steps);
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

int Schedule::messageRounds() const {
  int k = 0;
  for (const Round& r : rounds) k += !r.local();
  return k;
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
  r.phase = phaseText(phase);
  r.step = step;
  r.steps = steps;
  s.rounds.push_back(std::move(r));
  return s.rounds.back();
}

Round& addLocalRound(Schedule& s, const std::string& phase) {
  return addRound(s, phase, 1, 1);
}

namespace {

// The copies without their slot-onto-itself pairs; ranks left with none dropped.
std::vector<LocalCopy> realCopies(const std::vector<LocalCopy>& copies) {
  std::vector<LocalCopy> out;
  for (const LocalCopy& c : copies) {
    LocalCopy k = c;  // every field kept (a later one, such as a local reduce, included)
    k.src.clear();
    k.dst.clear();
    for (std::size_t i = 0; i < c.src.size() && i < c.dst.size(); ++i)
      if (c.src[i] != c.dst[i]) k.src.push_back(c.src[i]), k.dst.push_back(c.dst[i]);
    if (!k.src.empty()) out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

void separateLocalSteps(Schedule& s) {
  std::vector<Round> out;
  for (Round& r : s.rounds) {
    const bool sends = !r.moves.empty();
    std::vector<LocalCopy> before = realCopies(r.before), after = realCopies(r.after);
    const Said name = sends ? r.name() : r.phase;
    auto local = [&](std::vector<LocalCopy> copies, const Said& phase) {
      if (copies.empty()) return;
      Round l;
      l.phase = phase;
      l.before = std::move(copies);
      out.push_back(std::move(l));
    };
    if (!sends) {  // already local: its copies as steps of their own, in order
      local(std::move(before), name);
      local(std::move(after), name);
      continue;
    }
    local(std::move(before), say("local copies before ({0})", name));
    Round m = std::move(r);
    m.before.clear();
    m.after.clear();
    out.push_back(std::move(m));
    local(std::move(after), say("local copies after ({0})", name));
  }
  s.rounds = std::move(out);
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
