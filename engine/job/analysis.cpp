// The analysis of a job (job.h analyse): pure, over the calls read.
//
// Stuck collectives. Per process group (communicator), collectives are
// matched across ranks by their sequence number, over the files that record
// every call of one rank (Flight Recorder dumps, captures). A rank has
// entered collective S of a group when its file records a call of the group
// numbered S or later (or its pg_status counts S enqueued); it has completed
// S when its status (or its calls) say so. For each sequence number some
// rank still has pending (not completed), in order, the first S that a
// member with a file never entered is the group's stuck collective: those
// members never arrived, the members that entered and did not complete it
// wait there, members without a file are unknown (said, not guessed).
// Point-to-point ops are not matched (their numbers are per pair).
//
// Who waits for whom, as a graph, and the verdict: waits.cpp.
//
// Also: ranks that disagree on a collective's op, dtype or size (the sizes
// only where the op needs them equal, dtypes only of tensors that are not
// empty), a collective whose own sizes break its rule (all_reduce: output
// as input; all_gather: output = input x ranks; reduce_scatter: input =
// output x ranks), ranks of the job with no file, ranks that disagree on the
// job's size, two dumps of one rank, RAS statuses other than OK,
// nccl-tests' wrong values.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "engine/job/readers.h"
#include "engine/job/waits.h"

namespace collviz::job {
namespace {

struct RankInGroup {
  bool known = false;  // it has calls in the group (or a status for it)
  std::int64_t lastEntered = -1, lastDone = -1, lastStarted = -1;
};

using waits::Candidate;
using waits::fromCapture;
using waits::fromDump;

// Sizes that every rank of the op gives alike (all_to_all, gather and
// scatter may differ by rank).
bool sizesAgree(std::string_view op) {
  return op == "all_reduce" || op == "broadcast" || op == "reduce" || op == "all_gather" || op == "reduce_scatter";
}

// A captured call's count, the one its members must give alike, where they
// must (-1: they need not: the v-forms and MPI_Reduce_scatter take counts by
// rank). The tap records what each rank sends and receives, so the raw
// pair differs by role: broadcast's root sends N and receives none, the
// others the reverse; reduce's non-roots receive nothing.
std::int64_t capturedCount(std::string_view op, std::string_view fn, const Call& c) {
  if (!fn.empty() && (fn.back() == 'v' || fn == "MPI_Reduce_scatter" || fn == "MPI_Ireduce_scatter")) return -1;
  if (op == "broadcast") return std::max(c.inElems, c.outElems);
  if (op == "reduce_scatter") return c.outElems;
  return c.inElems;  // all_reduce, reduce, all_gather
}

class Analyser {
 public:
  Analyser(const Job& job, std::int64_t now) : job_(job), now_(now) {}

  Analysis run() {
    dumps();
    std::size_t i = 0;
    while (i < job_.calls.size()) {  // one group's calls at a time (they are sorted by group)
      std::size_t j = i;
      while (j < job_.calls.size() && job_.calls[j].group == job_.calls[i].group) ++j;
      if (job_.calls[i].group >= 0) group(job_.calls[i].group, i, j);
      i = j;
    }
    waits::verdict(job_, now_, candidates_, allWait_, a_);
    others();
    return std::move(a_);
  }

 private:
  void dumps() {
    std::set<int> world;
    bool any = false;
    std::map<int, std::vector<int>> sizes;  // world size -> ranks that say it
    for (const Rank& r : job_.ranks) {
      if (r.dump < 0) continue;
      any = true;
      if (r.worldSize > 0) sizes[r.worldSize].push_back(r.rank);
      if (r.duplicates > 0) {
        Finding f;
        f.kind = FindingKind::duplicate_rank;
        f.ranks = {r.rank};
        f.text = say("rank {0}: {1} more dumps claim it; the first read is kept", r.rank, r.duplicates);
        a_.findings.push_back(std::move(f));
      }
    }
    if (!any) return;
    if (sizes.size() > 1) {
      std::vector<Text> parts;
      Finding f;
      f.kind = FindingKind::world_size;
      for (const auto& [n, ranks] : sizes) {
        parts.push_back(say("{0}: {1}", rankList(ranks), n));
        if (ranks.size() < sizes.rbegin()->second.size() || n != sizes.rbegin()->first) f.ranks.insert(f.ranks.end(), ranks.begin(), ranks.end());
      }
      f.text = say("the dumps disagree on the job's size: {0}", joined(parts));
      a_.findings.push_back(std::move(f));
    }
    for (const Group& g : job_.groups)  // the ranks of every group a dump names
      if (!g.ranks.empty() && (g.desc == "default_pg" || g.size == job_.worldSize)) world.insert(g.ranks.begin(), g.ranks.end());
    for (int r = 0; r < job_.worldSize && r <= kMaxRank; ++r) world.insert(r);
    for (int r : world) {
      const Rank* x = job_.rank(r);
      if (!x || x->dump < 0) a_.missingDumps.push_back(r);
    }
    if (!a_.missingDumps.empty()) {
      Finding f;
      f.kind = FindingKind::missing_dump;
      f.ranks = a_.missingDumps;
      f.text = f.ranks.size() == 1 ? say("no dump of {0} (of {1} ranks): what it did is not known", rankList(f.ranks), std::int64_t(world.size()))
                                   : say("no dump of {0} (of {1} ranks): what they did is not known", rankList(f.ranks), std::int64_t(world.size()));
      a_.findings.push_back(std::move(f));
    }
  }

