#include "engine/worker/op_binding.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>

namespace collviz {

std::vector<int> parseCpuList(const std::string& text) {
  std::vector<int> out;
  std::size_t at = 0;
  const std::string t = text.substr(0, text.find_last_not_of(" \n") + 1);
  if (t.empty()) return out;
  while (at <= t.size()) {
    const std::size_t comma = std::min(t.find(',', at), t.size());
    const std::string part = t.substr(at, comma - at);
    const std::size_t dash = part.find('-');
    char* end = nullptr;
    const long a = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || end == part.c_str() || a < 0) return {};
    long b = a;
    if (dash != std::string::npos) {
      const char* second = part.c_str() + dash + 1;
      b = std::strtol(second, &end, 10);
      if (end == second || *end || b < a || b - a > 65536) return {};
    } else if (*end) {
      return {};
    }
    for (long c = a; c <= b; ++c) out.push_back(int(c));
    at = comma + 1;
  }
  return out;
}

OpBinding::OpBinding(std::vector<int> cpus, std::vector<int> core_of, int local_rank, int local_size)
    : cpus_(std::move(cpus)) {
  // Cores in the order of their first CPU; rank r on core r mod cores.
  std::vector<int> order;
  std::map<int, std::vector<int>> members;
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    const int core = i < core_of.size() ? core_of[i] : cpus_[i];
    if (!members.count(core)) order.push_back(core);
    members[core].push_back(cpus_[i]);
  }
  cores_ = int(order.size());
  // Nothing known of the CPUs: the rank runs where the kernel puts it, and
  // the notes say so rather than a placement "mod 0".
  if (cpus_.empty()) error_ = say("cannot bind: no CPU of this process could be read");
  for (int core : order) core_cpus_.push_back(members[core]);
  local_rank_ = local_rank, local_size_ = local_size;
  own_core_always_ = local_size <= cores_;
}

std::vector<int> usableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::string cpuListText(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

Text cpuDevicesLine(bool mpi) {
  const unsigned all = std::thread::hardware_concurrency();
  const std::vector<int> mine = usableCpus();
  if (mine.empty() || mine.size() >= all)
    return mpi ? say("CPU ({0} cores), one process per rank, one MPI job started by mpirun", all)
               : say("CPU ({0} cores), one process per rank", all);
  return mpi ? say("CPU ({0} of {1} cores usable: CPU {2}), one process per rank, one MPI job started by mpirun",
                   mine.size(), all, cpuListText(mine))
             : say("CPU ({0} of {1} cores usable: CPU {2}), one process per rank", mine.size(), all,
                   cpuListText(mine));
}

OpBinding OpBinding::ofThisProcess(int rank, int size) {
  std::vector<int> cpus = usableCpus(), core_of;
  for (int c : cpus) {
    int core = c;
    for (const char* file : {"core_cpus_list", "thread_siblings_list"}) {
      std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/" + file);
      std::string line;
      if (!std::getline(f, line)) continue;
      const std::vector<int> siblings = parseCpuList(line);
      if (!siblings.empty()) core = *std::min_element(siblings.begin(), siblings.end());
      break;
    }
    core_of.push_back(core);
  }
  auto envInt = [](const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : fallback;
  };
  return OpBinding(std::move(cpus), std::move(core_of), envInt("OMPI_COMM_WORLD_LOCAL_RANK", rank),
                   envInt("OMPI_COMM_WORLD_LOCAL_SIZE", size));
}

std::vector<int> OpBinding::cpusFor(Op op, int root) const {
  if (cores_ == 0 || local_rank_ < 0 || local_size_ <= 0) return cpus_;
  const MpiPlacement place_by = collective(op).mpi_placement;  // the table's column
  if (own_core_always_ || place_by == MpiPlacement::core_each) return core_cpus_[std::size_t(local_rank_ % cores_)];
  if (place_by == MpiPlacement::chain_from_root) {
    // Counted from the root along the chain: neighbours share a core, and
    // the ranks that copy at once (every other one) sit on different cores.
    const int place = ((local_rank_ - root) % local_size_ + local_size_) % local_size_;
    return core_cpus_[std::size_t(place * cores_ / local_size_)];
  }
  return cpus_;
}

void OpBinding::apply(Op op, int root) {
  if (!error_.empty() || cpus_.empty()) return;
  const std::vector<int> want = cpusFor(op, root);
  if (want == bound_) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : want) CPU_SET(c, &set);
  // Every thread: Open MPI's own (its progress and PMIx threads) as well.
  DIR* d = ::opendir("/proc/self/task");
  if (!d) {
    error_ = say("cannot bind: /proc/self/task: {0}", std::strerror(errno));
    return;
  }
  while (const dirent* e = ::readdir(d)) {
    const pid_t tid = pid_t(std::atoi(e->d_name));
    if (tid <= 0) continue;
    // A thread that ended since the listing is no refusal.
    if (::sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH) {
      error_ = say("cannot bind: sched_setaffinity: {0}", std::strerror(errno));
      break;
    }
  }
  ::closedir(d);
  bound_ = error_.empty() ? want : std::vector<int>{};
}

}  // namespace collviz
