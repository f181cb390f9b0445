#include "engine/worker/heartbeat.h"

namespace collviz {

Heartbeat::Heartbeat(Channel& ch, std::chrono::milliseconds period) : ch_(ch) {
  if (period.count() <= 0) return;
  t_ = std::thread([this, period] {
    std::unique_lock lock(m_);
    while (!cv_.wait_for(lock, period, [this] { return stop_; }))
      if (!ch_.send(R"({"type":"beat"})")) return;  // the engine has gone: the watchdog ends us
  });
}

Heartbeat::~Heartbeat() {
  if (!t_.joinable()) return;
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  cv_.notify_one();
  t_.join();
}

}  // namespace collviz
