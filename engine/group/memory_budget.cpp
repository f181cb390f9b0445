#include "engine/group/memory_budget.h"

#include "engine/algo/msccl/msccl.h"
#include "engine/algo/round_check.h"

#include "engine/dtype.h"
#include "engine/group/placement.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
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
    best = MemoryLimit{*avail, say("available host memory (MemAvailable)")};
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const std::size_t used = kbField("/proc/self/status", "VmSize").value_or(0);
    const std::size_t left = as.rlim_cur > used ? as.rlim_cur - used : 0;
    if (!best || left < best->bytes) best = MemoryLimit{left, say("the address space left under ulimit -v")};
  }
  return best;
}

double runMemoryBytes(const OpSpec& s, int steps, bool json, bool keep_all) {
  double in = 0, out = 0;
  for (int r = 0; r < s.ranks; ++r) {
    in += double(inputBytes(s, r));
    out += double(outputBytes(s, r));
  }
  const double program = (in + out) * std::max(1, steps);
  // Shared memory: every op of the program has its own inputs and outputs,
  // checked where the workers wrote them. The workers' own working copies
  // (Gloo's scratch copy of an input, page-locked staging) take up to one
  // more op's worth. The snapshot keeps the ends of big blocks, or, asked
  // for every value (--values all), a copy of every buffer.
  double need = program + (in + out) + (keep_all ? program : 0);
  // A JSON value is a 16-byte node plus its text, and freeing a tree needs
  // as much again.
  constexpr double kJsonBytesPerValue = 80;
  if (json) need += (in + out) / double(dtypeSize(s.dtype)) * kJsonBytesPerValue * std::max(1, steps);
  return need;
}

