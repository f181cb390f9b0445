// NCCL's profiler plugin inside the NCCL tap (issue 59 item 2): NCCL loads
// the tap's own library as its profiler (NCCL_PROFILER_PLUGIN names it) and
// calls it through the exported ncclProfiler_v6 (NCCL 2.29, 2.30) or
// ncclProfiler_v5 (2.28) struct. It asks for Coll and KernelCh events only
// and writes one tap::ProfileRecord per collective: algorithm, protocol and
// channels when NCCL stops the Coll event (enqueued), the kernel's start
// and end in place once every channel's KernelCh event stopped. The reader
// (engine/job/capture.cpp) joins each to the tap's call record.
//
// What the plugin needs from the tap and gives it back: the functions below.
#pragma once

#include <cstdint>

#include "tap/capture_writer.h"

namespace collviz::tap::nccl {

// The open capture to write into, or nullptr while nothing is recorded.
// Defined by the tap (its state); by profiler_solo.cpp where the plugin is
// built alone (the test module libcollviz-nccl-profiler-solo.so).
CaptureWriter* profilerWriter();

// ---- profiler_env.cpp: for the tap ----
// At the tap's start, before NCCL reads it: where NCCL_PROFILER_PLUGIN is
// unset, it is set to this library's own path, so NCCL loads the plugin
// from the library already in the process. Returns what to say in the
// capture (a NoteCode::nccl_profiler note), or "" where the plugin is ours:
// another plugin named (the tap then works without this part), or "none".
const char* profilerSetup();
// Where NCCL_PROFILER_PLUGIN names another plugin or "none" (set by
// profilerSetup): the note's text; "" otherwise.
const char* profilerAbsentWhy();
// After a communicator's init returned, with NCCL's version code
// (ncclGetVersion): "" where NCCL called the plugin's init; else why the
// plugin part is absent (NCCL older than 2.28 asks for profiler v4 or
// older; or it did not load the plugin). The tap writes it once as a
// nccl_profiler note.
const char* profilerAfterInit(int ncclVersion);

// ---- profiler.cpp ----
// The commHash NCCL gave the plugin's init last on this thread (0: none
// yet): NCCL runs a blocking communicator's init on the calling thread, so
// right after pncclCommInitRank returns this is that communicator's
// commHash, the id the tap gives it in its CommRecord so that the plugin's
// records join it.
std::uint64_t lastInitCommHash();
// Whether NCCL has called the plugin's init at all.
bool profilerInitSeen();

}  // namespace collviz::tap::nccl
