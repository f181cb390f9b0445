#include "engine/engine.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "engine/algo/algorithms.h"
#include "engine/memory_budget.h"
#include "engine/netns.h"
#include "engine/overview.h"
#include "engine/placement.h"
#include "engine/provenance.h"
#include "engine/rank_group.h"
#include "engine/verify.h"

namespace collviz {

using Clock = std::chrono::steady_clock;

namespace {

std::string defaultWorkerPath() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "collviz-rank";
  buf[n] = 0;
  return (std::filesystem::path(buf).parent_path() / "collviz-rank").string();
}

StepResult freshStep(const OpSpec& s) {
  StepResult step;
  step.spec = s;
  step.ranks.resize(s.ranks);
  for (int r = 0; r < s.ranks; ++r) step.ranks[r].rank = r;
  return step;
}

}  // namespace

Engine::Engine(EngineOptions opts) : opts_(std::move(opts)), placement_(opts_.placement) {
  if (opts_.worker_path.empty()) opts_.worker_path = defaultWorkerPath();
  thread_ = std::thread([this] { loop(); });
}

Engine::~Engine() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  cancel_ = true;
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
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
    std::erase_if(queue_, [](const Request& q) { return q.kind == Request::Kind::run; });
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

void Engine::loop() {
  for (;;) {
    Request r;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) break;
      r = queue_.front();
      queue_.pop_front();
    }
    try {
      handle(r);
    } catch (const std::bad_alloc&) {
      outOfMemory(r);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = !queue_.empty();
    }
  }
  group_.reset();  // ends the workers from the thread that started them
  std::lock_guard<std::mutex> lock(mu_);
  pids_.clear();
}

// An allocation failed somewhere in a request: drop what this thread holds
// and answer with a message, so the caller can exit in order.
void Engine::outOfMemory(const Request& r) {
  group_.reset();
  input_cache_.reset();
  auto snap = std::make_shared<Snapshot>();
  snap->request = r.id;
  snap->program = r.program;
  snap->spec = r.spec;
  snap->error = "out of memory running " + std::string(name(r.spec.op)) + " with " +
                std::to_string(r.spec.ranks) + " ranks x " + std::to_string(r.spec.elems) +
                " elements per block; try a smaller --elems";
  publish(snap);
}

void Engine::publish(std::shared_ptr<Snapshot> s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    s->seq = next_seq_++;
    latest_ = std::move(s);
    pids_ = group_ ? group_->pids() : std::vector<pid_t>{};
  }
  cv_.notify_all();
  if (opts_.wake) opts_.wake();
}

// The pattern's inputs for a spec. Computing them costs far more than
// copying them (seconds at 64 MiB per rank), and sweeps and re-runs ask for
// the same spec again and again, so the last set is kept (engine thread only).
StepResult Engine::patternInputs(const OpSpec& s, const Pattern& p) {
  if (!input_cache_ || input_cache_->spec != s) {
    input_cache_.reset();  // free the old set before building the new one
    auto step = std::make_unique<StepResult>(freshStep(s));
    fillInputs(*step, p);
    input_cache_ = std::move(step);
  }
  return *input_cache_;
}

void Engine::setPlacement(const PlacementOptions& p) {
  std::lock_guard<std::mutex> lock(mu_);
  placement_ = p;
}

