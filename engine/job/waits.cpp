// The verdict of the analysis (analysis.cpp analyse).
//
// Who waits for whom, as a graph. A rank that waits in a stuck collective
// waits for its members that never entered it (and those not known). A rank
// that waits for nobody is where the waiting leads: outside the collectives
// (its last call left at time t), gone (RAS says dead), not known (no
// file), or stuck in a collective every member entered (below it: the
// library, the network). The verdict names those ranks, reached from the
// waiting ones; a rank blocked in one collective is absent from the next
// and is not blamed (the graph goes on through it). Ranks that wait for
// each other in a cycle are a deadlock: named with where each waits. Where
// no rank is missing anywhere and every member of a group waits in one
// collective, that is said (the cause is below the collective). The
// verdict does not depend on which rank entered first.
#include "engine/job/waits.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

namespace collviz::job::waits {
namespace {

// The graph of one analysis: its stuck collectives (`candidates_`) and the
// ranks that wait in them.
class Graph {
 public:
  Graph(const Job& job, std::int64_t now, std::vector<Candidate>& candidates, const std::optional<Candidate>& allWait, Analysis& a)
      : job_(job), now_(now), candidates_(candidates), allWait_(allWait), a_(a) {}

  // The missing and not-known members of a stuck collective: whom its waiting ranks wait for.
  static std::vector<int> awaited(const Candidate& c) {
    std::vector<int> v = c.f.ranks;
    v.insert(v.end(), c.unknown.begin(), c.unknown.end());
    return v;
  }

  // A communicator as a capture's verdict names it: its description, with
  // its id only where another group has the same one.
  std::string commName(int g) const {
    const Group& grp = job_.groups[std::size_t(g)];
    if (grp.desc.empty()) return grp.id;
    for (const Group& o : job_.groups)
      if (&o != &grp && o.desc == grp.desc) return groupName(job_, g);
    return grp.desc;
  }

  std::string callName(const Call& c) const {
    const std::string_view n = fromCapture(job_, c) ? job_.str(c.name) : job_.str(c.op);
    return std::string(n.empty() ? job_.str(c.op) : n);
  }

  // The newest time in the job: "now" for a finished capture.
  std::int64_t now() const {
    if (now_ > 0) return now_;
    std::int64_t t = 0;
    for (const Call& c : job_.calls) t = std::max({t, c.created, c.started, c.completed});
    return t;
  }

  // Where a rank the waiting leads to is (a capture's words).
  Text sinkText(int r) const {
    const Rank* x = job_.rank(r);
    if (!x || x->dump < 0) return say("no capture of {0}: where it is is not known", rankList({r}));
    const Call* last = nullptr;
    for (const Call& c : job_.calls)
      if (c.rank == r && fromDump(job_, c) && (!last || c.created > last->created || (c.created == last->created && c.record > last->record))) last = &c;
    if (x->health == Health::dead) return say("{0} is gone", rankList({r}));
    if (!last) return say("{0} has made no collective call", rankList({r}));
    if (last->state != State::completed)
      return say("{0} waits in {1} #{2} of {3}, which every member entered", rankList({r}), callName(*last), last->seq, commName(last->group));
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", double(std::max<std::int64_t>(0, now() - last->completed)) / 1e9);
    // Outside the library its file's tap wraps: an NCCL program's rank is outside NCCL.
    const auto& data = job_.sources[std::size_t(last->source)].capture;
    if (data && data->nccl)
      return say("{0} has been outside NCCL for {1} s since its {2} #{3} of {4}", rankList({r}), std::string(secs), callName(*last), last->seq,
                 commName(last->group));
    return say("{0} has been outside MPI for {1} s since its {2} #{3} of {4}", rankList({r}), std::string(secs), callName(*last), last->seq,
               commName(last->group));
  }

