// The NCCL communicator's watchdog (no GPU needed): an expiry runs once, on
// time, and only while armed; disarm() waits for an expiry in progress.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/worker/nccl/watchdog.h"

namespace collviz {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Disarmed at once, 500 ms before its deadline (a loaded machine may stall
// between two calls, not for half a second); then a second watchdog, armed
// 500 ms past the first's deadline, is waited for: once it fired, the first
// had its deadline and half a second more to fire, and must not have.
TEST(Watchdog, DisarmedInTimeNeverFires) {
  std::atomic<int> fired{0};
  Watchdog w([&](const std::string&) { ++fired; });
  const auto deadline = Clock::now() + 500ms;
  w.arm(deadline, "op");
  EXPECT_FALSE(w.disarm());
  Watchdog past([](const std::string&) {});
  past.arm(deadline + 500ms, "past the first's deadline");
  for (int i = 0; i < 30000 && !past.expired(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(past.expired()) << "the second watchdog never fired";
  EXPECT_GE(Clock::now(), deadline + 500ms);
  EXPECT_EQ(fired, 0);
  EXPECT_FALSE(w.expired());
}

TEST(Watchdog, FiresOnceAtTheDeadlineWithWhatWasArmed) {
  std::atomic<int> fired{0};
  std::string what;
  const auto t0 = Clock::now();
  Clock::time_point at{};
  Watchdog w([&](const std::string& s) { what = s; at = Clock::now(); ++fired; });
  w.arm(t0 + 50ms, "all_reduce on rank 1");
  for (int i = 0; i < 200 && !w.expired(); ++i) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(w.expired());
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(what, "all_reduce on rank 1");
  EXPECT_GE(at - t0, 50ms);
  EXPECT_TRUE(w.disarm());
  w.arm(Clock::now() + 1h, "next");  // re-armed: the old expiry is forgotten
  EXPECT_FALSE(w.expired());
  EXPECT_FALSE(w.disarm());
}

TEST(Watchdog, DisarmWaitsForAnExpiryInProgress) {
  std::atomic<bool> inside{false}, finished{false};
  Watchdog w([&](const std::string&) {
    inside = true;
    std::this_thread::sleep_for(100ms);
    finished = true;
  });
  w.arm(Clock::now(), "op");
  while (!inside) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(w.disarm());
  EXPECT_TRUE(finished);
}

}  // namespace
}  // namespace collviz
