// The worker's side of the "rounds" message (engine/group/protocol.h): build the
// schedule the engine named, run the asked rounds on the communicator and
// reply with the times and the bytes moved.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "engine/group/shared_memory.h"
#include "engine/worker/communicator.h"

namespace collviz {

// The op spec every "run" and "rounds" message carries.
OpSpec specFromMessage(const nlohmann::json& msg);

// A frame of an MSCCL schedule's part for this rank: no reply until the
// last frame, then {"type":"done"} once it is ready to run, or the error.
std::optional<nlohmann::json> handleSchedulePart(int rank, const nlohmann::json& msg);

nlohmann::json handleRounds(Communicator& comm, int rank, const nlohmann::json& msg,
                            SharedMemory& shm);

}  // namespace collviz
