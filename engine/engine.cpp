#include "engine/engine.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "engine/algo/algorithms.h"
#include "engine/memory_budget.h"
#include "engine/netns.h"
#include "engine/overview.h"
#include "engine/placement.h"
#include "engine/program_files.h"
#include "engine/provenance.h"
#include "engine/rank_group.h"
#include "engine/verify.h"
#include "engine/verify_fast.h"
#include "engine/worker/fault.h"

namespace collviz {

using Clock = std::chrono::steady_clock;

namespace {

StepResult freshStep(const OpSpec& s) {
  StepResult step;
  step.spec = s;
  step.ranks.resize(s.ranks);
  for (int r = 0; r < s.ranks; ++r) step.ranks[r].rank = r;
  return step;
}

// Elements of `a` and `b` (same length) that differ: chunks compared with
// memcmp, element by element only inside a chunk that differs.
int64_t differingElements(const std::byte* a, const std::byte* b, std::size_t bytes,
                          std::size_t sz) {
  constexpr std::size_t kChunk = std::size_t(1) << 16;
  int64_t diffs = 0;
  for (std::size_t at = 0; at < bytes; at += kChunk) {
    const std::size_t len = std::min(kChunk, bytes - at);
    if (std::memcmp(a + at, b + at, len) == 0) continue;
    for (std::size_t i = at; i + sz <= at + len; i += sz)
      if (std::memcmp(a + i, b + i, sz) != 0) ++diffs;
  }
  return diffs;
}

}  // namespace

Engine::Engine(EngineOptions opts) : opts_(std::move(opts)), placement_(opts_.placement) {
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
  progress_.phase = phase;
  progress_.fraction = fraction;
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
    latest_ = std::move(s);
    pids_ = group_ ? group_->pids() : std::vector<pid_t>{};
  }
  cv_.notify_all();
  if (opts_.wake) opts_.wake();
}

// The pattern's inputs of `s`, written straight into every rank's shared
// memory (ranks on threads of their own), unless it holds them already: a
// sweep or a re-run of the same spec writes nothing.
Status Engine::placeInputs(const OpSpec& s, const Pattern& p) {
  if (group_->inputsHeld() && *group_->inputsHeld() == s) return {};
  setPhase(Progress::Phase::inputs);
  group_->setInputsHeld(std::nullopt);
  const int threads = std::min(s.ranks, verifyThreads());
  std::vector<std::thread> pool;
  std::atomic<int> next{0};
  auto work = [&] {
    for (int r; (r = next++) < s.ranks && !stop_wait_.load();)
      if (inputBytes(s, r)) writeInputs(s, p, r, group_->memory(r));
  };
  for (int k = 1; k < threads; ++k) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (stop_wait_.load()) return Error{say("cancelled")};
  group_->setInputsHeld(s);
  return {};
}

void Engine::setPlacement(const PlacementOptions& p) {
  std::lock_guard<std::mutex> lock(mu_);
  placement_ = p;
}

Status Engine::ensureGroup(int ranks, BackendKind backend, Said* notice) {
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
  dropGroup();
  GroupConfig cfg;
  cfg.worker_path = opts_.worker_path;
  cfg.ranks = ranks;
  cfg.backend = backend;
  cfg.deadline = opts_.deadline;
  cfg.cancel = &stop_wait_;
  setPhase(Progress::Phase::starting);
  const BackendStatus* st = devices().find(backend);
  const int gpus = st ? st->gpus : 0, version = st ? st->version_code : 0;
  cfg.placement = placeRanks(ranks, backend, gpus, version, placement);
  if (notice && backend == BackendKind::nccl && gpus > 0 && ranks > gpus &&
      placement.sharing == GpuSharing::multi_rank_gpu &&
      effectiveSharing(version, placement) != GpuSharing::multi_rank_gpu) {
    const Text route = say("the multi-rank GPU route (NCCL_MULTI_RANK_GPU_ENABLE) needs NCCL {0} or newer and the runtime is {1}: ranks share a GPU through the host-id route",
                           ncclVersionString(kNcclMultiRankGpuVersion), ncclVersionString(version));
    *notice = notice->empty() ? route : joined({text_detail::arg(*notice), route});
  }
  cfg.isolate = backend == BackendKind::gloo;  // NCCL ranks need the host's network and GPUs
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
  return {};
}

