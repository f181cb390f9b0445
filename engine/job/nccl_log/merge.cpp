// Putting the members together: one communicator per commId, the files'
// disagreements named, wrong rings counted, and what the log does not say
// (nccl_log.h).
#include <algorithm>
#include <set>

#include "engine/job/nccl_log/state.h"

namespace collviz::nccl_log {

namespace {

std::string where(const Member& m) {
  return m.host + ":" + std::to_string(m.pid) + (m.ptr.empty() ? "" : " comm " + m.ptr);
}

// Is `r` a ring over nRanks ranks? (order checked for repeats when read)
bool ringFits(const Ring& r, int nRanks) {
  for (int v : r.order)
    if (nRanks > 0 && v >= nRanks) return false;
  if (!r.cut && nRanks > 0 && int(r.order.size()) != nRanks) {
    // 2.18-2.22 print at most 20 ranks, with no mark of the cut.
    if (!(r.order.size() == 20 && nRanks > 20)) return false;
  }
  return true;
}

void badSample(Reader::State& s, Log& log, const Member& m, std::int64_t line, Text why) {
  ++log.counts.bad;
  if (log.bad.size() < kMaxSamples) log.bad.push_back({m.file, line, std::move(why)});
}

}  // namespace

void merge(Reader::State& s, Log& log) {
  // Group by commId. Members with none (no Init COMPLETE line, as in an
  // excerpt) are put together when one process holds several ranks of the
  // same size of communicator, as ncclCommInitAll makes them (one process,
  // several GPUs): in the order their comm lines came, a rank seen again in
  // that process starts the next communicator. Anything else stands alone.
  std::map<std::string, int> byId;
  std::map<std::string, std::pair<int, std::set<int>>> byProcess;  // host:pid:nRanks -> generation, ranks seen
  for (std::size_t i = 0; i < s.members.size(); ++i) {
    Member& m = s.members[i];
    if (m.rank < 0 && m.rings.empty() && m.transports.empty() && m.trees.empty() && m.ringNeighbours.empty() && m.callsByOp.empty())
      continue;
    std::string id = !m.commId.empty() ? m.commId : "\x1f" + m.file + "\x1f" + where(m) + "\x1f" + std::to_string(i);
    if (m.commId.empty() && m.rank >= 0 && m.nRanks > 1 && m.pid >= 0) {
      const std::string process = m.file + "\x1f" + m.host + ":" + std::to_string(m.pid) + "\x1f" + std::to_string(m.nRanks);
      auto& [generation, seen] = byProcess[process];
      if (!seen.insert(m.rank).second) {
        ++generation;
        seen = {m.rank};
      }
      id = "\x1e" + process + "\x1f" + std::to_string(generation);
    }
    auto it = byId.find(id);
    int ci;
    if (it == byId.end()) {
      ci = int(log.comms.size());
      byId[id] = ci;
      log.comms.emplace_back();
      log.comms.back().commId = m.commId;
    } else {
      ci = it->second;
    }
    Comm& c = log.comms[std::size_t(ci)];
    // Rings: rank 0 prints them; out of range or wrong length is counted.
    std::vector<Ring> keep;
    for (std::size_t j = 0; j < m.rings.size(); ++j) {
      const Ring& r = m.rings[j];
      if (!ringFits(r, m.nRanks)) {
        badSample(s, log, m, s.ringLines[i][j],
                  say("channel {0}'s ring has {1} ranks, or a rank past them, and the communicator has {2}", r.channel,
                      int(r.order.size()), m.nRanks));
        continue;
      }
      if (r.order.size() == 20 && m.nRanks > 20 && !r.cut) {
        Ring cut = r;
        cut.cut = true;
        keep.push_back(cut);
      } else {
        keep.push_back(r);
      }
    }
    m.rings = std::move(keep);
    // Links to a rank past nRanks.
    if (m.nRanks > 0) {
      auto past = [&](const Transport& t) { return t.from >= m.nRanks || t.to >= m.nRanks || t.from < 0 || t.to < 0; };
      std::int64_t n = std::count_if(m.transports.begin(), m.transports.end(), past);
      if (n) {
        badSample(s, log, m, 0, say("{0} links name a rank outside 0 to {1} ({2})", n, m.nRanks - 1, where(m)));
        log.counts.bad += n - 1;
        m.transports.erase(std::remove_if(m.transports.begin(), m.transports.end(), past), m.transports.end());
      }
    }
    // The same rank from two places: the first is kept, the second named.
    auto same = std::find_if(c.members.begin(), c.members.end(), [&](const Member& o) { return o.rank == m.rank && m.rank >= 0; });
    if (same != c.members.end()) {
      c.disagreements.push_back(say("rank {0} is in {1} ({2}) and again in {3} ({4}): the first is kept", m.rank, same->file,
                                    where(*same), m.file, where(m)));
      continue;
    }
    if (c.nRanks < 0) c.nRanks = m.nRanks;
    else if (m.nRanks >= 0 && m.nRanks != c.nRanks)
      c.disagreements.push_back(say("{0} says {1} ranks, {2} says {3}", c.members.front().file, c.nRanks, m.file, m.nRanks));
    if (c.nNodes < 0) c.nNodes = m.nNodes;
    else if (m.nNodes >= 0 && m.nNodes != c.nNodes)
      c.disagreements.push_back(say("{0} says {1} nodes, {2} says {3}", c.members.front().file, c.nNodes, m.file, m.nNodes));
    if (c.collChannels < 0) c.collChannels = m.collChannels;
    else if (m.collChannels >= 0 && m.collChannels != c.collChannels)
      c.disagreements.push_back(
          say("{0} says {1} coll channels, {2} says {3}", c.members.front().file, c.collChannels, m.file, m.collChannels));
    for (const auto& [op, n] : m.callsByOp) c.callsByOp[op] += n;
    if (std::find(c.hosts.begin(), c.hosts.end(), m.host) == c.hosts.end()) c.hosts.push_back(m.host);
    c.members.push_back(m);
  }
  for (Comm& c : log.comms) {
    std::sort(c.members.begin(), c.members.end(), [](const Member& a, const Member& b) { return a.rank < b.rank; });
    for (const Member& m : c.members)
      if (!m.rings.empty() && c.rings.empty()) c.rings = m.rings;
    std::sort(c.rings.begin(), c.rings.end(), [](const Ring& a, const Ring& b) { return a.channel < b.channel; });
    // Every rank's own "Ring" line against rank 0's ring.
    for (const Member& m : c.members) {
      for (const auto& [ch, pn] : m.ringNeighbours) {
        auto r = std::find_if(c.rings.begin(), c.rings.end(), [&](const Ring& x) { return x.channel == ch; });
        if (r == c.rings.end() || r->cut) continue;
        auto at = std::find(r->order.begin(), r->order.end(), m.rank);
        if (at == r->order.end()) continue;
        std::size_t i = std::size_t(at - r->order.begin()), n = r->order.size();
        int next = r->order[(i + 1) % n], prev = r->order[(i + n - 1) % n];
        if (next != pn[1] || prev != pn[0])
          c.disagreements.push_back(say("channel {0}: rank 0's ring has {1} -> {2} -> {3}, rank {2}'s lines ({4}) say {5} -> {2} -> {6}", ch,
                                        prev, m.rank, next, m.file, pn[0], pn[1]));
      }
    }
    if (c.disagreements.size() > kMaxSamples) c.disagreements.resize(kMaxSamples);
  }
  // Which communicator each choice was for.
  for (std::size_t i = 0; i < log.choices.size(); ++i) {
    int m = s.choiceMember[i];
    if (m < 0) continue;
    const Member& mem = s.members[std::size_t(m)];
    for (std::size_t c = 0; c < log.comms.size(); ++c)
      for (const Member& o : log.comms[c].members)
        if (o.ptr == mem.ptr && o.host == mem.host && o.pid == mem.pid && o.file == mem.file) log.choices[i].comm = int(c);
  }

  // What the log does not say, and what would add it.
  bool rings = false, trees = false, links = false, calls = false, ringLinesSeen = false;
  for (const Comm& c : log.comms) {
    rings |= !c.rings.empty();
    calls |= !c.callsByOp.empty();
    for (const Member& m : c.members) {
      trees |= !m.trees.empty();
      links |= !m.transports.empty();
      ringLinesSeen |= !m.ringNeighbours.empty();
    }
  }
  if (log.comms.empty())
    log.missing.push_back(say("no communicator: no \"comm 0x... rank\" or \"Init COMPLETE\" line (NCCL_DEBUG_SUBSYS=INIT adds them)"));
  if (!rings && !ringLinesSeen)
    log.missing.push_back(say("no rings: rank 0's \"Channel NN/MM :\" lines are missing (NCCL_DEBUG_SUBSYS=INIT adds them; GRAPH adds every rank's \"Ring\" lines)"));
  if (!trees) log.missing.push_back(say("no trees: no \"Trees\" line (NCCL_DEBUG_SUBSYS=INIT adds them; GRAPH adds \"Tree\" lines)"));
  if (!links)
    log.missing.push_back(say("no transports: no \"Channel NN/c : a[d] -> b[d] via ...\" line (NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET add them; NCCL connects at the first collective, so a log that ends before it has none)"));
  if (log.choices.empty())
    log.missing.push_back(say("no tuning lines: which algorithm and protocol each collective used is not said (NCCL_DEBUG_SUBSYS=TUNING adds it, printed by rank 0)"));
  if (!calls) log.missing.push_back(say("no collective calls: no \"opCount\" line (NCCL_DEBUG_SUBSYS=COLL adds them)"));
  for (const Comm& c : log.comms) {
    if (c.nRanks <= 0 || int(c.members.size()) >= c.nRanks) continue;
    std::vector<int> absent;
    for (int r = 0; r < c.nRanks && absent.size() < 64; ++r)
      if (std::none_of(c.members.begin(), c.members.end(), [&](const Member& m) { return m.rank == r; })) absent.push_back(r);
    std::string list;
    for (std::size_t i = 0; i < absent.size(); ++i) list += (i ? " " : "") + std::to_string(absent[i]);
    if (int(absent.size()) < c.nRanks - int(c.members.size())) list += " ...";
    log.missing.push_back(say("communicator {0}: {1} of its {2} ranks have no lines here (ranks {3}): their own files are missing (NCCL_DEBUG_FILE=nccl.%h.%p writes one per process)",
                              c.commId.empty() ? std::string("?") : c.commId, c.nRanks - int(c.members.size()), c.nRanks, list));
  }
}

}  // namespace collviz::nccl_log