namespace {

// `need(elems)` grows with elems (linearly, but for a bounded cache): the
// largest elems whose need fits `room`, by bisection.
template <typename Need>
long long largestFitting(long long elems, double room, Need need) {
  long long lo = 0, hi = std::max(1LL, elems);
  while (lo < hi) {
    const long long mid = lo + (hi - lo + 1) / 2;
    if (need(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// "the largest that fits is --elems N" or `none`.
Text largestFits(long long fits, Text none) {
  return fits >= 1 ? say("the largest that fits is --elems {0}", fits) : none;
}

Status refuse(const OpSpec& s, double need, const MemoryLimit& limit, long long fits, const Text& what,
              Text none = say("not even --elems 1 fits")) {
  return Error{say("elems = {0} needs about {1} of memory ({2}) but {3} is {4}; {5}", s.elems, gib(need), what,
                   limit.what, gib(double(limit.bytes)), largestFits(fits, std::move(none)))};
}

}  // namespace

Status checkRunMemory(const OpSpec& s, int steps, bool json, bool keep_all) {
  const auto limit = memoryLimit();
  if (!limit) return {};
  const double need = runMemoryBytes(s, steps, json, keep_all);
  // Leave room for the program itself and the workers' own buffers.
  const double room = double(limit->bytes) * 0.8;
  if (need <= room) return {};
  OpSpec one = s;
  one.elems = 1;
  const double per_elem = runMemoryBytes(one, steps, json, keep_all);
  const long long fits = static_cast<long long>(std::floor(room / per_elem));
  return refuse(s, need, *limit, fits,
                json ? say("inputs, outputs, shared memory and checks, and the JSON report")
                     : say("inputs, outputs, shared memory and checks"));
}

double roundsMemoryBytes(const OpSpec& s, int slots, bool every_round, bool keep_all, int parts) {
  double in = 0, out = 0;
  for (int r = 0; r < s.ranks; ++r) {
    in += double(inputBytes(s, r));
    out += double(outputBytes(s, r));
  }
  const double work = double(s.ranks) * double(std::max(1, slots)) * double(s.elems) / double(std::max(1, parts)) *
                      double(dtypeSize(s.dtype));
  double need = (in + work + out)   // shared memory: inputs, working buffers, native outputs
                + in                // the engine's inputs
                + 2 * work + out;   // a round read back, the last round, the output
  if (every_round) {
    need += in / double(dtypeSize(s.dtype)) * 8;  // inputs as doubles for the round checks
    need += std::min(algo::kExpectedCacheBytes, double(s.ranks) * work / double(dtypeSize(s.dtype)) * 8);
  }
  if (keep_all) need += work * (every_round ? 2 : 1);
  return need;
}

Status checkRoundsMemory(const OpSpec& s, int slots, bool every_round, bool keep_all, int parts) {
  const auto limit = memoryLimit();
  if (!limit) return {};
  const double room = double(limit->bytes) * 0.8;
  const double need = roundsMemoryBytes(s, slots, every_round, keep_all, parts);
  if (need <= room) return {};
  OpSpec t = s;
  long long fits = largestFitting(s.elems, room, [&](long long e) {
    t.elems = e;
    return roundsMemoryBytes(t, slots, every_round, keep_all, parts);
  });
  parts = std::max(1, parts);
  fits -= fits % parts;  // a suggestion the algorithm takes too
  if (fits >= 1) {
    t.elems = fits;
    if (roundsMemoryBytes(t, slots, every_round, keep_all, parts) > room) fits = 0;
  }
  return refuse(s, need, *limit, fits, say("inputs, working buffers of every round, shared memory and checks"),
                parts > 1 ? say("not even --elems {0} (the algorithm's {0} chunks per block) fits", parts)
                          : say("not even --elems 1 fits"));
}

std::int64_t mscclChunkBudget() {
  const auto limit = memoryLimit();
  if (!limit) return algo::kMscclMaxChunks;
  const double room = double(limit->bytes) * 0.8;
  const double fits = room / double(algo::kMscclBytesPerChunk * kMaxRanks);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(algo::kMscclMaxChunks, std::int64_t(fits)));
}

double gpuRankBytes(const std::vector<OpSpec>& steps, int rank, int work_blocks) {
  std::size_t in = 0, out = 0;
  for (const OpSpec& s : steps) {
    in = std::max(in, inputBytes(s, rank));
    out = std::max(out, outputBytes(s, rank));
  }
  double work = 0;
  if (!steps.empty())
    work = double(std::max(0, work_blocks)) * double(steps[0].elems) *
           double(dtypeSize(steps[0].dtype));
  return double(in) + double(out) + work;
}

Status checkGpuMemory(const std::vector<OpSpec>& steps, int work_blocks,
                      const std::vector<int>& rank_gpu, const std::vector<GpuMemory>& gpus) {
  if (steps.empty()) return {};
  std::vector<OpSpec> one = steps;  // the same program at --elems 1
  for (OpSpec& s : one) s.elems = 1;
  // The buffers grow linearly with --elems, so the GPU that fits the fewest
  // elements is the one that refuses, if any does.
  const GpuMemory* tightest = nullptr;
  int tight_ranks = 0;
  double tight_need = 0;
  long long tight_fits = std::numeric_limits<long long>::max();
  for (const GpuMemory& g : gpus) {
    if (!g.free) continue;
    int ranks = 0;
    double buffers = 0, per_elem = 0;
    for (std::size_t r = 0; r < rank_gpu.size(); ++r) {
      if (rank_gpu[r] != g.gpu) continue;
      ++ranks;
      buffers += gpuRankBytes(steps, int(r), work_blocks);
      per_elem += gpuRankBytes(one, int(r), work_blocks);
    }
    if (ranks == 0) continue;
    const double overhead = double(ranks) * double(kGpuRankOverheadBytes);
    const double room = double(*g.free) - overhead;
    const long long fits = room < per_elem ? 0 : static_cast<long long>(std::floor(room / per_elem));
    if (fits < tight_fits) {
      tightest = &g;
      tight_ranks = ranks;
      tight_need = buffers + overhead;
      tight_fits = fits;
    }
  }
  if (!tightest || steps[0].elems <= tight_fits) return {};
  const GpuMemory& g = *tightest;
  const std::string gpu = "GPU " + std::to_string(g.gpu) + (g.name.empty() ? "" : " (" + g.name + ")");
  const Text buffers =
      work_blocks > 0 ? say("input, output and working buffers") : say("input and output buffers");
  return Error{say("elems = {0} needs about {1} on {2} ({3} rank(s) on it: their {4}, and about {5} each for a CUDA context and NCCL) but it has {6} free of {7}; {8}",
                   steps[0].elems, gib(tight_need), gpu, tight_ranks, buffers,
                   gib(double(kGpuRankOverheadBytes)), gib(double(*g.free)), gib(double(g.total)),
                   largestFits(tight_fits, say("not even --elems 1 fits (use fewer ranks per GPU)")))};
}

Status checkNcclMemory(const std::vector<OpSpec>& steps, int work_blocks,
                       const BackendStatus& nccl) {
  if (steps.empty() || nccl.gpu_memory.empty()) return {};
  std::vector<int> rank_gpu;
  for (const RankPlacement& p :
       placeRanks(steps[0].ranks, BackendKind::nccl, nccl.gpus, nccl.version_code))
    rank_gpu.push_back(p.gpu);
  return checkGpuMemory(steps, work_blocks, rank_gpu, nccl.gpu_memory);
}

}  // namespace collviz
