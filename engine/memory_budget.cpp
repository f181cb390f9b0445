#include "engine/memory_budget.h"

#include "engine/dtype.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace collviz {

namespace {

// A field of /proc/self/status or /proc/meminfo, in kB.
std::optional<std::size_t> kbField(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream v(line.substr(key.size() + 1));
      std::size_t kb = 0;
      if (v >> kb) return kb * 1024;
    }
  return std::nullopt;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(std::size_t(1) << 30));
  return buf;
}

}  // namespace

std::optional<MemoryLimit> memoryLimit() {
  std::optional<MemoryLimit> best;
  if (auto avail = kbField("/proc/meminfo", "MemAvailable"))
    best = MemoryLimit{*avail, "available host memory (MemAvailable)"};
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const std::size_t used = kbField("/proc/self/status", "VmSize").value_or(0);
    const std::size_t left = as.rlim_cur > used ? as.rlim_cur - used : 0;
    if (!best || left < best->bytes) best = MemoryLimit{left, "the address space left under ulimit -v"};
  }
  return best;
}

double runMemoryBytes(const OpSpec& s, int steps, bool json) {
  double in = 0, out = 0;
  for (int r = 0; r < s.ranks; ++r) {
    in += double(inputBytes(s, r));
    out += double(outputBytes(s, r));
  }
  // inputs: cache + the step's copy + shared memory; outputs: snapshot +
  // shared memory + verification; then per extra step of the program.
  double need = (3 * in + 3 * out) * std::max(1, steps);
  // A JSON value is a 16-byte node plus its text, and freeing a tree needs
  // as much again.
  constexpr double kJsonBytesPerValue = 80;
  if (json) need += (in + out) / double(dtypeSize(s.dtype)) * kJsonBytesPerValue * std::max(1, steps);
  return need;
}

Status checkRunMemory(const OpSpec& s, int steps, bool json) {
  const auto limit = memoryLimit();
  if (!limit) return {};
  const double need = runMemoryBytes(s, steps, json);
  // Leave room for the program itself and the workers' own buffers.
  const double room = double(limit->bytes) * 0.8;
  if (need <= room) return {};
  OpSpec one = s;
  one.elems = 1;
  const double per_elem = runMemoryBytes(one, steps, json);
  const long long fits = static_cast<long long>(std::floor(room / per_elem));
  return Error{"elems = " + std::to_string(s.elems) + " needs about " + gib(need) +
               " of memory (inputs, outputs, shared memory and checks" +
               (json ? std::string(", and the JSON report") : std::string()) + ") but " + limit->what +
               " is " + gib(double(limit->bytes)) + "; " +
               (fits >= 1 ? "the largest that fits is --elems " + std::to_string(fits)
                          : "not even --elems 1 fits")};
}

}  // namespace collviz
