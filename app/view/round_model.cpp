#include "app/view/round_model.h"

#include <algorithm>
#include <bit>

#include "app/lang/lang.h"
#include "app/view/rank_hosts.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/algo/reference.h"
#include "engine/verify/oracle.h"

namespace collviz::ui {

bool isRoundAlgo(const std::string& algo, Op op) {
  if (auto f = algo::findMscclFile(algo)) return f->op == op;  // a loaded MSCCL file
  const algo::Algorithm* a = algo::findAlgorithm(algo);
  return a && a->build && algo::serves(*a, op);
}

int algoRounds(const std::string& algo, const OpSpec& spec) {
  if (!isRoundAlgo(algo, spec.op)) return 0;
  auto s = algo::buildSchedule(algo, spec);
  return s ? int(s->rounds.size()) : 0;
}

BlockLabel slotLabel(const OpSpec& spec, const algo::SlotState& st) {
  BlockLabel l;
  if (st.empty()) {
    l.empty = true;
    return l;
  }
  const BlockRef ref = algo::toBlockRef(st);
  const uint32_t all = spec.ranks >= 32 ? ~0u : (1u << spec.ranks) - 1u;
  // Combined data is a Σ (partial while some ranks are missing); a single
  // rank's block keeps its letter, as the engine's decoder labels it.
  if (reduces(spec.op) && (std::popcount(st.ranks) > 1 || st.averaged)) {
    l.kind = BlockLabel::Kind::reduced;
    l.shard = blockShard(spec, BlockRef{st.ranks, st.block, true});
    l.partial = st.ranks != all;
  } else {
    l.kind = BlockLabel::Kind::source;
    l.letter = blockLetter(spec.op, ref);
    l.shard = blockShard(spec, ref);
  }
  l.contributors = st.ranks;
  return l;
}

namespace {

std::vector<std::vector<BlockLabel>> labelsOf(const OpSpec& spec, const algo::State& st) {
  std::vector<std::vector<BlockLabel>> out(st.size());
  for (std::size_t r = 0; r < st.size(); ++r)
    for (const algo::SlotState& s : st[r]) out[r].push_back(slotLabel(spec, s));
  return out;
}

// The snapshot's labels after round k (1-based), where it has them.
bool snapshotLabels(const Snapshot& snap, int k, std::vector<std::vector<BlockLabel>>& out) {
  if (k < 1 || k > int(snap.steps.size())) return false;
  const StepResult& st = snap.steps[std::size_t(k - 1)];
  if (st.ranks.size() != out.size()) return false;
  for (std::size_t r = 0; r < out.size(); ++r) {
    const auto& labels = st.ranks[r].output.labels;
    if (labels.size() != out[r].size()) return false;
    out[r] = labels;
  }
  return true;
}

std::string barText(const algo::Schedule& s, int round) {
  std::string bar;
  std::vector<std::string> seen;
  for (int k = 0; k < int(s.rounds.size()); ++k) {
    const algo::Round& r = s.rounds[std::size_t(k)];
    if (r.local() || std::find(seen.begin(), seen.end(), r.phase) != seen.end()) continue;
    seen.push_back(r.phase);
    int done = 0;
    for (int j = 0; j < round; ++j) done += s.rounds[std::size_t(j)].phase == r.phase;
    bar += (bar.empty() ? "" : " · ") + tr(r.phase) + " " + std::to_string(done) + "/" +
           std::to_string(r.steps);
  }
  // One phase: the round counter already says how far it is.
  return seen.size() > 1 ? bar : std::string();
}

// "ring · round 3/6 · reduce-scatter 3/3"; with local steps the steps are
// counted apart from the message rounds: "bruck · step 1/4 · local: rotate by r",
// "bruck · step 2/4 · round 1/2".
std::string titleText(const RoundModel& m, bool has_local) {
  std::string t = m.algo + " · ";
  auto count = [](int a, int b) { return std::to_string(a) + "/" + std::to_string(b); };
  if (!has_local) {
    t += trf("round {0}", {count(m.round, m.rounds)});
  } else {
    t += trf("step {0}", {count(m.round, m.rounds)});
    if (m.round > 0 && !m.local) t += " · " + trf("round {0}", {count(m.message_round, m.message_rounds)});
  }
  if (m.round > 0 && !m.name.empty()) t += " · " + m.name;
  return t;
}

}  // namespace

RoundModel buildRoundModel(const OpSpec& spec, const std::string& algo_name, int round,
                           std::shared_ptr<const Snapshot> snap) {
  RoundModel m;
  m.spec = spec;
  m.algo = algo_name;
  auto built = algo::buildSchedule(algo_name, spec);
  if (!built) {
    m.error = render(built.error());
    return m;
  }
  const algo::Schedule& s = *built;
  const algo::Reference ref = algo::simulate(s);
  m.rounds = int(s.rounds.size());
  m.round = std::clamp(round, 0, m.rounds);
  m.slots = s.slots;
  m.parts = s.parts > 1 && s.slots % s.parts == 0 ? s.parts : 1;
  for (const algo::Round& r : s.rounds)
    for (const algo::Move& mv : r.moves) m.channels = std::max(m.channels, mv.channel + 1);
  m.formula = algo::figuresFor(algo_name, spec);
  if (snap && snap->error.empty() && snap->algo == algo_name && snap->spec == spec &&
      int(snap->steps.size()) == m.rounds)
    m.snapshot = snap;
  if (m.snapshot) m.hosts = rankHosts(*m.snapshot, spec.ranks);

  auto stateAt = [&](int k) {
    auto labels = labelsOf(spec, k == 0 ? ref.start : ref.rounds[std::size_t(k - 1)]);
    if (m.snapshot) snapshotLabels(*m.snapshot, k, labels);
    if (m.snapshot && k == 0 && m.snapshot->start_labels.size() == labels.size()) {
      bool fits = true;  // the start as decoded from the bytes, where the run has it
      for (std::size_t r = 0; r < labels.size(); ++r)
        fits = fits && m.snapshot->start_labels[r].size() == labels[r].size();
      if (fits) labels = m.snapshot->start_labels;
    }
    return labels;
  };
  m.now = stateAt(m.round);
  m.before = m.round > 0 ? stateAt(m.round - 1) : m.now;
  m.marks.assign(std::size_t(spec.ranks), std::vector<SlotMark>(std::size_t(s.slots), SlotMark::none));
  m.message_rounds = s.messageRounds();
  bool has_local = false;
  for (int k = 0; k < m.rounds; ++k) {
    has_local = has_local || s.rounds[std::size_t(k)].local();
    if (k < m.round) m.message_round += !s.rounds[std::size_t(k)].local();
  }
  if (m.round > 0) {
    const algo::Round& r = s.rounds[std::size_t(m.round - 1)];
    m.local = r.local();
    for (const algo::Move& mv : r.moves) {
      const std::vector<int>& dst = mv.dst.empty() ? mv.src : mv.dst;
      m.arrows.push_back({mv.from, mv.to, mv.src, dst, mv.reduce, false, mv.src.size() * s.slotBytes(), mv.channel});
      for (int d : dst)
        m.marks[std::size_t(mv.to)][std::size_t(d)] = mv.reduce ? SlotMark::reduced : SlotMark::received;
    }
    for (const auto* list : {&r.before, &r.after})
      for (const algo::LocalCopy& c : *list) {
        m.arrows.push_back({c.rank, c.rank, c.src, c.dst, c.reduce, true, 0});
        for (int d : c.dst) m.marks[std::size_t(c.rank)][std::size_t(d)] = SlotMark::moved;
      }
    // "reduce-scatter 2/3"; one phase through every message round: its name
    // alone, and nothing when that is the algorithm's name.
    if (m.local) m.name = trf("local: {0}", {render(r.phase)});
    else if (r.steps == m.message_rounds) m.name = r.phase == algo_name ? "" : tr(r.phase);
    else m.name = tr(r.phase) + " " + std::to_string(r.step) + "/" + std::to_string(r.steps);
  } else {
    m.name = tr("start");
  }
  m.bar = barText(s, m.round);
  m.title = titleText(m, has_local);

  m.sent.assign(std::size_t(spec.ranks), 0);
  m.received = m.sent_total = m.sent;
  for (int k = 0; k < m.rounds; ++k)
    for (int q = 0; q < spec.ranks; ++q) {
      const uint64_t out = s.bytesSent(q, k);
      m.sent_total[std::size_t(q)] += out;
      if (k < m.round) {
        m.sent[std::size_t(q)] += out;
        m.received[std::size_t(q)] += s.bytesReceived(q, k);
      }
    }
  if (!m.hosts.empty()) {
    m.sent_across.assign(std::size_t(spec.ranks), 0);
    m.received_across = m.sent_across;
    for (int k = 0; k < m.round; ++k)
      for (const algo::Move& mv : s.rounds[std::size_t(k)].moves)
        if (acrossHosts(m.hosts, mv.from, mv.to)) {
          const uint64_t bytes = uint64_t(mv.src.size()) * s.slotBytes();
          m.sent_across[std::size_t(mv.from)] += bytes;
          m.received_across[std::size_t(mv.to)] += bytes;
        }
  }
  if (m.snapshot)
    for (const StepResult& st : m.snapshot->steps) m.round_us.push_back(st.time_us);
  return m;
}

}  // namespace collviz::ui
