#include "engine/worker/control_store.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/group/protocol.h"

namespace collviz {

using json = nlohmann::json;

Status ChannelStore::set(const std::string& key, const std::vector<char>& value) {
  return ch_.send(json{{"type", "store_set"}, {"key", key}, {"value", protocol::toHex(value)}}
                      .dump());
}

Result<std::vector<char>> ChannelStore::get(const std::string& key, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    if (Status st = ch_.send(json{{"type", "store_get"}, {"key", key}}.dump()); !st)
      return st.error();
    auto m = ch_.recv(std::chrono::milliseconds(timeout_ms));
    if (!m) return Error{say("rendezvous: {0}", m.error().text)};
    const json j = json::parse(m->body, nullptr, false);
    if (j.is_discarded() || j.value("type", "") != "store_value")
      return Error{say("rendezvous: unexpected reply {0}", m->body)};
    if (j.value("found", false)) return protocol::fromHex(j.value("value", ""));
    if (std::chrono::steady_clock::now() > deadline)
      return Error{say("rendezvous: key '{0}' did not appear within {1} ms", key, timeout_ms)};
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

}  // namespace collviz