  void group(int g, std::size_t from, std::size_t to) {
    const Group& grp = job_.groups[std::size_t(g)];
    std::map<int, RankInGroup> at;
    std::map<int, bool> p2p;
    std::map<int, std::int64_t> firstPending;
    std::set<std::int64_t> pending;
    for (std::size_t k = from; k < to; ++k) {
      const Call& c = job_.calls[k];
      if (!fromDump(job_, c)) continue;
      if (c.p2p) {
        p2p[c.rank] = true;
        continue;
      }
      RankInGroup& r = at[c.rank];
      r.known = true;
      r.lastEntered = std::max(r.lastEntered, c.seq);
      if (c.state == State::completed) r.lastDone = std::max(r.lastDone, c.seq);
      if (c.state == State::started) r.lastStarted = std::max(r.lastStarted, c.seq);
      if (c.state != State::completed) {
        pending.insert(c.seq);
        auto [it, added] = firstPending.try_emplace(c.rank, c.seq);
        if (!added) it->second = std::min(it->second, c.seq);
      }
    }
    if (at.empty()) return;
    for (auto& [rank, r] : at) {  // the lowest pending seq less one: done, where no status says
      auto it = firstPending.find(rank);
      r.lastDone = std::max(r.lastDone, it != firstPending.end() ? it->second - 1 : r.lastEntered);
    }
    for (const PgStatus& s : job_.status) {  // a rank's own counts, where no p2p op of the group muddles them
      if (s.group != g || p2p[s.rank]) continue;
      RankInGroup& r = at[s.rank];
      r.known = true;
      r.lastEntered = std::max(r.lastEntered, s.lastEnqueued);
      if (s.lastCompleted >= 0) r.lastDone = s.lastCompleted;
      r.lastStarted = std::max(r.lastStarted, s.lastStarted);
    }
    GroupProgress gp;
    gp.group = g;
    std::vector<int> members = grp.ranks;
    if (members.empty())
      for (const auto& [rank, r] : at) members.push_back(rank);
    for (int m : members) {
      Progress p;
      p.rank = m;
      const Rank* x = job_.rank(m);
      p.dumped = x && x->dump >= 0;
      if (auto it = at.find(m); it != at.end()) p.lastCompleted = it->second.lastDone, p.lastStarted = it->second.lastStarted, p.lastEntered = it->second.lastEntered;
      gp.ranks.push_back(p);
    }
    a_.groups.push_back(gp);
    mismatches(g, from, to);
    for (std::int64_t s : pending) {
      Finding f;
      f.kind = FindingKind::hang;
      f.group = g;
      f.seq = s;
      std::vector<int> unknown;
      for (const Progress& p : gp.ranks) {
        if (!p.dumped) unknown.push_back(p.rank);
        else if (p.lastEntered < s) f.ranks.push_back(p.rank);
        else if (p.lastCompleted < s) f.waiting.push_back(p.rank);
      }
      if (f.waiting.empty()) continue;  // none waits
      // Every member entered it: stuck only where none completed it (where some
      // did, it was done, and those that say otherwise lost sight of it).
      const bool allWait = f.ranks.empty() && unknown.empty();
      if (allWait && (f.waiting.size() < gp.ranks.size() || f.waiting.size() < 2)) continue;
      std::sort(f.waiting.begin(), f.waiting.end());
      std::sort(f.ranks.begin(), f.ranks.end());
      // Its calls: the group's collectives are sorted by seq, then rank.
      auto lo = std::lower_bound(job_.calls.begin() + std::ptrdiff_t(from), job_.calls.begin() + std::ptrdiff_t(to), s,
                                 [](const Call& c, std::int64_t v) { return !c.p2p && c.seq < v; });
      std::int64_t time = 0;
      std::map<Name, int> ops;
      const Call* first = nullptr;
      for (auto k = lo; k != job_.calls.begin() + std::ptrdiff_t(to) && !k->p2p && k->seq == s; ++k) {
        if (!std::binary_search(f.waiting.begin(), f.waiting.end(), k->rank)) continue;
        if (time == 0 || (k->created > 0 && k->created < time)) time = k->created;
        ++ops[k->op];
        if (!first) first = &*k;
      }
      if (!first) continue;
      f.op = std::max_element(ops.begin(), ops.end(), [](auto& x, auto& y) { return x.second < y.second; })->first;
      if (allWait) {  // kept aside: the verdict only where no rank is missing anywhere
        f.text = say("all {0} ranks of {1} wait in {2} #{3}; none is missing: what holds them is below the collective (NCCL, the network)",
                     std::int64_t(f.waiting.size()), groupName(job_, g), job_.str(f.op), f.seq);
        if (!allWait_ || time < allWait_->time) allWait_ = Candidate{time, std::move(f), {}, first};
        return;  // what comes after it in this group waits for it
      }
      f.text = hangText(job_, f, *first, unknown);
      candidates_.push_back({time, std::move(f), std::move(unknown), first});
      return;
    }
  }

