// The engine thread: its request queue, cancel and progress, the snapshots
// it publishes, held values, and the rank group it keeps. What it runs is in
// program/ (op.cpp: one op and the decomposition; rounds.cpp: an algorithm).
#include "engine/engine.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "engine/algo/algorithms.h"
#include "engine/job/nccl_log/nccl_log.h"
#include "engine/group/memory_budget.h"
#include "engine/group/nccl_debug_env.h"
#include "engine/group/netns.h"
#include "engine/verify/overview.h"
#include "engine/group/placement.h"
#include "engine/group/program_files.h"
#include "engine/verify/provenance.h"
#include "engine/group/rank_group.h"
#include "engine/group/remote_probe.h"
#include "engine/verify/verify.h"
#include "engine/verify/verify_fast.h"
#include "engine/worker/fault.h"

namespace collviz {

using Clock = std::chrono::steady_clock;

void attachNcclLog(Snapshot& s, const std::string& dir) {
  if (dir.empty()) return;
  auto log = nccl_log::read({dir});
  if (!log.ok()) return;
  if (auto choice = nccl_log::lastChoice(*log, s.spec.op)) s.nccl_choice = nccl_log::choiceText(*choice);
  if (!log->comms.empty()) s.nccl_log = std::make_shared<const nccl_log::Log>(std::move(*log));
}

Engine::Engine(EngineOptions opts) : opts_(std::move(opts)), placement_(opts_.placement), hosts_(opts_.hosts) {
  if (opts_.worker_path.empty()) opts_.worker_path = workerPath();
  thread_ = std::thread([this] { loop(); });
}

Engine::~Engine() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  cancel_ = true;
  stop_wait_ = true;
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  group_.reset();  // the ranks end before their log folder goes
  if (!nccl_log_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(nccl_log_dir_, ec);
  }
}

std::string Engine::ncclLogDir() const {
  std::lock_guard<std::mutex> lock(mu_);
  return nccl_log_dir_;
}

uint64_t Engine::run(const OpSpec& spec, Program program, BackendKind backend) {
  Request r;
  r.kind = Request::Kind::run;
  r.spec = spec;
  r.program = program;
  r.backend = backend;
  return submit(r);
}

uint64_t Engine::reconfigure(int ranks, BackendKind backend) {
  Request r;
  r.kind = Request::Kind::reconfigure;
  r.spec.ranks = ranks;
  r.backend = backend;
  return submit(r);
}

uint64_t Engine::submit(Request r) {
  std::lock_guard<std::mutex> lock(mu_);
  // Only the newest run matters to a viewer; drop queued, unstarted runs.
  if (r.kind == Request::Kind::run)
    std::erase_if(queue_, [&](const Request& q) {
      if (q.kind != Request::Kind::run) return false;
      std::erase(cancel_ids_, q.id);
      return true;
    });
  r.id = next_id_++;
  queue_.push_back(r);
  busy_ = true;
  cv_.notify_all();
  return r.id;
}

std::shared_ptr<const Snapshot> Engine::latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

std::shared_ptr<const Snapshot> Engine::waitFor(uint64_t request,
                                                std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return latest_ && latest_->request >= request; });
  return latest_ && latest_->request >= request ? latest_ : nullptr;
}

Progress Engine::progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return progress_;
}

PhaseTimes Engine::phases() const {
  std::lock_guard<std::mutex> lock(mu_);
  return phases_;
}

bool Engine::cancel(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool queued = std::any_of(queue_.begin(), queue_.end(),
                                  [&](const Request& q) { return q.id == id; });
  if (!queued && (id == 0 || id != current_)) return false;
  if (std::find(cancel_ids_.begin(), cancel_ids_.end(), id) == cancel_ids_.end())
    cancel_ids_.push_back(id);
  if (id == current_) stop_wait_ = true;
  return true;
}

