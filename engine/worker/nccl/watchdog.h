// A deadline on its own thread, for the NCCL communicator: armed before
// blocking work, disarmed after it; when the deadline passes first, it calls
// the expiry function (which aborts the communicator) from its thread, as
// PyTorch's NCCL watchdog does. No CUDA or NCCL header: testable anywhere.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace collviz {

class Watchdog {
 public:
  using Clock = std::chrono::steady_clock;
  // `expire(what)` runs on the watchdog's thread, at most once per arm().
  explicit Watchdog(std::function<void(const std::string& what)> expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(Clock::time_point deadline, std::string what);
  // Stops the countdown; waits for an expiry that is already running.
  // Returns true when the expiry ran since arm().
  bool disarm();
  // True once the expiry has run (and returned) since arm().
  bool expired() const;

 private:
  void loop();

  std::function<void(const std::string&)> expire_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool firing_ = false;
  bool expired_ = false;
  bool stop_ = false;
  Clock::time_point deadline_{};
  std::string what_;
  std::thread thread_;
};

}  // namespace collviz
