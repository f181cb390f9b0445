// Communicator: one rank of a real collective library inside collviz-rank.
// Gloo (CPU, always built) and NCCL (GPU, built with CUDA) implement it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/group/protocol.h"
#include "engine/snapshot.h"
#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

namespace algo {
struct Schedule;
}

// Key-value rendezvous through the worker's control channel to the engine:
// no listening port, nothing on disk.
class ControlStore {
 public:
  virtual ~ControlStore() = default;
  virtual Status set(const std::string& key, const std::vector<char>& value) = 0;
  // Waits until the key exists (or the timeout passes).
  virtual Result<std::vector<char>> get(const std::string& key, int timeout_ms) = 0;
};

struct OpTiming {
  double op_us = 0;    // per iteration, inside the communicator
  double copy_us = 0;  // host<->device copies around it (GPU), 0 on CPU
  Said copies;  // GPU: "page-locked (...)" or "pageable (why)"; empty on CPU
  // Where the backend can say (Gloo): when the warm-up calls ended, the timed
  // calls began (after the output's poison) and ended, on the steady clock
  // (microseconds since its epoch: one clock for every process of a host).
  // 0: not said. The engine's profile splits its op phase by them.
  double warm_end_at_us = 0, timed_begin_at_us = 0, timed_end_at_us = 0;
};

// Microseconds since the steady clock's epoch (the stamps above).
inline double steadyMicros() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Rounds of an algorithm (engine/algo/schedule.h) run by one rank.
struct RoundsTiming {
  double op_us = 0;    // per iteration, the rounds run
  double copy_us = 0;  // working buffer to and from the host (GPU), 0 on CPU
  uint64_t sent = 0, received = 0;  // bytes this rank moved, per iteration
};


class Communicator {
 public:
  virtual ~Communicator() = default;
  // Join the group of `size` ranks as `rank`.
  virtual Status init(int rank, int size, ControlStore& store, int timeout_ms) = 0;
  // Run `spec.op` once per iteration. `in`/`out` point into shared memory
  // (nullptr where the rank has no buffer per inputBlocks/outputBlocks).
  virtual Result<OpTiming> run(const OpSpec& spec, const void* in, void* out,
                               const RunOptions& opts) = 0;
  // Run rounds [from, to) of `s` on this rank's point-to-point calls. `in`
  // is the rank's input (host shared memory), `work` its working buffer
  // (host shared memory: the engine reads it after each call). Round 0
  // starts the working buffer from `in`; the last round ends with the
  // final division (avg).
  virtual Result<RoundsTiming> runRounds(const algo::Schedule& s, int from, int to,
                                         const void* in, void* work, const RunOptions& opts) {
    (void)s, (void)from, (void)to, (void)in, (void)work, (void)opts;
    return Error{say("{0} cannot run an algorithm's rounds in this collviz-rank", describe().name)};
  }
  virtual BackendInfo describe() const = 0;
  virtual BackendCaps caps() const = 0;
  // The rank waits for the engine's next message (true) or has one
  // (false): a backend may let its own threads sleep meanwhile, and must
  // have them awake again before this returns with false.
  virtual void idle(bool waiting) { (void)waiting; }
};

std::unique_ptr<Communicator> makeGlooCommunicator();

}  // namespace collviz
