// `collviz devices --hosts` (issue 33): what each host offers, found by
// running `collviz-rank --probe` there through mpirun, as a run would start
// its ranks (the same path, launcher agent and interface). One mpirun per
// host, all at once: a host that cannot be reached does not hide the
// others, and each is named with what was found there (mpirun's own words
// when it could not start collviz-rank, or the other version it runs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/group/devices.h"
#include "engine/group/hosts.h"
#include "engine/text.h"

namespace collviz {

struct HostProbe {
  std::string host;      // as named in the hosts
  std::string hostname;  // what the host calls itself (its probe's)
  std::string version;   // its collviz-rank's collviz version ("" when none answered)
  std::string commit;    // and its git commit, when built from one
  std::optional<DeviceReport> report;  // its backends, when its probe answered
  Text problem;          // empty: usable; else why not, with what was found
  std::string log;       // mpirun's own messages (the last 4 KiB)
  bool ok() const { return problem.empty(); }
};

// Probes every host of `hosts` (slots do not matter: one process each).
// `timeout_ms` bounds each host's job.
std::vector<HostProbe> probeHosts(const HostSpec& hosts, const std::string& worker_path, int timeout_ms = 60000);

// What mpirun's messages say went wrong on `host` (pure, unit-tested): the
// executable missing there, or the host not reached; empty when neither.
Text mpirunFailure(const std::string& log, const std::string& host, const std::string& worker_path,
                   const std::string& agent);

// One report for NCCL across `probes`' hosts (pure, unit-tested): NCCL as
// the first host offers it (its version, caps, devices), available only
// when every host answered and offers it, else the first host that does not
// is named with its reason. Without probes, NCCL is unavailable.
DeviceReport combineHostReports(const std::vector<HostProbe>& probes);

// A probe's answer (its JSON) checked against this collviz: the report, the
// host's own name and version, and a problem when the version differs.
HostProbe readHostProbe(const std::string& host, const std::string& json);

}  // namespace collviz
