// Ranks on several hosts (issue 33) in the picture: each rank's host from a
// snapshot's places, the runs of consecutive ranks on one host that the
// diagrams group under the host's name, whether a message crosses hosts,
// and the status's "R0–R1 on a · R2–R3 on b". Pure.
#pragma once

#include <string>
#include <vector>

#include "engine/snapshot.h"

namespace collviz::ui {

// One host name per rank (rank order) from `snap.places`; empty when the
// ranks ran on one host, or a rank's place is missing: the picture shows
// hosts only when there are two or more.
std::vector<std::string> rankHosts(const Snapshot& snap, int ranks);

// Consecutive ranks on one host (--map-by slot: one run per host; --map-by
// node: one rank each).
struct HostRun {
  int first = 0, last = 0;
  std::string host;
};
std::vector<HostRun> hostRuns(const std::vector<std::string>& hosts);

// Does a message from `from` to `to` cross hosts? False without hosts.
bool acrossHosts(const std::vector<std::string>& hosts, int from, int to);

// "host a" (主机 a): a group's label.
std::string hostLabel(const std::string& host);

// "R0–R1 on a · R2–R3 on b"; "" without hosts.
std::string hostsLine(const std::vector<std::string>& hosts);

}  // namespace collviz::ui
