// The JSON form of a snapshot (`collviz run --json`) and of the devices.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/devices.h"
#include "engine/snapshot.h"

namespace collviz {

nlohmann::json toJson(const Snapshot& s);
nlohmann::json toJson(const BackendInfo& b);
nlohmann::json toJson(const DeviceReport& d);

}  // namespace collviz