Status Engine::ensureGroup(int ranks, BackendKind backend, std::string* notice) {
  PlacementOptions placement;
  {
    std::lock_guard<std::mutex> lock(mu_);
    placement = placement_;
  }
  // The route only matters to NCCL; a Gloo group is kept whatever it is.
  const bool same_route = backend != BackendKind::nccl || group_sharing_ == placement.sharing;
  if (group_ && group_->healthy() && group_->ranks() == ranks && group_->backend() == backend &&
      same_route)
    return {};
  group_.reset();
  GroupConfig cfg;
  cfg.worker_path = opts_.worker_path;
  cfg.ranks = ranks;
  cfg.backend = backend;
  cfg.deadline = opts_.deadline;
  cfg.cancel = &cancel_;
  const BackendStatus* st = devices().find(backend);
  const int gpus = st ? st->gpus : 0, version = st ? st->version_code : 0;
  cfg.placement = placeRanks(ranks, backend, gpus, version, placement);
  if (notice && backend == BackendKind::nccl && gpus > 0 && ranks > gpus &&
      placement.sharing == GpuSharing::multi_rank_gpu &&
      effectiveSharing(version, placement) != GpuSharing::multi_rank_gpu)
    *notice += std::string(notice->empty() ? "" : "; ") +
               "the multi-rank GPU route (NCCL_MULTI_RANK_GPU_ENABLE) needs NCCL " +
               ncclVersionString(kNcclMultiRankGpuVersion) + " or newer and the runtime is " +
               ncclVersionString(version) + ": ranks share a GPU through the host-id route";
  cfg.isolate = backend == BackendKind::gloo;  // NCCL ranks need the host's network and GPUs
  auto g = RankGroup::start(cfg);
  // On the shared loopback another process may have taken a pair's
  // connection: one more try before failing.
  if (!g && backend == BackendKind::gloo && !isolation().available &&
      g.error().message.find("onnection") != std::string::npos)
    g = RankGroup::start(cfg);
  if (!g && backend == BackendKind::gloo && !isolation().available)
    return Error{g.error().message + " (NOT isolated: the ranks used the host's loopback, where "
                 "another local process may have taken their connections; no private network "
                 "namespace: " + isolation().why_not + ")"};
  if (!g) return g.error();
  group_ = std::move(*g);
  group_sharing_ = placement.sharing;
  return {};
}

Result<StepResult> Engine::runStep(StepResult step, const Pattern& p, const Provenance& prov,
                                   const RunOptions& opts) {
  if (Status st = group_->run(step, opts); !st) {
    if (!group_->healthy()) group_.reset();  // the next request starts a fresh group
    return st.error();
  }
  if (verify_) labelAndVerify(step, p, prov);
  else step.verify.mode = "not checked";
  if (verify_) addOverviews(step, p, prov);  // the window's strips of big blocks
  return step;
}

// The NCCL run's buffers against each GPU's free memory: every op of the
// program (the communicator keeps its buffers across them) and an
// algorithm's working buffer.
static Status checkGpuFits(const Request& r, const OpSpec& first, const BackendStatus& nccl) {
  std::vector<OpSpec> steps{first};
  if (r.program == Program::all_reduce_decomposed)
    for (Op op : {Op::all_gather, Op::all_reduce}) {
      steps.push_back(first);
      steps.back().op = op;
    }
  int work_blocks = 0;
  if (r.algo != "native")
    if (auto sch = algo::buildSchedule(r.algo, first)) work_blocks = roundsDeviceBlocks(sch->slots);
  return checkNcclMemory(steps, work_blocks, nccl);
}

