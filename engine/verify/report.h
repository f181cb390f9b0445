// The JSON form of a snapshot (`collviz run --json`); the devices' is in
// engine/group/devices.h.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/snapshot.h"
#include "engine/verify/value_summary.h"

namespace collviz {

nlohmann::json toJson(const Snapshot& s);  // every value
// Values up to `values`: a summarised buffer is an object {"elements",
// "shown", "elided", "blocks": [[first…], [last…]] per block} instead of the
// array; labels, contributors and counts are always complete.
nlohmann::json toJson(const Snapshot& s, const ValueLimit& values);
nlohmann::json toJson(const BackendInfo& b);

}  // namespace collviz