bool Engine::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_ != 0 &&
         std::find(cancel_ids_.begin(), cancel_ids_.end(), current_) != cancel_ids_.end();
}

void Engine::setPhase(Progress::Phase phase, double fraction) {
  std::lock_guard<std::mutex> lock(mu_);
  if (phase != progress_.phase) {
    const auto now = Clock::now();
    phase_us_[std::size_t(progress_.phase)] +=
        std::chrono::duration<double, std::micro>(now - phase_since_).count();
    phase_since_ = now;
  }
  progress_.phase = phase;
  progress_.fraction = fraction;
}

// The request's time by phase up to now; the op phase is split into the
// ranks' calls (the waits) and what the engine did before sending them.
PhaseTimes Engine::takePhases() {
  setPhase(Progress::Phase::idle);  // closes the phase in progress
  std::lock_guard<std::mutex> lock(mu_);
  using P = Progress::Phase;
  auto at = [&](P p) { return phase_us_[std::size_t(p)]; };
  PhaseTimes t;
  t.request = progress_.request;
  t.start_us = at(P::starting);
  t.inputs_us = at(P::inputs);
  t.op_us = waited_us_ > 0 ? std::min(waited_us_, at(P::op)) : at(P::op);
  t.poison_us = at(P::op) - t.op_us;
  t.verify_us = at(P::verify);
  t.copy_us = at(P::copy);
  t.compare_us = at(P::compare);
  t.other_us = at(P::idle);
  if (split_.timed_us > 0 && t.op_us == waited_us_) {
    t.reach_us = split_.reach_us, t.warmup_us = split_.warmup_us, t.rank_poison_us = split_.rank_poison_us;
    t.timed_us = split_.timed_us, t.replies_us = split_.replies_us;
  }
  return t;
}

FetchedValues Engine::fetchValues(uint64_t seq, int step, int rank, BufferSide side,
                                  int64_t first, int64_t count) const {
  FetchedValues f;
  f.first = first;
  std::lock_guard<std::mutex> lock(held_mu_);
  if (seq == 0 || seq != held_seq_) {
    const bool stale = seq != 0 && seq <= published_seq_;
    f.status = stale ? FetchedValues::Status::stale : FetchedValues::Status::unavailable;
    f.why = stale ? say("a newer run has used the workers' memory since; run it again to see these values")
                  : say("no such run");
    return f;
  }
  if (step < 0 || step >= int(held_.size()) || rank < 0 ||
      rank >= int(held_[std::size_t(step)].in.size())) {
    f.why = say("the workers' memory does not hold this buffer");
    return f;
  }
  const HeldStep& h = held_[std::size_t(step)];
  f.dtype = h.spec.dtype;
  const std::byte* data = side == BufferSide::input ? h.in[std::size_t(rank)] : h.out[std::size_t(rank)];
  const std::size_t bytes = side == BufferSide::input ? inputBytes(h.spec, rank) : outputBytes(h.spec, rank);
  const std::size_t sz = dtypeSize(h.spec.dtype), n = data ? bytes / sz : 0;
  if (!data || first < 0 || std::size_t(first) >= n) {
    f.why = say("no such element");
    return f;
  }
  const std::size_t take = std::min<std::size_t>(n - std::size_t(first),
                                                 std::size_t(std::clamp<int64_t>(count, 0, kFetchMax)));
  f.bytes.assign(data + std::size_t(first) * sz, data + (std::size_t(first) + take) * sz);
  f.status = FetchedValues::Status::ok;
  return f;
}

void Engine::releaseHeld() {
  std::lock_guard<std::mutex> lock(held_mu_);
  held_seq_ = 0;
  held_.clear();
}

void Engine::keepHeld(const OpSpec& s, const StepBytes& bytes) {
  HeldStep h;
  h.spec = s;
  for (int r = 0; r < s.ranks; ++r) {
    h.in.push_back(bytes.in[r].data);
    h.out.push_back(bytes.out[r].data);
  }
  next_held_.push_back(std::move(h));
}

