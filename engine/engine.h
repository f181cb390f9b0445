// Engine: one thread that owns the rank workers, takes requests from a queue
// without blocking the caller, and publishes immutable snapshots.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "engine/group/devices.h"
#include "engine/group/hosts.h"
#include "engine/verify/held_values.h"
#include "engine/group/placement.h"
#include "engine/snapshot.h"
#include "engine/spec.h"

namespace collviz {

namespace algo {
struct Schedule;
}

class RankGroup;
struct Pattern;
struct Provenance;
struct RunOptions;
struct StepBytes;
struct StepPlace;

struct EngineOptions {
  std::string worker_path;  // collviz-rank; empty: next to this executable
  std::chrono::milliseconds deadline{5000};  // per op, before a rank counts as hung
  // Called on the engine thread before each round of an algorithm run round
  // by round (progress; tests use it to break a rank mid-schedule).
  std::function<void(int round, int rounds)> on_round;
  PlacementOptions placement;  // how NCCL ranks share a GPU (host-id or multi-rank route)
  // Called on the engine thread after each snapshot is published, so a
  // viewer that sleeps until something happens (the window) wakes for it.
  std::function<void()> wake;
  // NCCL ranks write NCCL's own log (NCCL_DEBUG=INFO, group/nccl_debug_env.h)
  // into a folder of the engine's, read back with engine/job/nccl_log
  // (ncclLogDir). Off for the bench, whose times it would change.
  bool nccl_log = true;
  // Ranks on these hosts (engine/group/hosts.h, issue 33), launched by
  // mpirun; `auto` then means MPI. Empty: one machine, as always.
  HostSpec hosts;
};

struct Request {
  enum class Kind : uint8_t { run, reconfigure, shutdown };
  Kind kind = Kind::run;
  Program program = Program::single;
  OpSpec spec;
  BackendKind backend = BackendKind::automatic;
  // Untimed calls first. One by default: the op time is not the first
  // call's (Gloo connects its pairs then), and a backend that writes only
  // on the first call is caught (the output is poisoned before the last).
  int warmup = 1;
  int iters = 1;       // timed repetitions; op times are their average
  bool verify = true;  // decode and check the outputs (of the last repetition)
  // The algorithm (engine/algo/algorithms.h): "native" is the backend's own
  // call; any other runs its schedule of point-to-point rounds.
  std::string algo = "native";
  // Algorithm: a snapshot of every rank after every round, checked against
  // the reference, and the final state compared with the native op. False
  // (benchmarks): the rounds back to back, the output checked once.
  bool every_round = true;
  // COLLVIZ_FAULT for the workers (engine/worker/fault.h), sent with the
  // run: unset keeps the workers' environment's, "" means none.
  std::optional<std::string> fault;
  // Values the snapshot holds (engine/verify/held_values.h): buffers of at most this
  // many elements keep every value, -1 every buffer (`collviz run --values
  // all`); bigger buffers with big blocks keep the ends of each block.
  int64_t keep_values = 0;
  // This run's --deadline-ms where it is more than the engine's (0: the
  // engine's): the window asks for its ops' deadline scaled by their bytes,
  // so that a big op (one opened from a job) on a loaded machine is not
  // called hung by collviz's own 5 s (RankGroup::setRunDeadline).
  std::chrono::milliseconds deadline{0};
  // The last request this engine gets (a one-shot `collviz run`): the ranks
  // are told to end as soon as their bytes are in, and end while the engine
  // checks them (RankGroup::release). The group is not used again.
  bool last = false;
  uint64_t id = 0;     // filled by the engine
};

// What the engine is doing for a request, for a progress bar.
struct Progress {
  enum class Phase : uint8_t {
    idle,      // nothing to do
    starting,  // starting the rank workers
    inputs,    // writing the pattern's inputs into shared memory
    op,        // the ranks run the collective (warm-up and timed calls)
    verify,    // decoding and checking the bytes, overviews
    copy,      // copying the values the snapshot keeps
    compare,   // the decomposition's all_reduce, an algorithm's native op
  };
  uint64_t request = 0;  // 0: idle
  Phase phase = Phase::idle;
  double fraction = -1;  // of this phase, 0..1 where known, else -1
  int step = 0, steps = 1;  // the program's op being run (0-based)
  std::chrono::steady_clock::time_point since{};  // the request's start
};

// Where a request's time went in the engine, by phase (microseconds of
// wall time; `collviz run --profile`). The phases follow Progress::Phase:
// start-up (probing the backends, starting the ranks), inputs (the
// pattern written into shared memory), poison (the outputs poisoned before
// each run and the run sent), op (from sending a run to the last rank's
// reply: the ranks' warm-up and timed calls), verify (decoding, checking,
// overviews), copies (the values the snapshot keeps), compare (the
// decomposition's comparison) and other (checks before the run, the
// snapshot built). Together they are the request's time in the engine.
struct PhaseTimes {
  uint64_t request = 0;  // the request they are of; 0: none
  double start_us = 0, inputs_us = 0, poison_us = 0, op_us = 0, verify_us = 0, copy_us = 0,
         compare_us = 0, other_us = 0;
  // op_us by what the ranks did in it (StepResult::reach_us...), where every
  // rank stamped its run (Gloo on this host; else all 0): they add up to op_us.
  double reach_us = 0, warmup_us = 0, rank_poison_us = 0, timed_us = 0, replies_us = 0;
};

// A native op on NCCL (Engine::publish): the ranks' log (NCCL_DEBUG_FILE in
// `dir`, Engine::ncclLogDir) read once for what NCCL chose for the op
// (Snapshot::nccl_choice) and the communicator it built (Snapshot::nccl_log).
void attachNcclLog(Snapshot& s, const std::string& dir);

class Engine {
 public:
  explicit Engine(EngineOptions opts = {});
  ~Engine();  // shuts down, joins the thread, ends the workers
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Enqueue; returns at once with the request id. A newer run request
  // replaces queued (not yet started) run requests: the UI wants the latest.
  uint64_t run(const OpSpec& spec, Program program = Program::single,
               BackendKind backend = BackendKind::automatic);
  // Any request (run with repetitions, reconfigure); returns its id.
  uint64_t submit(Request r);
  // Start (or restart) the workers for `ranks` on `backend` ahead of a run.
  uint64_t reconfigure(int ranks, BackendKind backend);
  // How NCCL ranks share a GPU from the next run on (a group started with
  // another route is replaced then).
  void setPlacement(const PlacementOptions& p);
  // Where the ranks run from the next run on (the window's Hosts field,
  // issue 33): a group on other hosts is ended then and one started on
  // these; empty, this machine. `auto` follows (MPI with hosts).
  void setHosts(const HostSpec& hosts);
  HostSpec hosts() const;

