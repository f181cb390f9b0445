#include "engine/deadline.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

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
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
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

}  // namespace collviz