void Engine::dropGroup() {
  releaseHeld();
  group_.reset();
}

std::vector<pid_t> Engine::workerPids() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pids_;
}

const DeviceReport& Engine::devices() {
  std::lock_guard<std::mutex> lock(devices_mu_);
  if (!devices_) {
    auto rep = probeDevices(opts_.worker_path, 30000, &cancel_);
    devices_ = std::make_unique<DeviceReport>();
    if (rep) {
      *devices_ = std::move(*rep);
    } else {
      BackendStatus gloo;
      gloo.kind = BackendKind::gloo;
      gloo.reason = rep.error().message;
      devices_->backends.push_back(gloo);
    }
  }
  return *devices_;
}

DeviceReport Engine::devicesFor(BackendKind requested) {
  const HostSpec on = hosts();
  if (on.empty() || requested != BackendKind::nccl) return devices();
  std::lock_guard<std::mutex> lock(devices_mu_);
  if (!hosts_devices_ || !(hosts_devices_for_ == on)) {
    hosts_devices_ = std::make_unique<DeviceReport>(combineHostReports(probeHosts(on, opts_.worker_path)));
    hosts_devices_for_ = on;
  }
  return *hosts_devices_;
}

void Engine::loop() {
  for (;;) {
    Request r;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) break;
      r = queue_.front();
      queue_.pop_front();
      current_ = r.id;
      stop_wait_ = cancel_.load() ||
                   std::find(cancel_ids_.begin(), cancel_ids_.end(), r.id) != cancel_ids_.end();
      progress_ = Progress{};
      progress_.request = r.id;
      progress_.since = Clock::now();
      phase_us_ = {};
      phase_since_ = progress_.since;
      waited_us_ = 0;
      split_ = {};
    }
    // The memory the newest snapshot's values are read from is about to be
    // written: fetches answer "stale" from here on.
    releaseHeld();
    next_held_.clear();
    try {
      handle(r);
    } catch (const std::bad_alloc&) {
      outOfMemory(r);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = !queue_.empty();
      std::erase(cancel_ids_, current_);
      current_ = 0;
      progress_ = Progress{};
    }
  }
  dropGroup();  // ends the workers from the thread that started them
  std::lock_guard<std::mutex> lock(mu_);
  pids_.clear();
}

// An allocation failed somewhere in a request: drop what this thread holds
// and answer with a message, so the caller can exit in order.
void Engine::outOfMemory(const Request& r) {
  dropGroup();
  next_held_.clear();
  auto snap = std::make_shared<Snapshot>();
  snap->request = r.id;
  snap->program = r.program;
  snap->spec = r.spec;
  snap->error = say("out of memory running {0} with {1} ranks x {2} elements per block; try a smaller --elems",
                    name(r.spec.op), r.spec.ranks, r.spec.elems);
  publish(snap);
}

void Engine::publish(std::shared_ptr<Snapshot> s) {
  if (s->error.empty() && s->algo == "native" && s->program == Program::single && s->backend.name == "nccl" &&
      group_hosts_.empty())
    attachNcclLog(*s, ncclLogDir());
  {
    std::lock_guard<std::mutex> lock(mu_);
    s->seq = next_seq_++;
    {
      std::lock_guard<std::mutex> held(held_mu_);
      held_seq_ = s->error.empty() && group_ ? s->seq : 0;
      held_ = held_seq_ ? std::move(next_held_) : std::vector<HeldStep>{};
      published_seq_ = s->seq;
    }
    next_held_.clear();
    // Across hosts: where each rank ran (its host and pid there).
    if (group_ && !group_hosts_.empty()) {
      const auto places = group_->places();
      for (std::size_t r = 0; r < places.size(); ++r) s->places.push_back({int(r), places[r].host, places[r].pid});
      // A rank knows only its own host's transport (vader); mpirun was given
      // TCP for the links between hosts.
      if (s->backend.name == "mpi")
        s->backend.transport = say("shared memory within a host, TCP between hosts (Open MPI btl self,vader,tcp)");
    }
    latest_ = std::move(s);
    pids_ = group_ ? group_->pids() : std::vector<pid_t>{};
  }
  cv_.notify_all();
  if (opts_.wake) opts_.wake();
}


