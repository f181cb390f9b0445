// ControlStore over the worker's channel: the engine keeps the keys.
#pragma once

#include "engine/group/channel.h"
#include "engine/worker/communicator.h"

namespace collviz {

class ChannelStore : public ControlStore {
 public:
  explicit ChannelStore(Channel& ch) : ch_(ch) {}
  Status set(const std::string& key, const std::vector<char>& value) override;
  Result<std::vector<char>> get(const std::string& key, int timeout_ms) override;

 private:
  Channel& ch_;
};

}  // namespace collviz
