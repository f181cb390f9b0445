// The NCCL communicator of collviz-rank (GPU). Built only when CMake finds
// CUDA and NCCL (worker/nccl.cmake defines COLLVIZ_HAVE_NCCL=1 for
// collviz-rank); this header includes no CUDA or NCCL header, so main.cpp and
// tests can include it freely.
#pragma once

#include <chrono>
#include <memory>

#include <nlohmann/json.hpp>

#include "engine/worker/communicator.h"

namespace collviz {

// One rank of a blocking NCCL communicator on CUDA device `gpu` (from
// placeRanks). init() shares the ncclUniqueId from rank 0 through the
// ControlStore; the id wait and the NCCL init together must end within 90 %
// of joinBudget(timeout_ms) counted from `started` (the worker's start).
// run() copies shared memory to device buffers (cached, grown on demand),
// runs the op timed with CUDA events, and copies back on a stream of its own;
// its deadline per iteration is the one the engine sends with it
// (RunOptions::timeout_ms, scaled with the op's bytes), else init's
// `timeout_ms`; runRounds() likewise. A watchdog thread aborts the
// communicator when a deadline passes; if the calling thread is then still
// inside an NCCL call (which an abort must not race), the watchdog prints why
// on stderr and ends the process with exit code 3.
std::unique_ptr<Communicator> makeNcclCommunicator(
    int gpu, std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now());

// One backend object of the probe format (engine/group/protocol.h), plus
// "version_code" (ncclGetVersion) and "cuda_runtime" (cudaRuntimeGetVersion,
// "13.0"). Never throws or aborts: with no GPU or
// no driver it reports available=false and the CUDA error as the reason.
nlohmann::json probeNccl();

}  // namespace collviz