void Engine::setPlacement(const PlacementOptions& p) {
  std::lock_guard<std::mutex> lock(mu_);
  placement_ = p;
}

void Engine::setHosts(const HostSpec& hosts) {
  std::lock_guard<std::mutex> lock(mu_);
  hosts_ = hosts;
}

HostSpec Engine::hosts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hosts_;
}

Status Engine::ensureGroup(int ranks, BackendKind backend, Said* notice) {
  PlacementOptions placement;
  HostSpec hosts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    placement = placement_;
    hosts = hosts_;
  }
  // The route only matters to NCCL; a Gloo group is kept whatever it is.
  const bool same_route = backend != BackendKind::nccl || group_sharing_ == placement.sharing;
  if (group_ && group_->healthy() && group_->ranks() == ranks && group_->backend() == backend &&
      same_route && group_hosts_ == hosts)
    return {};
  dropGroup();
  GroupConfig cfg;
  cfg.hosts = hosts;
  cfg.worker_path = opts_.worker_path;
  cfg.ranks = ranks;
  cfg.backend = backend;
  cfg.deadline = opts_.deadline;
  cfg.cancel = &stop_wait_;
  setPhase(Progress::Phase::starting);
  const BackendStatus* st = devices().find(backend);
  const int gpus = st ? st->gpus : 0, version = st ? st->version_code : 0;
  cfg.placement = placeRanks(ranks, backend, gpus, version, placement);
  // Across hosts each host places its own ranks (placeOnHost, in the rank)
  // and NCCL's log would be written there: neither is done here.
  if (backend == BackendKind::nccl && opts_.nccl_log && hosts.empty()) {
    std::string dir;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (nccl_log_dir_.empty()) nccl_log_dir_ = makeNcclLogDir();
      dir = nccl_log_dir_;
    }
    const auto env = ncclDebugEnv(dir, [](const char* n) { return std::getenv(n); });
    for (RankPlacement& p : cfg.placement) p.env.insert(p.env.end(), env.begin(), env.end());
  }
  if (notice && hosts.empty() && backend == BackendKind::nccl && gpus > 0 && ranks > gpus &&
      placement.sharing == GpuSharing::multi_rank_gpu &&
      effectiveSharing(version, placement) != GpuSharing::multi_rank_gpu) {
    const Text route = say("the multi-rank GPU route (NCCL_MULTI_RANK_GPU_ENABLE) needs NCCL {0} or newer and the runtime is {1}: ranks share a GPU through the host-id route",
                           ncclVersionString(kNcclMultiRankGpuVersion), ncclVersionString(version));
    *notice = notice->empty() ? route : joined({text_detail::arg(*notice), route});
  }
  cfg.isolate = backend == BackendKind::gloo && hosts.empty();  // NCCL ranks need the host's network and GPUs
  auto g = RankGroup::start(cfg);
  // On the shared loopback another process may have taken a pair's
  // connection: one more try before failing.
  if (!g && backend == BackendKind::gloo && !isolation().available &&
      g.error().message.find("onnection") != std::string::npos)
    g = RankGroup::start(cfg);
  if (!g && backend == BackendKind::gloo && !isolation().available)
    return Error{say("{0} (NOT isolated: the ranks used the host's loopback, where another local process may have taken their connections; no private network namespace: {1})",
                     g.error().text, isolation().why_not)};
  if (!g) return g.error();
  group_ = std::move(*g);
  group_sharing_ = placement.sharing;
  group_hosts_ = std::move(hosts);
  return {};
}

}  // namespace collviz
