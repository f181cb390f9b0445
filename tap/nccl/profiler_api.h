// NCCL's profiler plugin interface, versions 5 (NCCL 2.28) and 6 (2.29 and
// 2.30), declared here from NCCL's documentation of it (the profiler
// plugin's README in NCCL's source, plugins/profiler/, and its example's
// profiler_v5.h / profiler_v6.h): NCCL does not install these headers.
// Only the parts collviz uses are named; the rest of each union is kept as
// padding of the documented size, so the layout is NCCL's (the asserts at
// the end pin the offsets the plugin and the stand-in read, x86-64 and
// aarch64 LP64).
//
// Shared by the plugin (tap/nccl/profiler*.cpp) and the stand-in NCCL that
// loads it in tests (tests/standin/nccl_profiler.cpp, a test double).
// ncclResult_t is a C enum: an int here (0 ncclSuccess, 3
// ncclInternalError, 4 ncclInvalidArgument), so no NCCL header is needed.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace collviz::tap::nccl {

// Event types (eDescr->type and the activation mask's bits).
enum : std::uint64_t {
  kProfileGroup = 1 << 0,
  kProfileColl = 1 << 1,       // a collective as NCCL planned it (algorithm, protocol, channels)
  kProfileP2p = 1 << 2,
  kProfileProxyOp = 1 << 3,
  kProfileProxyStep = 1 << 4,
  kProfileProxyCtrl = 1 << 5,
  kProfileKernelCh = 1 << 6,   // one channel of the collective's kernel, start and stop on the GPU timer
  kProfileNetPlugin = 1 << 7,
  kProfileGroupApi = 1 << 8,
  kProfileCollApi = 1 << 9,
  kProfileP2pApi = 1 << 10,
  kProfileKernelLaunch = 1 << 11,
  kProfileCeColl = 1 << 12,    // v6: copy-engine collectives
  kProfileCeSync = 1 << 13,
  kProfileCeBatch = 1 << 14,
};

// recordEventState's states (ncclProfilerEventState_t): the one used here.
constexpr int kStateKernelChStop = 22;

using ProfResult = int;  // ncclResult_t
constexpr ProfResult kSuccess = 0, kInternalError = 3, kInvalidArgument = 4;

// ncclDebugLogger_t: (level, flags, file, line, fmt, ...).
using DebugLogger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// ncclProfilerEventDescr_v5_t (v6 appends copy-engine members to the same
// union; the members read here are at the same places in both).
struct EventDescr {
  std::uint64_t type;           // one kProfile* bit
  void* parentObj;              // the parent event's handle (KernelCh: its Coll event's)
  int rank;                     // the rank in the communicator
  union {
    struct {
      std::uint64_t seqNumber;  // the collective's number in its communicator, per function
      const char* func;         // "AllReduce", "Broadcast", ...
      const void* sendBuff;
      void* recvBuff;
      std::size_t count;
      int root;
      const char* datatype;     // "ncclFloat32", ...
      std::uint8_t nChannels;
      std::uint8_t nWarps;
      const char* algo;         // "RING", "TREE", ...
      const char* proto;        // "LL", "LL128", "SIMPLE"
      void* parentGroup;
    } coll;
    struct {
      std::uint8_t channelId;
      std::uint64_t pTimer;     // the kernel's start on the GPU's globaltimer
    } kernelCh;
    // v5's largest member (proxyOp, p2p, coll) is coll; v6's ceColl is
    // larger: 13 words. Padding keeps the union that size.
    std::uint64_t v6_room[13];
  };
};

// ncclProfilerEventStateArgs_v5_t (and v6's, the same).
union EventStateArgs {
  struct {
    std::size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    std::uint64_t pTimer;       // the channel's stop on the GPU's globaltimer
  } kernelCh;
};

// ncclProfiler_v5_t and ncclProfiler_v6_t: the same five functions (v6's
// descriptor has more union members, none read here).
struct Profiler {
  const char* name;
  ProfResult (*init)(void** context, std::uint64_t commId, int* eActivationMask, const char* commName, int nNodes,
                     int nranks, int rank, DebugLogger logfn);
  ProfResult (*startEvent)(void* context, void** eHandle, EventDescr* eDescr);
  ProfResult (*stopEvent)(void* eHandle);
  ProfResult (*recordEventState)(void* eHandle, int eState, EventStateArgs* eStateArgs);
  ProfResult (*finalize)(void* context);
};

// The documented layout, as NCCL's compiler lays it out (LP64).
static_assert(offsetof(EventDescr, parentObj) == 8 && offsetof(EventDescr, rank) == 16, "descr head");
static_assert(offsetof(EventDescr, coll.seqNumber) == 24 && offsetof(EventDescr, coll.func) == 32, "coll");
static_assert(offsetof(EventDescr, coll.nChannels) == 80 && offsetof(EventDescr, coll.algo) == 88 &&
                  offsetof(EventDescr, coll.proto) == 96 && offsetof(EventDescr, coll.parentGroup) == 104,
              "coll's algorithm, protocol and channels");
static_assert(offsetof(EventDescr, kernelCh.channelId) == 24 && offsetof(EventDescr, kernelCh.pTimer) == 32,
              "kernelCh");
static_assert(sizeof(EventStateArgs) == 8, "state args");
static_assert(sizeof(Profiler) == 6 * sizeof(void*), "the plugin's struct");

}  // namespace collviz::tap::nccl