  // Ranks that wait for each other in a cycle: the strongly connected parts
  // (Tarjan's, without recursion) of ranks -> stuck collectives they wait in
  // -> members those never saw, with two ranks or more.
  std::vector<std::vector<int>> cycles(const std::map<int, std::vector<std::size_t>>& waitsIn) const {
    const std::size_t nc = candidates_.size();
    std::map<int, std::size_t> node;  // waiting rank -> node (after the collectives' nodes)
    std::vector<int> rankOf;
    for (const auto& [r, ks] : waitsIn) node[r] = nc + rankOf.size(), rankOf.push_back(r);
    const std::size_t n = nc + rankOf.size();
    std::vector<std::vector<std::size_t>> next(n);
    for (std::size_t k = 0; k < nc; ++k)
      for (int m : awaited(candidates_[k]))
        if (auto it = node.find(m); it != node.end()) next[k].push_back(it->second);
    for (const auto& [r, ks] : waitsIn) next[node[r]] = ks;
    std::vector<std::size_t> index(n, SIZE_MAX), low(n, 0);
    std::vector<bool> on(n, false);
    std::vector<std::size_t> stack;
    std::vector<std::pair<std::size_t, std::size_t>> work;  // node, next edge
    std::size_t counter = 0;
    std::vector<std::vector<int>> out;
    for (std::size_t root = 0; root < n; ++root) {
      if (index[root] != SIZE_MAX) continue;
      work.push_back({root, 0});
      while (!work.empty()) {
        auto& [v, e] = work.back();
        if (e == 0 && index[v] == SIZE_MAX) index[v] = low[v] = counter++, stack.push_back(v), on[v] = true;
        if (e < next[v].size()) {
          const std::size_t w = next[v][e++];
          if (index[w] == SIZE_MAX) work.push_back({w, 0});
          else if (on[w]) low[v] = std::min(low[v], index[w]);
          continue;
        }
        const std::size_t done = v;
        work.pop_back();
        if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
        if (low[done] != index[done]) continue;
        std::vector<int> ranks;
        for (std::size_t w = SIZE_MAX; w != done;) {
          w = stack.back();
          stack.pop_back();
          on[w] = false;
          if (w >= nc) ranks.push_back(rankOf[w - nc]);
        }
        if (ranks.size() >= 2) {
          std::sort(ranks.begin(), ranks.end());
          out.push_back(std::move(ranks));
        }
      }
    }
    return out;
  }

