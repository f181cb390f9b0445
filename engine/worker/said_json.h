// A person's text in the worker's JSON ("ready", the probe): the English
// string under `key`, which JSON readers keep, and its message under
// "<key>_text" (engine/text.h, for the reader's language; the engine's
// rank_group.cpp reads both).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/protocol.h"
#include "engine/text.h"

namespace collviz {

inline void putSaid(nlohmann::json& j, const std::string& key, const Said& s) {
  j[key] = std::string(s);
  if (const Text* t = s.current()) j[key + "_text"] = protocol::textToJson(*t);
}

}  // namespace collviz
