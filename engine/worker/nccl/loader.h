// collviz-rank's side of the NCCL module (nccl/module.h): where the module
// is, loading it (once, on first use), and what a failure says. Only
// `--backend nccl` and `--probe` come here; a Gloo run never does.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/text.h"
#include "engine/worker/communicator.h"

namespace collviz {

// $COLLVIZ_NCCL_MODULE when set (tests point it at a module that cannot
// load), else libcollviz-nccl.so in the directory of this executable
// (executableDir(), engine/group/program_files.h): build/bin or PREFIX/lib/collviz.
std::string ncclModulePath();

// The module's NCCL communicator on CUDA device `gpu` (see
// nccl/communicator.h), or an error naming the module's path and the
// loader's reason (dlerror's text, a missing entry point, another build).
Result<std::unique_ptr<Communicator>> loadNcclCommunicator(
    int gpu, std::chrono::steady_clock::time_point started);

// The probe's NCCL object: the module's own, or available=false with the
// reason the module could not be loaded.
nlohmann::json probeNcclModule();

// A rank that mpirun started on one of several hosts (issue 33): its GPU,
// from its local rank on this host (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK
// and _SIZE) and the GPUs the module sees here, after setting the NCCL
// environment placeOnHost (engine/group/placement.h) gives it: NCCL's
// sockets on `iface` unless NCCL_SOCKET_IFNAME came set, NCCL_HOSTID only
// for ranks that share a GPU. An error names the host when it has no GPU.
Result<int> placeNcclRankOnHost(const std::string& host, const std::string& iface);

}  // namespace collviz
