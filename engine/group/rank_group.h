// RankGroup: N collviz-rank processes forming one communicator, each with a
// control channel and a shared-memory buffer. Owned by the engine thread.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/group/channel.h"
#include "engine/group/hosts.h"
#include "engine/group/mpi_job_dir.h"
#include "engine/group/mpi_launch.h"
#include "engine/group/netns.h"
#include "engine/group/placement.h"
#include "engine/group/shared_memory.h"
#include "engine/snapshot.h"
#include "engine/verify/verify.h"
#include "engine/group/protocol.h"

namespace collviz {

namespace algo {
struct Schedule;
}

// One rank's answer to a run of rounds.
struct RoundsReply {
  double op_us = 0;
  uint64_t sent = 0, received = 0;  // bytes
};

// Where one step's buffers sit in each rank's shared memory: byte offsets
// of its input and output, per rank.
struct StepPlace {
  std::vector<std::size_t> in, out;
};

// One op's buffers: the input at offset 0, the output on the next page.
StepPlace singlePlace(const OpSpec& s);
// The shared memory each rank needs for `s` placed at `at`.
std::vector<std::size_t> placeBytes(const OpSpec& s, const StepPlace& at);

struct GroupConfig {
  std::string worker_path;
  int ranks = 1;
  BackendKind backend = BackendKind::gloo;
  std::vector<RankPlacement> placement;  // one per rank
  std::chrono::milliseconds deadline{5000};
  const std::atomic<bool>* cancel = nullptr;  // set: give up waiting at once
  bool isolate = false;  // a private network namespace for the group (engine/group/netns.h)
  // Ranks on these hosts (issue 33): launched by mpirun, joined over TCP
  // (engine/group/remote_link.h), their buffers sent on that connection.
  // Empty: every rank a child of this process, shared memory.
  HostSpec hosts;
};

// Where a rank runs: its host's name (as the host says it) and its pid there.
struct RankHost {
  std::string host;
  long pid = -1;
};

class RankGroup {
 public:
  // Spawn the workers and wait until every rank has joined the communicator.
  static Result<std::unique_ptr<RankGroup>> start(const GroupConfig& cfg);
  ~RankGroup();  // asks the workers to exit, then kills and reaps what is left

  int ranks() const { return cfg_.ranks; }
  BackendKind backend() const { return cfg_.backend; }
  // COLLVIZ_FAULT for the next runs (engine/worker/fault.h), sent with each
  // run: unset leaves the workers with their environment's, "" means none.
  void setFault(std::optional<std::string> f) { fault_ = std::move(f); }
  // A run's own --deadline-ms where it asks for more than the group's (the
  // window's big ops, a collective opened from a job: scaled by its bytes):
  // the no-progress window and each op's scaled deadline. 0: the group's.
  void setRunDeadline(std::chrono::milliseconds d) { run_deadline_ = d; }
  std::chrono::milliseconds deadline() const { return std::max(cfg_.deadline, run_deadline_); }
  const BackendInfo& info() const { return info_; }
  // The local processes of the ranks (-1 for a rank on another host: its
  // pid means nothing here, so it is never read nor signalled).
  std::vector<pid_t> pids() const;
  // Every rank's host and pid there (this host's name for local ranks).
  std::vector<RankHost> places() const;
  // Connections refused while the ranks joined (issue 33's log).
  int refused() const { return refused_; }
  // False after a crash or a missed deadline, or once released: the group
  // must be replaced.
  bool healthy() const { return healthy_ && !released_; }
  // The ranks told to end now (a one-shot run's last op is in): they end
  // while the engine reads their memory, which stays mapped here until
  // stop(). Local Gloo and NCCL ranks only; MPI's and other hosts' ranks end
  // in stop() as before.
  void release();
  // Asked to isolate, but the system refused: the ranks share the host's loopback.
  bool exposed() const { return cfg_.isolate && !net_.active(); }

  // Make rank r's shared memory at least bytes[r] long. A mapping that grows
  // is replaced by a new, zeroed one: what it held is gone (inputsHeld()
  // is cleared). made[r], where it is big enough, is that new one (made
  // while the ranks started: SharedMemory::createMany); the others are made
  // here, together.
  Status reserve(const std::vector<std::size_t>& bytes, std::vector<SharedMemory> made = {});
  // Rank r's shared memory, which its worker reads and writes during a run.
  std::byte* memory(int r) const;
  // The spec whose pattern inputs every rank's memory holds at offset 0, as
  // the engine last wrote them (none after a new mapping).
  const std::optional<OpSpec>& inputsHeld() const { return inputs_held_; }
  void setInputsHeld(std::optional<OpSpec> s) { inputs_held_ = std::move(s); }
  // The next run of `s` finds its outputs at `out` poisoned already (memory
  // made and filled while the ranks started): run() does not poison them
  // again. Any run, or new memory, clears it.
  void setOutputsPoisoned(const OpSpec& s, std::vector<std::size_t> out) {
    poisoned_ = std::make_pair(s, std::move(out));
  }

