// The stand-in NCCL's profiler plugin host (tests only; a TEST DOUBLE of
// what NCCL's documentation says NCCL does with a profiler plugin): at a
// communicator's init it loads the plugin NCCL_PROFILER_PLUGIN names (a
// path or NAME for libnccl-profiler-NAME.so; unset: libnccl-profiler.so;
// "none": no plugin), takes ncclProfiler_v6 or else ncclProfiler_v5
// (only v4 and older where the stand-in plays an NCCL older than 2.28,
// which it does not implement: no plugin then), calls its init with the
// communicator's commHash, and gives it the events its activation mask asks
// for, of these: a Coll event per collective of count > 0 (started and
// stopped when the group is enqueued, numbered per communicator and
// function as NCCL's seqNumber, with an algorithm, protocol and channel
// count the stand-in chooses from the size: see nccl_profiler.cpp), and
// per channel a KernelCh event started and stopped around the stream work.
// Finalize at ncclCommDestroy / ncclCommAbort.
#pragma once

#include <cstdint>
#include <vector>

#include "tests/standin/nccl_ops.h"

namespace collviz::standin {

// A communicator made; `hash` its commHash (tap/nccl/comm_hash.h, as NCCL).
void profilerCommMade(const Comm& c, std::uint64_t hash);
// The commHash of the next ncclCommSplit of `parent` with `color`, as NCCL
// computes it (counts the split: call once per ncclCommSplit).
std::uint64_t profilerSplitHash(const Comm& parent, int color);
// The communicator is going: the plugin's finalize.
void profilerCommGone(const Comm& c);

// One fused group's events.
struct Profiled {
  struct Coll {
    void* handle = nullptr;
    int channels = 0;
    std::vector<void*> kernel;  // per channel, while its KernelCh event runs
  };
  std::vector<Coll> colls;
  void* context = nullptr;  // the plugin's, for the communicator
  bool kernels = false;     // KernelCh events asked for
};
// At enqueue: the Coll events started (numbered, with the stand-in's choices).
Profiled profilerGroup(const Comm& c, const std::vector<Op>& ops);
// After the group is queued: the Coll events stopped (enqueued).
void profilerEnqueued(Profiled& p);
// In the stream work, around the group's execution: KernelCh events.
void profilerKernelStart(Profiled& p);
void profilerKernelStop(Profiled& p);

}  // namespace collviz::standin