  // A tensor list's first tensor is empty ("" or ";..."): no dtype to compare (a non-root's gather output).
  bool emptyIn(const Call& c) const {
    const std::string_view s = job_.str(c.inShape);
    return c.inShape ? s.empty() || s.front() == ';' : c.inElems <= 0;
  }
  bool emptyOut(const Call& c) const {
    const std::string_view s = job_.str(c.outShape);
    return c.outShape ? s.empty() || s.front() == ';' : c.outElems <= 0;
  }

  // Ranks that disagree on one collective (its calls, one a rank), as
  // PyTorch's analyser matches them: the op; the dtypes of tensors that are
  // not empty (inputs but scatter's and broadcast's, outputs but gather's,
  // and one call's input against its output but a gather, scatter or
  // broadcast); the sizes (a dump's shapes: inputs but all_to_all's and
  // scatter's, outputs but all_to_all's and gather's; other files: the
  // elements, of the ops that need them equal) and each call's own rule;
  // then whether they completed it (said, no rank blamed).
  bool compare(int g, const std::vector<const Call*>& calls) {
    const Call& c0 = *calls.front();
    const std::string op(job_.str(c0.op));
    const bool dump = !fromCapture(job_, c0);
    for (const char* field : {"op", "dtype", "size", "state"}) {
      std::map<std::string, std::vector<int>> by;
      std::map<std::string, std::string> shown;
      const std::string_view fname = field;
      const bool isOp = fname == "op", isDtype = fname == "dtype", isSize = fname == "size";
      for (const Call* c : calls) {
        std::string v;
        if (isOp) v = op == std::string(job_.str(c->op)) ? op : std::string(job_.str(c->op));
        else if (isDtype) {
          if (op == "scatter" || op == "broadcast" || emptyIn(*c)) continue;
          v = std::string(job_.str(c->dtype));
        } else if (isSize) {
          if (dump) {
            const bool in = op != "all_to_all" && op != "scatter", out = op != "all_to_all" && op != "gather";
            v = (in ? std::string(job_.str(c->inShape)) + "#" + std::to_string(c->inElems) : "") + "/" +
                (out ? std::string(job_.str(c->outShape)) + "#" + std::to_string(c->outElems) : "");
            shown[v] = std::string(job_.str(in ? c->inShape : c->outShape));
          } else {
            const std::int64_t n = capturedCount(op, job_.str(c->name), *c);
            if (!sizesAgree(op) || n < 0) {
              by.clear();
              break;
            }
            v = std::to_string(n);
          }
        } else {
          v = std::string(stateName(c->state));
        }
        by[v].push_back(c->rank);
      }
      if (isDtype && by.size() < 2) {  // the outputs' dtypes, where the inputs agree
        by.clear();
        for (const Call* c : calls)
          if (op != "gather" && c->outDtype && !emptyOut(*c)) by[std::string(job_.str(c->outDtype))].push_back(c->rank);
      }
      if (by.size() < 2) continue;
      Finding fd;
      fd.kind = FindingKind::mismatch;
      fd.group = g;
      fd.seq = c0.seq;
      fd.op = c0.op;
      fd.field = field;
      std::vector<Text> parts;
      std::size_t most = 0;
      std::vector<std::pair<std::string, std::vector<int>>> order(by.begin(), by.end());  // by their lowest rank
      std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.second.front() < y.second.front(); });
      for (const auto& [v, ranks] : order) most = std::max(most, ranks.size());
      for (const auto& [v, ranks] : order) {
        std::string say1 = v;
        if (isSize && dump) say1 = shown[v];
        else if (isSize)
          for (const Call* c : calls)
            if (c->rank == ranks[0]) say1 = std::string(job_.str(c->inShape)).empty() ? v : std::string(job_.str(c->inShape));
        parts.push_back(say("{0}: {1}", rankList(ranks), say1));
        if (ranks.size() < most && fname != "state") fd.ranks.insert(fd.ranks.end(), ranks.begin(), ranks.end());  // a state seen late is no one's fault
      }
      fd.text = say("{0} #{1} of {2}: the ranks disagree on its {3}: {4}", job_.str(fd.op), fd.seq, groupName(job_, g), say(field), joined(parts));
      a_.findings.push_back(std::move(fd));
      return true;
    }
    // Each call's own rule (dumps): all_reduce's output is its input, all_gather's output the input times the
    // ranks, reduce_scatter's input the output times the ranks; one call's input and output dtypes alike.
    if (!dump) return false;
    const std::int64_t n = std::int64_t(job_.groups[std::size_t(g)].ranks.size());
    std::vector<int> broken, mixed;
    for (const Call* c : calls) {
      const bool ar = op == "all_reduce" || op == "allreduce_coalesced";
      const bool ag = op == "all_gather" || op == "all_gather_into_tensor_coalesced";
      const bool rs = op == "reduce_scatter" || op == "reduce_scatter_tensor_coalesced";
      if ((ar && c->inShape != c->outShape) || (ag && n > 0 && c->outElems != c->inElems * n) || (rs && n > 0 && c->inElems != c->outElems * n))
        broken.push_back(c->rank);
      if (op != "gather" && op != "scatter" && op != "broadcast" && c->outDtype && c->dtype != c->outDtype && !emptyIn(*c) && !emptyOut(*c))
        mixed.push_back(c->rank);
    }
    for (auto* v : {&broken, &mixed}) {
      if (v->empty()) continue;
      Finding fd;
      fd.kind = FindingKind::mismatch;
      fd.group = g, fd.seq = c0.seq, fd.op = c0.op, fd.ranks = *v;
      fd.field = v == &broken ? "size" : "dtype";
      const Call* c = calls.front();
      for (const Call* x : calls)
        if (x->rank == v->front()) c = x;
      fd.text = v == &broken ? say("{0} #{1} of {2}: {3}: its input {4} and output {5} break its rule", job_.str(fd.op), fd.seq, groupName(job_, g),
                                   rankList(*v), std::string(job_.str(c->inShape)), std::string(job_.str(c->outShape)))
                             : say("{0} #{1} of {2}: {3}: its input is {4}, its output {5}", job_.str(fd.op), fd.seq, groupName(job_, g), rankList(*v),
                                   std::string(job_.str(c->dtype)), std::string(job_.str(c->outDtype)));
      a_.findings.push_back(std::move(fd));
      return true;
    }
    return false;
  }

