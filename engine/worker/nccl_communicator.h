// The NCCL communicator of collviz-rank (GPU). Built only when CMake finds
// CUDA and NCCL (worker/nccl.cmake defines COLLVIZ_HAVE_NCCL=1 for
// collviz-rank); this header includes no CUDA or NCCL header, so main.cpp and
// tests can include it freely.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "engine/worker/communicator.h"

namespace collviz {

// One rank of an NCCL communicator on CUDA device `gpu` (from placeRanks).
// init() shares the ncclUniqueId from rank 0 through the ControlStore and
// uses `timeout_ms` as the deadline for init and per op iteration; run()
// copies shared memory to device buffers (cached, grown on demand), runs the
// op timed with CUDA events, and copies back on a stream of its own.
std::unique_ptr<Communicator> makeNcclCommunicator(int gpu);

// One backend object of the probe format (engine/protocol.h), plus
// "version_code" (ncclGetVersion). Never throws or aborts: with no GPU or
// no driver it reports available=false and the CUDA error as the reason.
nlohmann::json probeNccl();

}  // namespace collviz