  // The newest snapshot (nullptr before the first). Never waits on an op.
  std::shared_ptr<const Snapshot> latest() const;
  // Block until the snapshot answering `request` (or a later one) is out.
  std::shared_ptr<const Snapshot> waitFor(uint64_t request,
                                          std::chrono::milliseconds timeout) const;
  bool busy() const { return busy_.load(); }
  // The request in flight and its phase. Never waits on an op.
  Progress progress() const;
  // The phases of the newest request answered (Snapshot::request), once
  // its snapshot is out.
  PhaseTimes phases() const;
  // End request `id`: a queued one is answered at once, a running one stops
  // waiting on its ranks (they are killed; the next run starts a fresh
  // group) or stops its checks. Its snapshot says "cancelled". False when
  // `id` is neither queued nor running.
  bool cancel(uint64_t id);

  // Exact values of elements [first, first + count) of one buffer of the
  // snapshot `seq` (step, rank, side), read from the workers' shared memory
  // while that snapshot is the newest the engine published (else stale).
  // Takes a lock the engine thread holds only to switch snapshots: never
  // waits on an op. count is capped at kFetchMax.
  FetchedValues fetchValues(uint64_t seq, int step, int rank, BufferSide side, int64_t first,
                            int64_t count) const;
  const EngineOptions& options() const { return opts_; }

  // Backends and devices (probes collviz-rank once, cached).
  const DeviceReport& devices();
  // Where `requested` would run: this machine's report, except NCCL across
  // hosts, which runs on the hosts' GPUs: what every host's own probe says
  // (combineHostReports; probed once per hosts choice, cached).
  DeviceReport devicesFor(BackendKind requested);
  // The worker processes of the current group (for tests and diagnostics).
  std::vector<pid_t> workerPids() const;
  // The folder NCCL ranks write their own logs to ("" before an NCCL group,
  // or where the user set NCCL_DEBUG); removed with the engine.
  std::string ncclLogDir() const;

