#include "engine/group/deadline.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <dirent.h>
#include <unistd.h>

#include "engine/group/proc_file.h"

namespace collviz {

std::chrono::milliseconds opDeadline(const OpSpec& s, std::chrono::milliseconds base) {
  double bytes = 0;
  for (int r = 0; r < s.ranks; ++r) bytes += double(inputBytes(s, r)) + double(outputBytes(s, r));
  return base + std::chrono::milliseconds(
                    std::llround(bytes / kSlowestBytesPerSecond * 1000.0));
}

long long suggestedDeadlineMs(std::chrono::milliseconds per_op) {
  return (2 * per_op.count() + 999) / 1000 * 1000;
}

std::string rankList(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

ProgressWatch::ProgressWatch(std::vector<pid_t> pids)
    : pids_(std::move(pids)), last_(pids_.size()), worked_(pids_.size(), false) {
  for (std::size_t i = 0; i < pids_.size(); ++i) last_[i] = read(pids_[i]);
}

ProgressWatch::Sample ProgressWatch::read(pid_t pid) {
  Sample s;
  if (pid <= 0) return s;
  const std::string stat = readProcFile(pid, "stat");
  const auto rp = stat.rfind(')');
  if (rp == std::string::npos) return s;
  // After the command: state, then fields 4..13, then utime (14), stime (15).
  std::istringstream in(stat.substr(rp + 2));
  std::string skip;
  long long utime = 0, stime = 0;
  in >> s.state;
  for (int i = 4; i <= 13; ++i) in >> skip;
  in >> utime >> stime;
  if (in) s.ticks = utime + stime;
  return s;
}

void ProgressWatch::sample() {
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    const Sample now = read(pids_[i]);
    worked_[i] = now.ticks >= 0 && last_[i].ticks >= 0 && now.ticks > last_[i].ticks &&
                 now.state != 'T' && now.state != 't';
    last_[i] = now;
  }
}

bool ProgressWatch::worked(int rank) const { return worked_.at(std::size_t(rank)); }

bool ProgressWatch::stopped(int rank) const {
  const char st = last_.at(std::size_t(rank)).state;
  return st == 'T' || st == 't';
}

bool ProgressWatch::anyWorked(const std::vector<int>& ranks) const {
  return std::any_of(ranks.begin(), ranks.end(), [&](int r) { return worked(r); });
}

namespace {

// Nanoseconds the process's threads ran, from /proc/PID/task/*/schedstat
// (exact, where CPU ticks come in 10 ms steps); -1 when unreadable. Time
// waiting for a core is left out: Gloo's device thread wakes about 100 times
// a second, and on loaded cores each wake-up waits far longer than it runs.
// A rank asleep, blocked on a peer or stopped adds about 0.3 % of a core.
long long activityNs(pid_t pid) {
  if (pid <= 0) return -1;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return -1;
  long long sum = 0;
  bool any = false;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::istringstream f(readProcFile(pid, std::string("task/") + e->d_name + "/schedstat"));
    long long run = 0;
    if (f >> run) {
      sum += run;
      any = true;
    }
  }
  ::closedir(d);
  return any ? sum : -1;
}

}  // namespace

ProgressWindow::ProgressWindow(std::vector<pid_t> pids, std::chrono::milliseconds window)
    : pids_(std::move(pids)),
      window_(window),
      period_(std::clamp(window / 10, std::chrono::milliseconds(50), std::chrono::milliseconds(500))),
      start_(Clock::now()) {
  rows_.push_back({start_, {}});
  for (pid_t p : pids_) rows_.back().s.push_back(read(p));
}

ProgressWindow::Sample ProgressWindow::read(pid_t pid) {
  const ProgressWatch::Sample st = ProgressWatch::read(pid);
  Sample s{activityNs(pid), st.state};
  // Without schedstat: CPU ticks (coarser, and blind to waiting for a core).
  if (s.ns < 0 && st.ticks >= 0) s.ns = st.ticks * (1000000000LL / std::max(1L, ::sysconf(_SC_CLK_TCK)));
  return s;
}

void ProgressWindow::sample(Clock::time_point now) {
  if (now - rows_.back().at < period_) return;
  Row row{now, {}};
  for (pid_t p : pids_) row.s.push_back(read(p));
  rows_.push_back(std::move(row));
  // Keep exactly one row at or before now - window (the window's start).
  while (rows_.size() > 2 && rows_[1].at <= now - window_) rows_.erase(rows_.begin());
}

long long ProgressWindow::ran(int rank) const {
  const auto r = std::size_t(rank);
  const Sample& now = rows_.back().s.at(r);
  const Sample& then = rows_.front().s.at(r);
  return now.ns < 0 || then.ns < 0 ? -1 : now.ns - then.ns;
}

double ProgressWindow::runnable(int rank) const {
  const auto r = std::size_t(rank);
  int runs = 0, all = 0;
  for (std::size_t i = 1; i < rows_.size(); ++i, ++all) runs += rows_[i].s.at(r).state == 'R';
  return all ? double(runs) / all : 0.0;
}

bool ProgressWindow::progressed(int rank) const {
  if (stopped(rank)) return false;
  const long long span_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(rows_.back().at - rows_.front().at).count();
  return ran(rank) >= std::max(1000000LL, span_ns / 100);  // 1 % of the window, at least 1 ms
}

bool ProgressWindow::stopped(int rank) const {
  const char st = rows_.back().s.at(std::size_t(rank)).state;
  return st == 'T' || st == 't';
}

}  // namespace collviz
