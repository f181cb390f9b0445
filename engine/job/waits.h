// Who waits for whom (waits.cpp): the stuck collectives the analysis
// (analysis.cpp) found, as a graph, and the verdict it gives. Internal to
// engine/job/.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/job/job.h"

namespace collviz::job::waits {

// A stuck collective: where its waiting ranks wait.
struct Candidate {
  std::int64_t time = 0;
  Finding f;
  std::vector<int> unknown;  // members without a file
  const Call* first = nullptr;  // a waiting rank's call of it (its name as called)
};

inline bool fromDump(const Job& job, const Call& c) {  // a file of every call of one rank (a dump, a capture)
  return c.source >= 0 && std::size_t(c.source) < job.sources.size() && perRank(job.sources[std::size_t(c.source)].format);
}

inline bool fromCapture(const Job& job, const Call& c) {
  return c.source >= 0 && std::size_t(c.source) < job.sources.size() && job.sources[std::size_t(c.source)].format == Format::capture;
}

// The verdict: the ranks the waiting leads to and the cycles (deadlocks),
// their findings put first in `a` (candidates sorted by time); where none,
// the first mismatch, else `allWait`. nowNs: "now" (0: the job's newest time).
void verdict(const Job& job, std::int64_t nowNs, std::vector<Candidate>& candidates, const std::optional<Candidate>& allWait,
             Analysis& a);

}  // namespace collviz::job::waits
