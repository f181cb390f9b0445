// Arrivals and the straggler tally (arrival.h).
#include "engine/job/arrival.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "engine/job/job.h"

namespace collviz::job {

bool Arrival::isLast(int member) const { return std::find(last.begin(), last.end(), member) != last.end(); }

Arrival arrival(const CapturedCall& call) {
  Arrival a;
  a.waitNs.assign(call.ranks.size(), -1);
  for (const CapturedRank& r : call.ranks) {
    if (!r.present) ++a.missing;
    else a.lastEnterNs = std::max(a.lastEnterNs, r.tEnter);
  }
  for (std::size_t i = 0; i < call.ranks.size(); ++i) {
    const CapturedRank& r = call.ranks[i];
    if (!r.present) continue;
    a.waitNs[i] = std::int64_t(a.lastEnterNs - r.tEnter);
    if (r.tEnter == a.lastEnterNs) a.last.push_back(int(i));
  }
  return a;
}

std::vector<CommTally::Straggler> CommTally::top(std::size_t n) const {
  std::vector<Straggler> out;
  for (const auto& [rank, count] : last) {
    Straggler s;
    s.rank = rank, s.count = count, s.share = calls > 0 ? double(count) / double(calls) : 0;
    if (auto it = waitedNs.find(rank); it != waitedNs.end()) s.waitedNs = it->second;
    out.push_back(s);
  }
  std::stable_sort(out.begin(), out.end(), [](const Straggler& a, const Straggler& b) { return a.count > b.count; });
  if (out.size() > n) out.resize(n);
  return out;
}

void StragglerTally::add(const CapturedCall& call) { add(call, arrival(call)); }

void StragglerTally::add(const CapturedCall& call, const Arrival& a) {
  CommTally& t = comms_[call.commId];
  t.commId = call.commId;
  if (a.missing > 0 || call.ranks.empty()) {
    ++t.incomplete;
    for (const CapturedRank& r : call.ranks)
      if (!r.present) ++t.missing[r.worldRank];
    return;
  }
  ++t.calls;
  if (a.last.size() > 1) ++t.ties;
  const std::int64_t longest = *std::max_element(a.waitNs.begin(), a.waitNs.end());
  for (int m : a.last) {
    const int w = call.ranks[std::size_t(m)].worldRank;
    ++t.last[w];
    t.waitedNs[w] += longest;
  }
}

const CommTally* StragglerTally::comm(std::uint64_t commId) const {
  auto it = comms_.find(commId);
  return it == comms_.end() ? nullptr : &it->second;
}

CommTally tallyOf(const Job& job, int group) {
  StragglerTally tally;
  CapturedCall call;
  if (group < 0 || std::size_t(group) >= job.groups.size()) return {};
  const Group& g = job.groups[std::size_t(group)];
  std::unordered_map<int, std::size_t> member;
  for (std::size_t i = 0; i < g.ranks.size(); ++i) member.emplace(g.ranks[i], i);
  call.ranks.resize(g.ranks.size());
  for (std::size_t i = 0; i < g.ranks.size(); ++i) call.ranks[i].worldRank = g.ranks[i], call.ranks[i].commRank = int(i);
  std::int64_t seq = -1;
  auto flush = [&] {
    if (seq >= 0) tally.add(call);
    for (CapturedRank& r : call.ranks) r.present = false, r.tEnter = 0;
  };
  for (const Call& c : job.calls) {  // sorted by group, p2p, seq: the group's collectives in a run
    if (c.group != group || c.p2p) continue;
    if (c.seq != seq) flush(), seq = c.seq;
    auto it = member.find(c.rank);
    if (it == member.end() || call.ranks[it->second].present) continue;
    call.ranks[it->second].present = true;
    call.ranks[it->second].tEnter = std::uint64_t(std::max<std::int64_t>(0, c.started));
  }
  flush();
  const CommTally* t = tally.comm(0);
  CommTally out = t ? *t : CommTally{};
  std::uint64_t id = 0;
  if (std::sscanf(g.id.c_str(), "0x%llx", reinterpret_cast<unsigned long long*>(&id)) == 1) out.commId = id;
  return out;
}

std::string spanText(std::int64_t ns) {
  char buf[48];
  const double v = double(ns < 0 ? -ns : ns);
  const char* sign = ns < 0 ? "-" : "";
  if (v < 1e3) std::snprintf(buf, sizeof buf, "%s%.0f ns", sign, v);
  else if (v < 1e6) std::snprintf(buf, sizeof buf, "%s%.3g µs", sign, v / 1e3);
  else if (v < 1e9) std::snprintf(buf, sizeof buf, "%s%.3g ms", sign, v / 1e6);
  else std::snprintf(buf, sizeof buf, "%s%.3g s", sign, v / 1e9);
  return buf;
}

Text stragglerText(const CommTally& t, std::size_t n) {
  if (t.calls == 0) {
    if (t.incomplete > 0) return say("arrived last: no call yet with every member's record ({0} without)", t.incomplete);
    return say("arrived last: no call yet");
  }
  Text list;
  const std::vector<CommTally::Straggler> top = t.top(n);
  for (std::size_t i = 0; i < top.size(); ++i) {
    const CommTally::Straggler& s = top[i];
    const long pct = std::lround(100.0 * s.share);
    const Text one = i == 0 ? say("{0} in {1} of {2} calls ({3}%; the others waited {4} for it in all)", rankList({s.rank}), s.count, t.calls,
                                  std::int64_t(pct), spanText(s.waitedNs))
                            : say("{0} in {1} ({2}%)", rankList({s.rank}), s.count, std::int64_t(pct));
    list = i == 0 ? one : say("{0}, {1}", list, one);
  }
  Text line = say("arrived last most often: {0}", list);
  if (t.ties > 0) line = say("{0}; {1} calls tied (each counted)", line, t.ties);
  if (t.incomplete > 0) line = say("{0}; {1} calls without every member's record not counted", line, t.incomplete);
  return line;
}

}  // namespace collviz::job
