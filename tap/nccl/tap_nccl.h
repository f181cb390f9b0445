// The NCCL tap's insides (libcollviz-tap-nccl.so, preloaded into each
// process of an NCCL program): the wrappers in api.cpp describe a call,
// record it (calls.cpp: the record at entry, the input bytes copied on the
// op's stream before it, the output bytes after it, completion read from a
// CUDA event by poll.cpp), and forward the very same arguments to NCCL's
// own profiling entry point (pncclX) or the next ncclX (resolve.cpp);
// communicators get their records and ids in comms.cpp; state.cpp opens
// the capture at the first communicator.
//
// A guest in someone else's program: it returns NCCL's own result, never
// synchronises the program's streams, never passes a CUDA error of its own
// on (cudaGetLastError clears it), and its own trouble only leaves a flag or
// a lost-record count in the capture. Neither CUDA nor NCCL is linked: both
// are found at run time in the process (a program without them is left
// alone).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tap/capture_format.h"
#include "tap/capture_writer.h"

namespace collviz::tap::nccl {

extern CaptureWriter g_writer;

// ---- resolve.cpp ----
// NCCL's own `name` for a wrapper: pncclX (NCCL's profiling name, built by
// default since 2.16), else the next ncclX after the tap; never `self`.
// nullptr where the process has neither (no NCCL, or one without it).
void* nextNccl(const char* name, void* self);
// The CUDA runtime's entry points the tap uses, found in the process.
struct Cuda {
  bool ok = false;  // every one found
  cudaError_t (*memcpyAsync)(void*, const void*, std::size_t, cudaMemcpyKind, cudaStream_t) = nullptr;
  cudaError_t (*hostAlloc)(void**, std::size_t, unsigned) = nullptr;
  cudaError_t (*eventCreateWithFlags)(cudaEvent_t*, unsigned) = nullptr;
  cudaError_t (*eventRecord)(cudaEvent_t, cudaStream_t) = nullptr;
  cudaError_t (*eventQuery)(cudaEvent_t) = nullptr;
  cudaError_t (*streamIsCapturing)(cudaStream_t, cudaStreamCaptureStatus*) = nullptr;
  cudaError_t (*getLastError)() = nullptr;
  cudaError_t (*peekAtLastError)() = nullptr;
  cudaError_t (*getDevice)(int*) = nullptr;
  cudaError_t (*setDevice)(int) = nullptr;
  cudaError_t (*malloc)(void**, std::size_t) = nullptr;
  cudaError_t (*free)(void*) = nullptr;
  cudaError_t (*streamCreateWithFlags)(cudaStream_t*, unsigned) = nullptr;
  cudaError_t (*streamSynchronize)(cudaStream_t) = nullptr;
  cudaError_t (*streamDestroy)(cudaStream_t) = nullptr;
};
const Cuda& cuda();  // looked up once, at the first use

// ---- state.cpp ----
// True while calls are recorded (COLLVIZ_TAP_OUT set and the capture open).
bool recording();
// Whether COLLVIZ_TAP_OUT is set (the tap's own member exchange at a
// communicator's creation is made whether or not this file opened, so one
// process's full disk never leaves the others waiting).
bool wanted();
// Before the first communicator's init is forwarded (NCCL reads its
// environment then): the profiler plugin's setting.
void beforeFirstInit();
// The first communicator made: this process's world rank and size; opens
// the capture.
void start(int rank, int nranks);
int worldRank();
void note(NoteCode code, const char* text);
// The open capture, nullptr while nothing is recorded (for the profiler
// plugin's part, profiler.h).
CaptureWriter* profilerWriter();

// ---- comms.cpp ----
struct CommInfo {
  std::uint32_t num = 0;  // CommRecord::comm
  std::uint64_t id = 0;   // NCCL's commHash
  std::atomic<std::uint32_t> seq{0};
  int rank = 0, size = 0, device = -1;
  int children = 0;       // splits made from it (NCCL's childCount)
};
// The tap's record of a communicator; a communicator made where the tap did
// not see it is registered here; nullptr when not recording.
CommInfo* commInfo(ncclComm_t comm);
// A communicator made (InitRank[Config], Split, InitAll), with its id.
// `exchange`: learn its members' world ranks with the tap's own exchange
// (a ring of ncclSend/ncclRecv on a stream of the tap's own); without it
// the members are known only where it is this process's first.
void commMade(ncclComm_t made, std::uint64_t id, std::uint64_t parent, int color, int key, bool exchange);
// After ncclCommDestroy / ncclCommAbort returned.
void commGone(ncclComm_t comm);
// The id of the next split of `parent` with `color` (counts the split).
std::uint64_t splitId(ncclComm_t parent, int color);

// ---- calls.cpp ----
struct Desc {
  Func func = Func::none;
  std::uint16_t flags = 0;
  int root = -1;                  // root, or the peer of a send/recv
  ncclDataType_t dtype = ncclInt8;
  int redop = -1;                 // -1: none
  const void* in = nullptr;       // the device buffer read, nullptr if none
  void* out = nullptr;            // the device buffer written, nullptr if none
  std::uint64_t in_elems = 0, out_elems = 0;
};
struct Active {
  CallRecord* rec = nullptr;      // nullptr: not recorded
  std::uint8_t* in_at = nullptr;  // the record's input part
  std::uint8_t* out_at = nullptr; // the record's output part
  std::uint32_t in_n = 0, out_n = 0;
  void* out_src = nullptr;
  cudaStream_t stream = nullptr;
  struct Slot* slot = nullptr;    // pinned bytes and an event (poll.cpp)
  int device = -1;
  bool copies = false;            // the tap's copies are made for this call
};
Active begin(CommInfo& c, const Desc& d, cudaStream_t stream);
// The wrapper's NCCL call returned `rc`: outside a group, the output copy
// and the event are enqueued now; inside one, at the outermost GroupEnd.
void after(Active& a, ncclResult_t rc);
void groupStarted();
bool inGroup();  // this thread is between ncclGroupStart and its ncclGroupEnd
void groupEnded(ncclResult_t rc);

// ---- poll.cpp ----
struct Slot {
  std::uint8_t* host = nullptr;   // pinned: input at [0, half), output at [half, 2 half)
  cudaEvent_t event = nullptr;
  Slot* next = nullptr;
  int device = -1;
};
// A free slot for `device` (nullptr: none could be made).
Slot* takeSlot(int device);
void giveSlot(Slot* s);
std::uint32_t slotHalf();
// The call's copies and event are enqueued: its record is finished once the
// event completes (a background thread and every tap call poll).
void pending(const Active& a, std::int32_t status, bool copy_failed);
// Finishes the record now (no event to wait for).
void finishNow(Active& a, std::int32_t status, std::uint16_t flags);
// Polls a few pending events without waiting (the program's thread).
void pollSome();

}  // namespace collviz::tap::nccl
