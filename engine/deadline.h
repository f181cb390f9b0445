// How long a step may take, and whether a silent rank is hung or working.
//
// A step's deadline scales with the bytes it moves: the configured deadline
// (--deadline-ms) plus the bytes every rank reads and writes at a rate far
// below what 2 cores reach, so a valid big op is never called hung. A silent
// rank is judged every configured deadline by the CPU time its process used
// since the last look (/proc/PID/stat): a group in which no silent rank used
// any CPU for a whole window is hung (a stopped process is named as such);
// one that keeps working is only "slow" once the scaled deadline of every
// repetition has passed, with a suggested --deadline-ms.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "engine/spec.h"

namespace collviz {

// Bytes per second of input plus output, summed over ranks, below which a
// step counts as too slow (about 1/20 of what Gloo does on 2 shared cores).
inline constexpr double kSlowestBytesPerSecond = 32.0 * 1024 * 1024;

// `base` plus the time the step's bytes take at kSlowestBytesPerSecond.
std::chrono::milliseconds opDeadline(const OpSpec& s, std::chrono::milliseconds base);

// A --deadline-ms that would have left room for `per_op`, rounded up to
// whole seconds with a margin of 2x.
long long suggestedDeadlineMs(std::chrono::milliseconds per_op);

// "1, 2, 5".
std::string rankList(const std::vector<int>& ranks);

// Watches the CPU time of a group's worker processes.
class ProgressWatch {
 public:
  explicit ProgressWatch(std::vector<pid_t> pids);
  // Sample every process; from now on worked(r) says whether rank r used CPU
  // since the previous sample.
  void sample();
  bool worked(int rank) const;
  bool stopped(int rank) const;  // stopped by a signal (state T) or a tracer (t)
  bool anyWorked(const std::vector<int>& ranks) const;

 private:
  struct Sample {
    long long ticks = -1;
    char state = 0;
  };
  static Sample read(pid_t pid);
  std::vector<pid_t> pids_;
  std::vector<Sample> last_;
  std::vector<bool> worked_;
};

}  // namespace collviz
