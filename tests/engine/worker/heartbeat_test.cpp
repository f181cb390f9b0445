// A remote rank's heartbeat (engine/worker/heartbeat.h): beats at its
// period while it lives, none after it is gone (the caller's reply comes
// after every beat), and no thread and no beat with a period of 0.
#include "engine/worker/heartbeat.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace collviz {
namespace {

using namespace std::chrono_literals;

// The messages waiting on `ch`, read until it stays quiet for `quiet`.
int drain(Channel& ch, std::chrono::milliseconds quiet, std::string* last = nullptr) {
  int n = 0;
  while (auto m = ch.recv(quiet)) {
    ++n;
    if (last) *last = m->body;
  }
  return n;
}

TEST(Heartbeat, BeatsAtItsPeriodWhileItLivesAndNeverAfter) {
  auto p = Channel::pair();
  ASSERT_TRUE(p);
  auto& [rank, engine] = *p;
  {
    Heartbeat beat(rank, 50ms);
    std::this_thread::sleep_for(525ms);
  }
  std::string last;
  const int beats = drain(engine, 100ms, &last);
  // 10 periods: 10 beats, give or take what a loaded machine delays.
  EXPECT_GE(beats, 5);
  EXPECT_LE(beats, 11);
  EXPECT_EQ(last, R"({"type":"beat"})");
  // Gone: nothing more, whatever the wait.
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(drain(engine, 50ms), 0);
}

TEST(Heartbeat, APeriodOfZeroSendsNothing) {
  auto p = Channel::pair();
  ASSERT_TRUE(p);
  auto& [rank, engine] = *p;
  {
    Heartbeat none(rank, 0ms);
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(drain(engine, 50ms), 0);
}

TEST(Heartbeat, TheReplyAfterItComesAfterEveryBeat) {
  auto p = Channel::pair();
  ASSERT_TRUE(p);
  auto& [rank, engine] = *p;
  for (int k = 0; k < 20; ++k) {
    { Heartbeat beat(rank, 1ms); std::this_thread::sleep_for(3ms); }
    ASSERT_TRUE(rank.send("done"));
  }
  int done = 0;
  std::string last;
  while (auto m = engine.recv(100ms)) {
    last = m->body;
    if (m->body == "done") ++done;
    else EXPECT_EQ(m->body, R"({"type":"beat"})");
  }
  EXPECT_EQ(done, 20);
  EXPECT_EQ(last, "done");  // no beat after the last reply
}

}  // namespace
}  // namespace collviz
