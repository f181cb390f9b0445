// The stand-in NCCL's profiler plugin host (see nccl_profiler.h), a test
// double. Its choices for a collective of `bytes` per rank (the call's
// count times its type's size) are its own, made so that tests can tell
// them apart, and say nothing of what NCCL would choose on a GPU:
//   algorithm  "TREE" for an ncclAllReduce of at most 64 KiB, else "RING"
//   protocol   "LL" up to 4 KiB, "LL128" up to 256 KiB, else "SIMPLE"
//   channels   bytes / 64 KiB, at least 1 and at most 4
// The KernelCh events' pTimer is CLOCK_MONOTONIC in ns (NCCL's is the
// GPU's globaltimer), and they come from the stream's thread (NCCL's from
// its proxy thread).
#include "tests/standin/nccl_profiler.h"

#include <dlfcn.h>
#include <strings.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "tap/nccl/comm_hash.h"
#include "tap/nccl/profiler_api.h"
#include "tests/standin/elements.h"

namespace collviz::standin {
namespace {

using tap::nccl::EventDescr;
using tap::nccl::EventStateArgs;
using tap::nccl::Profiler;

constexpr int kFuncs = 8;  // the collective OpKinds, all_reduce .. scatter

struct CommState {
  void* context = nullptr;
  std::uint64_t hash = 0;
  int children = 0;
  std::uint64_t seq[kFuncs] = {};
};

// Never destroyed: stream threads may outlive main.
std::mutex& g_mu = *new std::mutex;
std::map<const Comm*, CommState>& g_comms = *new std::map<const Comm*, CommState>;
Profiler* g_plugin = nullptr;
bool g_loaded = false;
int g_mask = 0;  // the plugin's activation mask (NCCL's: one for the process)

std::uint64_t monotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::uint64_t(t.tv_sec) * 1000000000u + std::uint64_t(t.tv_nsec);
}

void logger(int, unsigned long, const char*, int, const char*, ...) {}

// The library as NCCL looks for it (g_mu held).
void load(int version) {
  if (g_loaded) return;
  g_loaded = true;
  const char* name = std::getenv("NCCL_PROFILER_PLUGIN");
  if (name && strcasecmp(name, "none") == 0) return;
  const std::string given = name && *name ? name : "libnccl-profiler.so";
  void* lib = dlopen(given.c_str(), RTLD_NOW | RTLD_LOCAL);
  const bool bare = given.find('/') == std::string::npos &&
                    !(given.rfind("lib", 0) == 0 && given.size() >= 3 && given.compare(given.size() - 3, 3, ".so") == 0);
  if (!lib && name && *name && bare) lib = dlopen(("libnccl-profiler-" + given + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  // NCCL 2.28 asks for v5 (and older), 2.29 and later for v6 first. The
  // stand-in implements neither v4 nor older: as an older NCCL it loads none.
  for (const char* sym : {"ncclProfiler_v6", "ncclProfiler_v5"}) {
    if (version < 22900 && std::strcmp(sym, "ncclProfiler_v6") == 0) continue;
    if (version < 22800) break;
    if ((g_plugin = static_cast<Profiler*>(dlsym(lib, sym)))) {
      say(std::string("stand-in NCCL: profiler plugin ") + given + " loaded (" + sym + ", \"" +
          (g_plugin->name ? g_plugin->name : "") + "\")");
      return;
    }
  }
  say("stand-in NCCL: profiler plugin " + given + " has no ncclProfiler_v6 or _v5 this NCCL takes: not used");
}

const char* funcName(OpKind k) {
  switch (k) {
    case OpKind::all_reduce: return "AllReduce";
    case OpKind::broadcast: return "Broadcast";
    case OpKind::reduce: return "Reduce";
    case OpKind::all_gather: return "AllGather";
    case OpKind::reduce_scatter: return "ReduceScatter";
    case OpKind::all_to_all: return "AlltoAll";
    case OpKind::gather: return "Gather";
    case OpKind::scatter: return "Scatter";
    default: return nullptr;
  }
}

}  // namespace

void profilerCommMade(const Comm& c, std::uint64_t hash) {
  std::lock_guard<std::mutex> lock(g_mu);
  load(c.version);
  CommState& s = g_comms[&c];
  s.hash = hash;
  if (!g_plugin) return;
  if (g_plugin->init(&s.context, hash, &g_mask, "", 1, c.nranks, c.rank, logger) != 0) s.context = nullptr;
}

std::uint64_t profilerSplitHash(const Comm& parent, int color) {
  std::lock_guard<std::mutex> lock(g_mu);
  CommState& s = g_comms[&parent];
  return tap::nccl::commHashOfSplit(s.hash, ++s.children, color);
}

void profilerCommGone(const Comm& c) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_comms.find(&c);
  if (it == g_comms.end()) return;
  if (g_plugin && it->second.context) g_plugin->finalize(it->second.context);
  g_comms.erase(it);
}

Profiled profilerGroup(const Comm& c, const std::vector<Op>& ops) {
  Profiled p;
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_comms.find(&c);
  if (!g_plugin || it == g_comms.end() || !it->second.context || !(g_mask & tap::nccl::kProfileColl)) return p;
  p.kernels = g_mask & tap::nccl::kProfileKernelCh;
  p.context = it->second.context;
  for (const Op& op : ops) {
    const char* func = funcName(op.kind);
    if (!func || op.count == 0) continue;  // NCCL discards a collective of count 0: no number, no event
    const std::size_t bytes = op.count * typeSize(op.dtype);
    EventDescr d{};
    d.type = tap::nccl::kProfileColl;
    d.rank = c.rank;
    d.coll.seqNumber = it->second.seq[int(op.kind)]++;
    d.coll.func = func;
    d.coll.sendBuff = op.send;
    d.coll.recvBuff = op.recv;
    d.coll.count = op.count;
    d.coll.root = op.root;
    d.coll.datatype = "";
    d.coll.nChannels = std::uint8_t(std::clamp<std::size_t>(bytes >> 16, 1, 4));
    d.coll.nWarps = 16;
    d.coll.algo = op.kind == OpKind::all_reduce && bytes <= (64u << 10) ? "TREE" : "RING";
    d.coll.proto = bytes <= (4u << 10) ? "LL" : bytes <= (256u << 10) ? "LL128" : "SIMPLE";
    Profiled::Coll k;
    g_plugin->startEvent(it->second.context, &k.handle, &d);
    k.channels = d.coll.nChannels;
    k.kernel.assign(std::size_t(k.channels), nullptr);
    p.colls.push_back(std::move(k));
  }
  return p;
}

void profilerEnqueued(Profiled& p) {
  if (p.colls.empty()) return;
  for (Profiled::Coll& k : p.colls) g_plugin->stopEvent(k.handle);
}

void profilerKernelStart(Profiled& p) {
  if (!p.kernels) return;
  for (Profiled::Coll& k : p.colls)
    for (int ch = 0; ch < k.channels; ++ch) {
      EventDescr d{};
      d.type = tap::nccl::kProfileKernelCh;
      d.parentObj = k.handle;
      d.kernelCh.channelId = std::uint8_t(ch);
      d.kernelCh.pTimer = monotonicNs();
      g_plugin->startEvent(p.context, &k.kernel[std::size_t(ch)], &d);
    }
}

void profilerKernelStop(Profiled& p) {
  if (!p.kernels) return;
  for (Profiled::Coll& k : p.colls)
    for (void*& h : k.kernel) {
      EventStateArgs a{};
      a.kernelCh.pTimer = monotonicNs();
      g_plugin->recordEventState(h, tap::nccl::kStateKernelChStop, &a);
      g_plugin->stopEvent(h);
      h = nullptr;
    }
}

}  // namespace collviz::standin