void Engine::handle(const Request& r) {
  const auto t0 = Clock::now();
  auto snap = std::make_shared<Snapshot>();
  snap->request = r.id;
  snap->program = r.program;
  snap->spec = r.spec;
  if (r.program == Program::all_reduce_decomposed) snap->spec.op = Op::all_reduce;
  auto finish = [&] {
    snap->engine_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    publish(snap);
  };
  // An algorithm's rounds run where the request says: `auto` keeps them on
  // Gloo (the CPU), `nccl` runs them on the GPUs.
  const bool rounds = r.kind == Request::Kind::run && r.algo != "native";
  auto backend = devices().choose(
      rounds && r.backend == BackendKind::automatic ? BackendKind::gloo : r.backend,
      &snap->notice);
  if (!backend) {
    snap->error = backend.error().message;
    snap->rejected = true;
    return finish();
  }
  const BackendStatus* bs = devices().find(*backend);
  snap->backend = bs->info;
  if (r.kind == Request::Kind::reconfigure) {
    OpSpec probe = r.spec;
    if (Status st = validate(probe, bs->caps); !st) {
      snap->error = st.message();
      snap->rejected = true;
    }
    else if (Status g = ensureGroup(r.spec.ranks, *backend, &snap->notice); !g)
      snap->error = g.message();
    else snap->backend = group_->info();
    snap->verified = snap->error.empty();
    return finish();
  }
  OpSpec first = snap->spec;
  if (r.program == Program::all_reduce_decomposed) first.op = Op::reduce_scatter;
  Status fits = validate(first, bs->caps);
  if (fits) fits = checkRunMemory(first, r.program == Program::all_reduce_decomposed ? 3 : 1);
  if (fits && *backend == BackendKind::nccl) fits = checkGpuFits(r, first, *bs);
  if (!fits) {
    snap->error = fits.message();
    snap->rejected = true;
    return finish();
  }
  if (r.algo != "native") {
    runAlgorithm(r, *snap, *bs);
    return finish();
  }
  if (Status st = ensureGroup(first.ranks, *backend, &snap->notice); !st) {
    snap->error = st.message();
    return finish();
  }
  snap->backend = group_->info();
  group_->setFault(r.fault);
  const char* env_fault = std::getenv("COLLVIZ_FAULT");
  const std::string fault = r.fault ? *r.fault : env_fault ? env_fault : "";
  if (!fault.empty())
    snap->notice += std::string(snap->notice.empty() ? "" : "; ") + "COLLVIZ_FAULT=" + fault +
                    ": a fault injected on purpose, the result is wrong by design";
  const Pattern pattern = choosePattern(first);
  StepResult step = patternInputs(first, pattern);
  verify_ = r.verify;
  const RunOptions reps{std::max(0, r.warmup), std::max(1, r.iters)};
  auto done = runStep(std::move(step), pattern, opProvenance(first), reps);
  if (!done) {
    snap->error = done.error().message;
    return finish();
  }
  snap->steps.push_back(std::move(*done));
  if (r.program == Program::all_reduce_decomposed) {
    // Step 2: all_gather whose inputs are step 1's outputs (Σᵢ on rank i).
    OpSpec second = first;
    second.op = Op::all_gather;
    StepResult gather = freshStep(second);
    for (int k = 0; k < second.ranks; ++k)
      gather.ranks[k].input = snap->steps[0].ranks[k].output;
    auto done2 = runStep(std::move(gather), pattern, allGatherAfterReduceScatter(first), reps);
    if (!done2) {
      snap->error = done2.error().message;
      return finish();
    }
    snap->steps.push_back(std::move(*done2));
    compareWithAllReduce(*snap, pattern);
  }
  snap->verified = !snap->steps.empty();
  for (const auto& s : snap->steps) {
    snap->verified = snap->verified && s.verify.verified;
    snap->mismatches += s.verify.wrong;
    snap->time_us += s.time_us;
  }
  if (snap->all_reduce_compared && snap->all_reduce_diffs != 0) snap->verified = false;
  finish();
}

// The decomposition's claim, checked for real: run all_reduce on the same
// inputs and compare its bytes with the all-gather step's output. Its output
// is poisoned like every run's (rank_group.cpp), so it cannot pass by leaving
// an earlier run's bytes, and it must verify on its own as well.
void Engine::compareWithAllReduce(Snapshot& snap, const Pattern& p) {
  OpSpec ar = snap.steps[0].spec;
  ar.op = Op::all_reduce;
  StepResult step = freshStep(ar);
  fillInputs(step, p);
  auto done = runStep(std::move(step), p, opProvenance(ar), RunOptions{1, 1});
  if (!done) {
    snap.error = "comparing with all_reduce: " + done.error().message;
    return;
  }
  snap.all_reduce_compared = true;
  const StepResult& gathered = snap.steps[1];
  const std::size_t sz = dtypeSize(ar.dtype);
  for (int r = 0; r < ar.ranks; ++r) {
    const auto& a = gathered.ranks[r].output.bytes;
    const auto& b = done->ranks[r].output.bytes;
    for (std::size_t i = 0; i + sz <= std::min(a.size(), b.size()); i += sz)
      if (std::memcmp(a.data() + i, b.data() + i, sz) != 0) ++snap.all_reduce_diffs;
    if (a.size() != b.size()) ++snap.all_reduce_diffs;
  }
  // An all_reduce that fails its own check proves nothing either way.
  if (!done->verify.verified) snap.all_reduce_diffs = std::max(snap.all_reduce_diffs, int64_t(1));
}

}  // namespace collviz
