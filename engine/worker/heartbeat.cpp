#include "engine/worker/heartbeat.h"

namespace collviz {

Heartbeat::Heartbeat(Channel& ch, std::chrono::milliseconds period) : ch_(ch) {
  if (period.count() <= 0) return;
  t_ = std::thread([this, period] {
    std::unique_lock lock(m_);
    while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
      // Sent unlocked: a send held up by a link that is down must not hold
      // up the stop (the destructor joins after it returns either way).
      lock.unlock();
      const bool sent = bool(ch_.send(R"({"type":"beat"})"));
      lock.lock();
      if (!sent) return;  // the engine has gone: the watchdog ends us
    }
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