Result<StepResult> Engine::runStep(const OpSpec& s, const Pattern& p, const Provenance& prov,
                                   const StepPlace& at, const RunOptions& opts,
                                   StepBytes* bytes, bool hold) {
  StepResult step = freshStep(s);
  setPhase(Progress::Phase::op);
  if (Status st = group_->run(step, at, opts); !st) {
    if (!group_->healthy()) dropGroup();  // the next request starts a fresh group
    return st.error();
  }
  *bytes = group_->bytesAt(s, at);
  if (verify_) {
    // Decode, check and overview the bytes where the workers wrote them.
    CheckControl ctl;
    ctl.stop = &stop_wait_;
    ctl.progress = [this](double f) { setPhase(Progress::Phase::verify, f / 2); };
    ClosedBlocks closed;
    if (!labelAndVerify(step, p, prov, *bytes, ctl, &closed)) return Error{say("cancelled")};
    ctl.progress = [this](double f) { setPhase(Progress::Phase::verify, 0.5 + f / 2); };
    if (!addOverviews(step, p, prov, *bytes, ctl, &closed)) return Error{say("cancelled")};
    // Inputs that no longer read as the pattern (a backend wrote into them)
    // are written again before the next run.
    for (const RankResult& rr : step.ranks)
      for (const BlockLabel& l : rr.input.labels)
        if (l.bad) group_->setInputsHeld(std::nullopt);
  } else {
    step.verify.mode = "not checked";
  }
  if (!hold) return step;
  setPhase(Progress::Phase::copy);
  for (int r = 0; r < s.ranks; ++r) {
    RankResult& rr = step.ranks[r];
    const std::size_t sz = dtypeSize(s.dtype);
    for (auto [view, span] : {std::pair{&rr.input, bytes->in[r]}, std::pair{&rr.output, bytes->out[r]}}) {
      if (!view->present) continue;
      const std::size_t count = span.size / sz;
      holdValues(*view, span.data, count, s.dtype, s.elems, holdsWhole(count, s.elems, keep_values_));
    }
  }
  keepHeld(s, *bytes);
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
  snap->algo = r.kind == Request::Kind::run ? r.algo : "native";  // a refusal names what was asked
  if (r.program == Program::all_reduce_decomposed) snap->spec.op = Op::all_reduce;
  auto finish = [&] {
    snap->engine_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    publish(snap);
  };
  if (cancelled()) {  // cancelled while queued
    snap->cancelled = true;
    snap->error = say("cancelled");
    return finish();
  }
  // An algorithm's rounds run where the request says: `auto` keeps them on
  // Gloo (the CPU), `nccl` runs them on the GPUs.
  const bool rounds = r.kind == Request::Kind::run && r.algo != "native";
  auto backend = devices().choose(
      rounds && r.backend == BackendKind::automatic ? BackendKind::gloo : r.backend,
      &snap->notice);
  if (!backend) {
    snap->error = backend.error().text;
    snap->rejected = true;
    return finish();
  }
  const BackendStatus* bs = devices().find(*backend);
  snap->backend = bs->info;
  // COLLVIZ_FAULT is checked here, once, before any worker starts with it: a
  // bad value is the user's input (refused, what is allowed), not N workers
  // that never say hello.
  for (const char* text : {static_cast<const char*>(std::getenv("COLLVIZ_FAULT")),
                           r.fault ? r.fault->c_str() : nullptr}) {
    if (!text) continue;
    if (auto f = parseFault(text, std::max(1, r.spec.ranks)); !f) {
      snap->error = f.error().text;
      snap->rejected = true;
      return finish();
    }
  }
  if (r.kind == Request::Kind::reconfigure) {
    OpSpec probe = r.spec;
    if (Status st = validate(probe, bs->caps); !st) {
      snap->error = st.text();
      snap->rejected = true;
    }
    else if (Status g = ensureGroup(r.spec.ranks, *backend, &snap->notice); !g)
      snap->error = g.text();
    else snap->backend = group_->info();
    snap->verified = snap->error.empty();
    return finish();
  }
  OpSpec first = snap->spec;
  if (r.program == Program::all_reduce_decomposed) first.op = Op::reduce_scatter;
  Status fits = validate(first, bs->caps);
  if (fits) {
    // The snapshot copies every value when asked to keep buffers this big.
    std::size_t largest = 0;
    for (int q = 0; q < first.ranks; ++q)
      largest = std::max({largest, inputBytes(first, q), outputBytes(snap->spec, q)});
    const bool keep_all =
        r.keep_values < 0 || double(r.keep_values) * double(dtypeSize(first.dtype)) >= double(largest);
    if (r.kind == Request::Kind::run && r.algo != "native") {
      // What rounds hold (memory_budget.h); a schedule that cannot be built
      // is refused with its own reason later.
      if (auto sch = algo::buildSchedule(r.algo, first))
        fits = checkRoundsMemory(first, sch->slots, r.every_round, keep_all);
    } else {
      fits = checkRunMemory(first, r.program == Program::all_reduce_decomposed ? 3 : 1, false, keep_all);
    }
  }
  if (fits && *backend == BackendKind::nccl) fits = checkGpuFits(r, first, *bs);
  if (!fits) {
    snap->error = fits.text();
    snap->rejected = true;
    return finish();
  }
  if (r.algo != "native") {
    runAlgorithm(r, *snap, *bs);
    return finish();
  }
  if (Status st = ensureGroup(first.ranks, *backend, &snap->notice); !st) {
    snap->error = st.text();
    return finish();
  }
  snap->backend = group_->info();
  group_->setFault(r.fault);
  noteFault(r, snap->notice);
  const Pattern pattern = choosePattern(first);
  verify_ = r.verify;
  keep_values_ = r.keep_values;
  const RunOptions reps{std::max(0, r.warmup), std::max(1, r.iters)};
  const bool decomposed = r.program == Program::all_reduce_decomposed;
  // Where the buffers go in each rank's shared memory: the inputs at 0, the
  // output after them; the decomposition keeps every op's output (the
  // all-gather reads the reduce-scatter's where it is, and the all_reduce
  // compared with it writes its own), so all of them can be fetched later.
  StepPlace at = singlePlace(first);
  OpSpec second = first, compared = first;
  second.op = Op::all_gather;
  compared.op = Op::all_reduce;
  StepPlace at2, at3;
  if (decomposed) {
    for (int k = 0; k < first.ranks; ++k) {
      const std::size_t gathered = at.out[k] + alignToPage(outputBytes(first, k));
      at2.in.push_back(at.out[k]);
      at2.out.push_back(gathered);
      at3.in.push_back(0);
      at3.out.push_back(gathered + alignToPage(outputBytes(second, k)));
    }
  }
  std::vector<std::size_t> need = placeBytes(first, at);
  if (decomposed) need = placeBytes(compared, at3);
  snap->steps.reserve(decomposed ? 2 : 1);
  auto failed = [&](const Status& st) {
    if (!group_ || !group_->healthy()) dropGroup();
    snap->error = st.text();
    if (cancelled()) {
      snap->cancelled = true;
      snap->error = say("cancelled");
    }
    next_held_.clear();
    return finish();
  };
  if (Status st = group_->reserve(need); !st)
    return failed(Error{say("{0}: {1}", name(first.op), st.text())});
  if (Status st = placeInputs(first, pattern); !st) return failed(st);
  StepBytes bytes1, bytes2;
  {
    std::lock_guard<std::mutex> lock(mu_);
    progress_.steps = decomposed ? 3 : 1;
  }
  auto done = runStep(first, pattern, opProvenance(first), at, reps, &bytes1);
  if (!done) return failed(done.error());
  snap->steps.push_back(std::move(*done));
  if (decomposed) {
    // Step 2: all_gather whose inputs are step 1's outputs (Σᵢ on rank i),
    // read where step 1 left them.
    {
      std::lock_guard<std::mutex> lock(mu_);
      progress_.step = 1;
    }
    auto done2 = runStep(second, pattern, allGatherAfterReduceScatter(first), at2, reps, &bytes2);
    if (!done2) return failed(done2.error());
    snap->steps.push_back(std::move(*done2));
    {
      std::lock_guard<std::mutex> lock(mu_);
      progress_.step = 2;
    }
    compareWithAllReduce(*snap, pattern, at3, bytes2);
    if (cancelled()) return failed(Error{say("cancelled")});
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
// inputs (still at offset 0) and compare its bytes with the all-gather step's
// output, chunk by chunk with memcmp. Its output is poisoned like every run's
// (rank_group.cpp), so it cannot pass by leaving an earlier run's bytes, and
// it must verify on its own as well.
void Engine::compareWithAllReduce(Snapshot& snap, const Pattern& p, const StepPlace& at,
                                  const StepBytes& gathered) {
  OpSpec ar = snap.steps[0].spec;
  ar.op = Op::all_reduce;
  StepBytes bytes;
  auto done = runStep(ar, p, opProvenance(ar), at, RunOptions{1, 1}, &bytes, false);
  if (!done) {
    snap.error = say("comparing with all_reduce: {0}", done.error().text);
    return;
  }
  setPhase(Progress::Phase::compare);
  snap.all_reduce_compared = true;
  const std::size_t sz = dtypeSize(ar.dtype);
  for (int r = 0; r < ar.ranks; ++r) {
    const ByteSpan& a = gathered.out[r];
    const ByteSpan& b = bytes.out[r];
    snap.all_reduce_diffs += differingElements(a.data, b.data, std::min(a.size, b.size), sz);
    if (a.size != b.size) ++snap.all_reduce_diffs;
  }
  // An all_reduce that fails its own check proves nothing either way.
  if (!done->verify.verified) snap.all_reduce_diffs = std::max(snap.all_reduce_diffs, int64_t(1));
}

}  // namespace collviz
