// One rank's part of a schedule, as the engine sends it to that rank (the
// "schedule" message, engine/group/protocol.h): what the round runner needs
// on that rank and nothing more — its start and output slots, and per round
// the messages it sends or receives and its own local copies, every list of
// slots as runs. An MSCCL file is read, checked and lowered once, by the
// engine, before any timed round: a rank never parses the file, and what
// it is sent grows with its own part of the schedule, not with the file
// (a 40 MiB comment costs nothing; 16 gpus x 300 threadblocks is some
// hundred KiB a rank).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/algo/schedule.h"

namespace collviz::algo {

// Rank `rank`'s part of `s`. Phases, attributes and other ranks' moves are
// left out; the rounds keep their number and every move its order.
nlohmann::json rankPart(const Schedule& s, int rank);

// The schedule a rank runs from its part: other ranks' starts and outputs
// are empty. Anything malformed is an error; slots out of range are left for
// the round runner to refuse (it checks every schedule it is given).
Result<Schedule> scheduleFromPart(const nlohmann::json& part);

}  // namespace collviz::algo
