// The environment collviz gives its NCCL ranks so that NCCL's own log can be
// read back (engine/job/nccl_log, Engine::ncclLogDir): NCCL_DEBUG=INFO,
// NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING,COLL and NCCL_DEBUG_FILE=DIR/nccl.%h.%p
// (one file per rank process). None where the user set NCCL_DEBUG: then the
// user's settings (and NCCL's output where they send it) stand unchanged.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace collviz {

inline constexpr const char* kNcclLogSubsystems = "INIT,GRAPH,TUNING,COLL";

// `getenv`: the environment the ranks inherit (std::getenv in the engine).
std::vector<std::pair<std::string, std::string>> ncclDebugEnv(const std::string& dir,
                                                              const std::function<const char*(const char*)>& getenv);

// A fresh folder for the ranks' NCCL logs under TMPDIR (or /tmp); "" when none can be made.
std::string makeNcclLogDir();

}  // namespace collviz
