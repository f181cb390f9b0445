// RankGroup: N collviz-rank processes forming one communicator, each with a
// control channel and a shared-memory buffer. Owned by the engine thread.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/channel.h"
#include "engine/netns.h"
#include "engine/placement.h"
#include "engine/shared_memory.h"
#include "engine/snapshot.h"
#include "engine/worker/communicator.h"

namespace collviz {

struct GroupConfig {
  std::string worker_path;
  int ranks = 1;
  BackendKind backend = BackendKind::gloo;
  std::vector<RankPlacement> placement;  // one per rank
  std::chrono::milliseconds deadline{5000};
  const std::atomic<bool>* cancel = nullptr;  // set: give up waiting at once
  bool isolate = false;  // a private network namespace for the group (engine/netns.h)
};

class RankGroup {
 public:
  // Spawn the workers and wait until every rank has joined the communicator.
  static Result<std::unique_ptr<RankGroup>> start(const GroupConfig& cfg);
  ~RankGroup();  // asks the workers to exit, then kills and reaps what is left

  int ranks() const { return cfg_.ranks; }
  BackendKind backend() const { return cfg_.backend; }
  const BackendInfo& info() const { return info_; }
  std::vector<pid_t> pids() const;
  // False after a crash or a missed deadline: the group must be replaced.
  bool healthy() const { return healthy_; }
  // Asked to isolate, but the system refused: the ranks share the host's loopback.
  bool exposed() const { return cfg_.isolate && !net_.active(); }

  // Run step.spec with the step's input bytes; fills every rank's output
  // bytes (one copy out of shared memory) and times. `opts` repeat the op
  // (benchmarks); the outputs are those of the last iteration.
  Status run(StepResult& step, const RunOptions& opts);

 private:
  struct Worker {
    pid_t pid = -1;
    Channel ch;
    SharedMemory shm;
  };
  explicit RankGroup(GroupConfig cfg) : cfg_(std::move(cfg)) {}
  Status spawn(int rank);
  Status rendezvous();
  // Wait for every rank's answer to a run (rank_wait.cpp).
  Status awaitRanks(StepResult& step, const RunOptions& opts);
  std::string whoBlocksJoining(const std::vector<bool>& ready, const std::vector<bool>& hello);
  Status ensureMemory(int rank, std::size_t bytes);
  std::string describeExit(int rank);
  void stop();

  // Starting N processes on a few cores takes seconds whatever --deadline-ms
  // says: joining gets at least 10 s. Gloo's ops get their own deadline with
  // each run; NCCL's watchdog still takes the configured one from init.
  std::chrono::milliseconds joinTimeout() const {
    return std::max(cfg_.deadline, std::chrono::milliseconds(10000));
  }
  std::chrono::milliseconds initTimeout() const {
    return cfg_.backend == BackendKind::gloo ? joinTimeout() : cfg_.deadline;
  }

  GroupConfig cfg_;
  std::vector<Worker> workers_;
  std::map<std::string, std::string> store_;  // rendezvous keys (hex values)
  BackendInfo info_;
  bool healthy_ = true;
  PrivateNetwork net_;
  std::string exposed_why_;  // why there is no private network
};

}  // namespace collviz
