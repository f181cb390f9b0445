// A person's text in the worker's JSON ("ready", the probe): the English
// string under `key`, which JSON readers keep, and its message under
// "<key>_text" (engine/text.h, for the reader's language; the engine's
// rank_group.cpp reads both).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/group/protocol.h"
#include "engine/text.h"

namespace collviz {

inline void putSaid(nlohmann::json& j, const std::string& key, const Said& s) {
  j[key] = std::string(s);
  if (const Text* t = s.current()) j[key + "_text"] = protocol::textToJson(*t);
}

// Its reader: the message when it was sent and still says the English, else
// the English alone.
inline Said getSaid(const nlohmann::json& j, const std::string& key) {
  const std::string english = j.value(key, "");
  const auto t = j.find(key + "_text");
  if (t == j.end()) return english;
  Said s = protocol::textFromJson(*t);
  return s == english ? s : Said(english);
}

}  // namespace collviz