  // Who waits for whom: the ranks the waiting leads to, and cycles.
  void verdict() {
    std::stable_sort(candidates_.begin(), candidates_.end(), [](const Candidate& x, const Candidate& y) { return x.time < y.time; });
    std::map<int, std::vector<std::size_t>> waitsIn;
    for (std::size_t k = 0; k < candidates_.size(); ++k)
      for (int r : candidates_[k].f.waiting) waitsIn[r].push_back(k);
    std::set<int> sinks;  // awaited, waiting nowhere
    for (const Candidate& c : candidates_)
      for (int m : awaited(c))
        if (!waitsIn.count(m)) sinks.insert(m);
    // Deadlocks: each cycle, with where each of its ranks waits and for whom.
    std::vector<Finding> deadlocks;
    std::set<std::size_t> inCycle;  // stuck collectives a cycle goes through
    for (const std::vector<int>& cyc : cycles(waitsIn)) {
      Finding f;
      f.kind = FindingKind::deadlock;
      f.ranks = cyc;
      std::vector<Text> parts;
      for (std::size_t k = 0; k < candidates_.size(); ++k) {
        const Candidate& c = candidates_[k];
        std::vector<int> who, whom;
        for (int r : c.f.waiting)
          if (std::binary_search(cyc.begin(), cyc.end(), r)) who.push_back(r);
        for (int m : awaited(c))
          if (std::binary_search(cyc.begin(), cyc.end(), m)) whom.push_back(m);
        if (who.empty() || whom.empty()) continue;
        inCycle.insert(k);
        if (f.group < 0) f.group = c.f.group, f.seq = c.f.seq, f.op = c.f.op;
        parts.push_back(who.size() == 1 ? say("{0} waits in {1} #{2} of {3} for {4}", rankList(who), callName(*c.first), c.f.seq, commName(c.f.group), rankList(whom))
                                        : say("{0} wait in {1} #{2} of {3} for {4}", rankList(who), callName(*c.first), c.f.seq, commName(c.f.group), rankList(whom)));
      }
      f.text = say("deadlock: {0} wait for each other: {1}", rankList(cyc), joined(parts));
      a_.verdictRanks.insert(a_.verdictRanks.end(), cyc.begin(), cyc.end());
      deadlocks.push_back(std::move(f));
    }
    bool capture = false;
    for (const Candidate& c : candidates_) capture = capture || fromCapture(job_, *c.first);
    std::vector<Text> roots;
    std::vector<Finding> first, rest;
    std::set<int> named;
    if (capture) {
      // "rank 2 has been outside MPI for 12.4 s since ...; rank 0 waits for it in ...; ranks 1 and 3 wait in ..."
      for (int r : sinks) roots.push_back(sinkText(r));
      std::vector<std::size_t> order, later;
      for (std::size_t k = 0; k < candidates_.size(); ++k) {
        bool direct = true;  // it waits for sinks only: "waits for it"
        for (int m : awaited(candidates_[k])) direct = direct && sinks.count(m);
        (direct ? order : later).push_back(k);
      }
      order.insert(order.end(), later.begin(), later.end());
      for (std::size_t k : order) {
        const Candidate& c = candidates_[k];
        first.push_back(c.f);
        if (inCycle.count(k)) continue;
        std::vector<int> whom;  // empty where it waits for a rank blocked elsewhere too
        for (int m : awaited(c))
          if (sinks.count(m)) whom.push_back(m);
        for (int m : awaited(c))
          if (!sinks.count(m)) whom.clear();
        const std::string name = callName(*c.first), comm = commName(c.f.group);
        const bool one = c.f.waiting.size() == 1;
        if (whom.empty()) roots.push_back(one ? say("{0} waits in {1} #{2} of {3}", rankList(c.f.waiting), name, c.f.seq, comm)
                                              : say("{0} wait in {1} #{2} of {3}", rankList(c.f.waiting), name, c.f.seq, comm));
        else {
          const Text target = sinks.size() == 1 ? say("it") : rankList(whom);
          roots.push_back(one ? say("{0} waits for {1} in {2} #{3} of {4}", rankList(c.f.waiting), target, name, c.f.seq, comm)
                              : say("{0} wait for {1} in {2} #{3} of {4}", rankList(c.f.waiting), target, name, c.f.seq, comm));
        }
      }
      named = sinks;
      if (!roots.empty()) roots = {joined(roots)};
    } else {
      // Each stuck collective whose missing ranks the waiting leads to, in
      // time order, once per rank named: "rank 12 never entered ...; 3 ranks wait there".
      for (Candidate& c : candidates_) {
        bool news = false;
        for (int m : awaited(c)) news = news || (sinks.count(m) && !named.count(m));
        if (news) {
          for (int m : awaited(c))
            if (sinks.count(m)) named.insert(m);
          roots.push_back(c.f.text.text);
          first.push_back(c.f);
        } else {
          rest.push_back(c.f);
        }
      }
    }
    a_.verdictRanks.insert(a_.verdictRanks.end(), named.begin(), named.end());
    std::sort(a_.verdictRanks.begin(), a_.verdictRanks.end());
    a_.verdictRanks.erase(std::unique(a_.verdictRanks.begin(), a_.verdictRanks.end()), a_.verdictRanks.end());
    for (const Finding& d : deadlocks) roots.push_back(d.text.text);
    first.insert(first.end(), deadlocks.begin(), deadlocks.end());
    first.insert(first.end(), rest.begin(), rest.end());
    a_.findings.insert(a_.findings.begin(), first.begin(), first.end());
    if (!roots.empty()) {
      Text v = roots[0];
      for (std::size_t k = 1; k < roots.size(); ++k) v = say("{0}. Also: {1}", v, roots[k]);
      a_.verdict = Said(v);
      return;
    }
    for (const Finding& f : a_.findings)  // a mismatch is a cause (a state seen late is not); all waiting without one is a symptom
      if (f.kind == FindingKind::mismatch && f.field != "state") {
        a_.verdictRanks = f.ranks;
        return void(a_.verdict = f.text);
      }
    if (allWait_) {
      a_.findings.insert(a_.findings.begin(), allWait_->f);
      a_.verdict = allWait_->f.text;
      a_.verdictRanks = allWait_->f.waiting;
    }
  }

 private:
  const Job& job_;
  std::int64_t now_ = 0;
  std::vector<Candidate>& candidates_;
  const std::optional<Candidate>& allWait_;  // the first group where every member waits in one collective
  Analysis& a_;
};

}  // namespace

void verdict(const Job& job, std::int64_t nowNs, std::vector<Candidate>& candidates, const std::optional<Candidate>& allWait,
             Analysis& a) {
  Graph(job, nowNs, candidates, allWait, a).verdict();
}

}  // namespace collviz::job::waits
