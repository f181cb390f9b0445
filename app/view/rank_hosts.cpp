#include "app/view/rank_hosts.h"

#include <set>

#include "app/lang/lang.h"

namespace collviz::ui {

std::vector<std::string> rankHosts(const Snapshot& snap, int ranks) {
  if (ranks <= 0 || snap.places.empty()) return {};
  std::vector<std::string> hosts(static_cast<std::size_t>(ranks));
  for (const RankPlace& p : snap.places)
    if (p.rank >= 0 && p.rank < ranks) hosts[std::size_t(p.rank)] = p.host;
  std::set<std::string> distinct;
  for (const std::string& h : hosts) {
    if (h.empty()) return {};
    distinct.insert(h);
  }
  if (distinct.size() < 2) return {};
  return hosts;
}

std::vector<HostRun> hostRuns(const std::vector<std::string>& hosts) {
  std::vector<HostRun> runs;
  for (int r = 0; r < int(hosts.size()); ++r) {
    if (!runs.empty() && runs.back().host == hosts[std::size_t(r)]) runs.back().last = r;
    else runs.push_back({r, r, hosts[std::size_t(r)]});
  }
  return runs;
}

bool acrossHosts(const std::vector<std::string>& hosts, int from, int to) {
  const int n = int(hosts.size());
  if (from < 0 || to < 0 || from >= n || to >= n) return false;
  return hosts[std::size_t(from)] != hosts[std::size_t(to)];
}

std::string hostLabel(const std::string& host) { return trf("host {0}", {host}); }

std::string hostsLine(const std::vector<std::string>& hosts) {
  std::string line;
  for (const HostRun& run : hostRuns(hosts)) {
    const std::string ranks = run.first == run.last ? "R" + std::to_string(run.first)
                                                    : "R" + std::to_string(run.first) + "–R" + std::to_string(run.last);
    line += (line.empty() ? "" : " · ") + trf("{0} on {1}", {ranks, run.host});
  }
  return line;
}

}  // namespace collviz::ui