  // Each collective of the group, compared across its ranks. Coalesced ops
  // share one sequence number: a rank's k-th call of it meets the others' k-th
  // (a rank with fewer calls there is not compared past them).
  void mismatches(int g, std::size_t from, std::size_t to) {
    int found = 0;
    for (std::size_t i = from; i < to && found < 3;) {
      std::size_t j = i;
      while (j < to && job_.calls[j].p2p == job_.calls[i].p2p && job_.calls[j].seq == job_.calls[i].seq) ++j;
      if (!job_.calls[i].p2p && j - i > 1 && fromDump(job_, job_.calls[i])) {
        std::map<int, std::vector<const Call*>> byRank;  // in record order (the sort's last keys)
        for (std::size_t k = i; k < j; ++k)
          if (fromDump(job_, job_.calls[k])) byRank[job_.calls[k].rank].push_back(&job_.calls[k]);
        for (std::size_t pos = 0; found < 3; ++pos) {
          std::vector<const Call*> calls;
          for (const auto& [r, v] : byRank)
            if (pos < v.size()) calls.push_back(v[pos]);
          if (calls.empty()) break;
          if (calls.size() > 1 && compare(g, calls)) {
            ++found;
            break;
          }
        }
      }
      i = j;
    }
  }

  void others() {
    // RAS: each rank with its own words (the first 8), the rest by status.
    std::map<Health, std::vector<int>> byHealth;
    int said = 0;
    for (const Rank& r : job_.ranks) {
      if (r.health == Health::unknown || r.health == Health::ok) continue;
      if (said++ >= 8) {
        byHealth[r.health].push_back(r.rank);
        continue;
      }
      Finding f;
      f.kind = FindingKind::ras;
      f.ranks = {r.rank};
      f.text = say("NCCL RAS: {0} {1}: {2}", rankList(f.ranks), healthWord(r.health), std::string(r.healthText));
      a_.findings.push_back(std::move(f));
    }
    for (const auto& [h, ranks] : byHealth) {
      Finding f;
      f.kind = FindingKind::ras;
      f.ranks = ranks;
      f.text = say("NCCL RAS: {0} {1}", rankList(ranks), healthWord(h));
      a_.findings.push_back(std::move(f));
    }
    for (const RasReport& r : job_.ras)
      for (const RasProcess& p : r.processes) {
        bool attached = false;
        for (const Rank& x : job_.ranks) attached = attached || (x.pid == p.pid && x.host == p.host);
        if (attached) continue;
        Finding f;
        f.kind = FindingKind::ras;
        f.text = say("NCCL RAS: {0}", std::string(p.text));
        a_.findings.push_back(std::move(f));
      }
    // A communicator that RAS's table says is not OK is a finding by itself,
    // where no rank of it was found to blame (an INCOMPLETE table whose error
    // lines name a rank or process that does not parse): never "nothing wrong".
    for (const RasReport& r : job_.ras)
      for (const RasComm& c : r.comms) {
        if (c.errors.empty() || c.errors == "OK") continue;
        bool blamed = false;
        if (c.group_index >= 0 && std::size_t(c.group_index) < job_.groups.size())
          for (int m : job_.groups[std::size_t(c.group_index)].ranks) {
            const Rank* x = job_.rank(m);
            blamed = blamed || (x && x->health != Health::unknown && x->health != Health::ok);
          }
        if (blamed) continue;
        Finding f;
        f.kind = FindingKind::ras;
        f.group = c.group_index;
        const std::string name = c.group.empty() ? c.hash : c.hash.empty() ? c.group : c.group + " (" + c.hash + ")";
        f.text = say("NCCL RAS: communicator {0}: {1} (no rank of it named)", name, c.errors);
        a_.findings.push_back(std::move(f));
      }
    for (const TestRun& t : job_.tests) {
      if (t.wrongTotal <= 0 && t.outOfBounds <= 0) continue;
      Finding f;
      f.kind = FindingKind::wrong_results;
      std::int64_t sizes = 0;
      for (const TestRow& row : t.rows) sizes += (row.wrong[0] > 0 || row.wrong[1] > 0) ? 1 : 0;
      const std::string test = t.test.empty() ? "?" : t.test;
      f.text = sizes == 1 ? say("nccl-tests {0}: {1} wrong values at one size", test, t.wrongTotal)
                          : say("nccl-tests {0}: {1} wrong values at {2} sizes", test, t.wrongTotal, sizes);
      a_.findings.push_back(std::move(f));
    }
    if (!job_.otherJob.empty()) {  // said on top of the figure, whatever the verdict
      Finding f;
      f.kind = FindingKind::other_job;
      f.text = job_.otherJob;
      a_.findings.push_back(std::move(f));
    }
    if (!a_.verdict.empty()) return;
    for (const Finding& f : a_.findings)
      if (f.kind == FindingKind::other_job) return void(a_.verdict = f.text);
    for (const Finding& f : a_.findings)
      if (f.kind == FindingKind::ras || f.kind == FindingKind::wrong_results || f.kind == FindingKind::world_size ||
          f.kind == FindingKind::duplicate_rank) {
        a_.verdictRanks = f.ranks;
        return void(a_.verdict = f.text);
      }
    bool dumps = false;
    for (const Rank& r : job_.ranks) dumps = dumps || r.dump >= 0;
    a_.verdict = dumps ? Said(say("no collective waits for a rank: every member of every group entered each collective another entered"))
                       : Said(say("nothing wrong found in {0} files", std::int64_t(job_.sources.size())));
  }

  const Job& job_;
  std::int64_t now_ = 0;
  Analysis a_;
  std::vector<Candidate> candidates_;
  std::optional<Candidate> allWait_;  // the first group where every member waits in one collective
};

}  // namespace

Analysis analyse(const Job& job, std::int64_t nowNs) { return Analyser(job, nowNs > 0 ? nowNs : job.endNs).run(); }

}  // namespace collviz::job