 private:
  void loop();
  void handle(const Request& r);
  void publish(std::shared_ptr<Snapshot> s);
  void outOfMemory(const Request& r);
  Status ensureGroup(int ranks, BackendKind backend, Said* notice);
  // "COLLVIZ_FAULT=...: a fault injected on purpose" after `notice`, when the
  // request (or the environment) injects one; said once the run is over
  // (`verified`: its verdict).
  static void noteFault(const Request& r, Said& notice, bool verified);
  // The request's fault (its own, else the environment's) checked against
  // the run (worker/fault.h faultFits; `s` nullptr: the backend's own call).
  static Status faultFitsRun(const Request& r, const algo::Schedule* s);
  // The pattern's inputs of `s` at offset 0 of every rank's shared memory
  // (written only when the memory does not hold them already).
  Status placeInputs(const OpSpec& s, const Pattern& p);
  // Run one op on the inputs at `at.in` into `at.out`, then check it and,
  // with `hold`, keep its values for the snapshot and for fetchValues,
  // reading the shared memory; `bytes` gets where they are. `release`: the
  // ranks are let go once the bytes are in, before the check (Request::last).
  Result<StepResult> runStep(const OpSpec& s, const Pattern& p, const Provenance& prov,
                             const StepPlace& at, const RunOptions& opts, StepBytes* bytes,
                             bool hold = true, bool release = false);
  void compareWithAllReduce(Snapshot& snap, const Pattern& p, const StepPlace& at,
                            const StepBytes& gathered);
  void runAlgorithm(const Request& r, Snapshot& snap, const BackendStatus& backend);
  void setPhase(Progress::Phase phase, double fraction = -1);
  bool cancelled() const;  // the current request was cancelled (engine thread)
  void dropGroup();        // end the workers (engine thread)

  EngineOptions opts_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;  // queue and publication
  std::deque<Request> queue_;
  uint64_t next_id_ = 1;
  uint64_t next_seq_ = 1;
  std::shared_ptr<const Snapshot> latest_;
  std::atomic<bool> busy_{false};
  bool stop_ = false;
  std::atomic<bool> cancel_{false};  // shutdown: stop waiting on workers
  // Set on shutdown or when the current request is cancelled: the group's
  // waits end at once (GroupConfig::cancel).
  std::atomic<bool> stop_wait_{false};
  uint64_t current_ = 0;     // under mu_: the request being handled
  std::vector<uint64_t> cancel_ids_;  // under mu_: requests asked to end, not yet answered
  Progress progress_;        // under mu_
  // The current request's time by phase (under mu_): setPhase closes the
  // phase left; waited_us_ the op waits in it (engine thread only).
  std::array<double, 7> phase_us_{};
  std::chrono::steady_clock::time_point phase_since_{};
  double waited_us_ = 0;
  PhaseTimes split_;  // the waits' parts (reach_us...), summed over the steps (engine thread only)
  PhaseTimes phases_;  // under mu_: the newest answered request's
  PhaseTimes takePhases();
  std::vector<pid_t> pids_;

  std::mutex devices_mu_;
  std::unique_ptr<DeviceReport> devices_;
  std::unique_ptr<DeviceReport> hosts_devices_;  // under devices_mu_: NCCL on hosts_devices_for_
  HostSpec hosts_devices_for_;

  PlacementOptions placement_;  // under mu_: setPlacement's newest choice
  HostSpec hosts_;              // under mu_: setHosts's newest choice (first opts_.hosts)
  HostSpec group_hosts_;        // engine thread only: where group_'s ranks run
  std::unique_ptr<RankGroup> group_;  // engine thread only
  std::string nccl_log_dir_;          // under mu_
  GpuSharing group_sharing_ = GpuSharing::host_id;  // engine thread only: group_'s route
  bool verify_ = true;                // engine thread only: current request's
  int64_t keep_values_ = 0;           // engine thread only: current request's

  // Where the newest snapshot's buffers are in the workers' shared memory,
  // for fetchValues. The engine thread clears it (under held_mu_) before a
  // request touches that memory and sets it when it publishes.
  struct HeldStep {
    OpSpec spec;
    std::vector<const std::byte*> in, out;  // per rank, null where absent
  };
  mutable std::mutex held_mu_;
  uint64_t held_seq_ = 0;              // under held_mu_: 0 none
  uint64_t published_seq_ = 0;         // under held_mu_: the newest snapshot's seq
  std::vector<HeldStep> held_;         // under held_mu_
  std::vector<HeldStep> next_held_;    // engine thread only: the request's, until published
  void releaseHeld();
  void keepHeld(const OpSpec& s, const StepBytes& bytes);
  std::thread thread_;
};

}  // namespace collviz
