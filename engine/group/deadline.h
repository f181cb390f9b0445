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

#include <algorithm>
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

// How often a rank on another host says it is alive while it runs
// (engine/worker/heartbeat.h): a quarter of the --deadline-ms window, within
// 100 ms .. 1 s, so a window with no beat at all is a rank that cannot speak.
inline std::chrono::milliseconds beatPeriod(std::chrono::milliseconds window) {
  return std::clamp(window / 4, std::chrono::milliseconds(100), std::chrono::milliseconds(1000));
}

// "1, 2, 5".
std::string rankList(const std::vector<int>& ranks);

// Watches the CPU time of a group's worker processes.
class ProgressWatch {
 public:
  struct Sample {
    long long ticks = -1;  // utime + stime, clock ticks; -1: unreadable (gone)
    char state = 0;
  };
  static Sample read(pid_t pid);
  explicit ProgressWatch(std::vector<pid_t> pids);
  // Sample every process; from now on worked(r) says whether rank r used CPU
  // since the previous sample.
  void sample();
  bool worked(int rank) const;
  bool stopped(int rank) const;  // stopped by a signal (state T) or a tracer (t)
  bool anyWorked(const std::vector<int>& ranks) const;

 private:
  std::vector<pid_t> pids_;
  std::vector<Sample> last_;
  std::vector<bool> worked_;
};

// Progress over a sliding window: sampled often (every window / 10, at
// least every 50 ms), a rank progressed when its threads ran
// (/proc/PID/task/*/schedstat, exact to the nanosecond where CPU ticks come
// in 10 ms steps) for at least 1 % of the last whole window and it is not
// stopped. A rank asleep or blocked on a peer wakes now and then (about
// 0.3 % of a core for Gloo's device thread); one at work gets its share of
// the cores, far more than 1 % even with many processes per core. The judgement so never depends on what a rank did long ago
// (a collective finished just after the start, then a sleep) nor on the
// step's size: a rank is judged every window, in whatever phase it is.
class ProgressWindow {
 public:
  using Clock = std::chrono::steady_clock;
  ProgressWindow(std::vector<pid_t> pids, std::chrono::milliseconds window);
  // Read every process if the sampling period has passed (cheap otherwise).
  void sample(Clock::time_point now);
  // A whole window has been watched.
  bool full(Clock::time_point now) const { return now - start_ >= window_; }
  bool progressed(int rank) const;
  // Nanoseconds rank's threads ran during the window; -1 when unreadable.
  long long ran(int rank) const;
  // The share of the window's samples in which the rank's main thread was
  // runnable (state R): a poller that yields its core at every turn is,
  // however little it runs on loaded cores; a rank asleep or blocked is not.
  double runnable(int rank) const;
  bool stopped(int rank) const;  // state T or t at the last sample
  std::chrono::milliseconds period() const { return period_; }

 private:
  struct Sample {
    long long ns = -1;  // ran; -1: unreadable (gone)
    char state = 0;
  };
  struct Row {
    Clock::time_point at;
    std::vector<Sample> s;
  };
  static Sample read(pid_t pid);
  std::vector<pid_t> pids_;
  std::chrono::milliseconds window_, period_;
  Clock::time_point start_;
  std::vector<Row> rows_;  // oldest first; one at or before now - window kept
};

}  // namespace collviz
