#include "engine/worker/nccl/watchdog.h"

#include <utility>

namespace collviz {

Watchdog::Watchdog(std::function<void(const std::string&)> expire)
    : expire_(std::move(expire)), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(Clock::time_point deadline, std::string what) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = true;
    expired_ = false;
    deadline_ = deadline;
    what_ = std::move(what);
  }
  cv_.notify_all();
}

bool Watchdog::disarm() {
  std::unique_lock<std::mutex> lock(mu_);
  armed_ = false;
  cv_.wait(lock, [this] { return !firing_; });
  cv_.notify_all();
  return expired_;
}

bool Watchdog::expired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return expired_;
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    if (Clock::now() < deadline_) {
      cv_.wait_until(lock, deadline_);
      continue;  // re-check: disarmed, re-armed or stopped meanwhile
    }
    armed_ = false;
    firing_ = true;
    const std::string what = what_;
    lock.unlock();
    expire_(what);
    lock.lock();
    firing_ = false;
    expired_ = true;
    cv_.notify_all();
  }
}

}  // namespace collviz
