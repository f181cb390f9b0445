// A rank on another host says it is alive while it runs an op or rounds:
// `{"type":"beat"}` on its connection every `period`, from a thread of its
// own, so a rank busy inside a long call still beats, and a stopped process
// (SIGSTOP), a dead host or a link that is down falls silent. The engine
// (engine/group/rank_wait.cpp) tells hung from slow by it, as it does for
// its local ranks from /proc. Ranks on the engine's host never beat: the
// engine watches their processes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/group/channel.h"

namespace collviz {

class Heartbeat {
 public:
  // No thread at all when period is 0 (a local rank, or an engine that
  // asked for none). The channel must not be written by anyone else until
  // this is destroyed.
  Heartbeat(Channel& ch, std::chrono::milliseconds period);
  ~Heartbeat();  // stops and joins: the caller's next message comes after every beat
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  Channel& ch_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread t_;
};

}  // namespace collviz