  // Where the buffers of `s` placed at `at` are in the shared memory.
  StepBytes bytesAt(const OpSpec& s, const StepPlace& at) const;

  // Run step.spec on the inputs already in shared memory at `at.in`, into
  // outputs at `at.out` (poisoned first). Fills every rank's times and
  // presence; the output bytes stay in shared memory. `opts` repeat the op
  // (benchmarks); the outputs are those of the last iteration.
  Status run(StepResult& step, const StepPlace& at, const RunOptions& opts);
  // Run rounds [from, to) of `s` on every rank (from = 0 first copies
  // `inputs`' input bytes in); fills one reply per rank and, when `work` is
  // given, every rank's working buffer after the last of those rounds.
  Status runRounds(const algo::Schedule& s, const StepResult& inputs, int from, int to,
                   const RunOptions& opts, std::vector<RoundsReply>& replies,
                   std::vector<std::vector<std::byte>>* work);

 private:
  struct Worker {
    pid_t pid = -1;
    Channel ch;
    SharedMemory shm;
    bool child = true;  // ours to reap; an MPI rank is mpirun's child
    bool remote = false;  // joined over TCP: its memory is a copy, sent and fetched
    std::string host;
    long remote_pid = -1;
  };
  explicit RankGroup(GroupConfig cfg) : cfg_(std::move(cfg)) {}
  Status spawn(int rank);
  // MPI: start mpirun and accept every rank's connection (rank_group_mpi.cpp).
  Status launchMpi();
  // Start mpirun with `args` and `added` in its environment (its log on a pipe).
  Status forkMpirun(const std::string& path, const std::vector<std::string>& args,
                    const std::vector<std::string>& added);
  // MPI across cfg_.hosts (rank_group_hosts.cpp): mpirun -H ..., every rank
  // authenticated over TCP.
  Status launchMpiHosts();
  // Remote ranks' buffers (rank_group_hosts.cpp): send [off, off+n) of each
  // listed rank's copy to it, or fetch it back, all ranks at once.
  struct Span {
    int rank;
    std::size_t off, n;
  };
  Status pushSpans(const std::vector<Span>& spans);
  Status pullSpans(const std::vector<Span>& spans);
  Status moveSpans(const std::vector<Span>& spans, bool push);
  std::chrono::milliseconds transferTimeout(std::size_t bytes) const;
  // An MSCCL file's schedule: each rank's part, sent before its round 1.
  Status sendParts(const algo::Schedule& s, const Text& what, std::chrono::milliseconds per_call);
  void stopMpi();
  Text describeMpiExit(int rank);
  Status rendezvous(std::vector<bool> hello);
  // Wait for every rank's answer to a run (rank_wait.cpp).
  Status awaitRanks(StepResult& step, const RunOptions& opts);
  Text whoBlocksJoining(const std::vector<bool>& ready, const std::vector<bool>& hello);
  Status mapNew(const std::vector<int>& ranks, std::vector<SharedMemory> mems);
  Text describeExit(int rank);
  // Wait for one reply per rank (done or error), judging silence by
  // progress (rank_wait.cpp): `per_op` is one repetition's scaled deadline.
  // Names crashed, stopped, hung and slow ranks. Bodies of the "done" replies.
  Status awaitReplies(const Text& what, std::chrono::milliseconds per_op, int reps,
                      std::vector<std::string>& done);
  void stop();

  // Starting N processes on a few cores takes seconds whatever --deadline-ms
  // says: joining gets at least 10 s. Gloo's ops get their own deadline with
  // each run; NCCL's watchdog still takes the configured one from init.
  // How long a group may take to join (the NCCL worker keeps its own init
  // inside 90 % of the same budget, engine/worker/communicator.h).
  std::chrono::milliseconds joinTimeout() const;
  std::chrono::milliseconds initTimeout() const {
    return cfg_.backend == BackendKind::gloo ? joinTimeout() : cfg_.deadline;
  }

  GroupConfig cfg_;
  std::chrono::milliseconds run_deadline_{0};  // setRunDeadline
  std::vector<Worker> workers_;
  std::map<std::string, std::string> store_;  // rendezvous keys (hex values)
  BackendInfo info_;
  bool healthy_ = true;
  std::optional<std::string> fault_;
  std::optional<OpSpec> inputs_held_;
  std::optional<std::pair<OpSpec, std::vector<std::size_t>>> poisoned_;
  bool released_ = false;
  PrivateNetwork net_;
  pid_t mpirun_ = -1;  // the MPI group's launcher, our child
  int mpirun_status_ = 0;  // its wait status once reaped
  MpiLog mpi_log_;     // what mpirun printed
  MpiJobFiles mpi_files_;  // Open MPI's files, removed when the job has ended
  Text exposed_why_;  // why there is no private network
  int refused_ = 0;
};

}  // namespace collviz
