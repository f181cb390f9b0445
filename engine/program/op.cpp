// The engine's one-op programs: a collective and the two-step all-reduce
// decomposition (reduce-scatter then all-gather), run on the rank group,
// decoded and verified (Engine::handle). An algorithm's rounds are in
// program/rounds.cpp; the thread and its queue in engine.cpp.
#include "engine/engine.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <future>
#include <thread>

#include "engine/algo/algorithms.h"
#include "engine/group/memory_budget.h"
#include "engine/group/placement.h"
#include "engine/group/rank_group.h"
#include "engine/group/shared_memory.h"
#include "engine/verify/overview.h"
#include "engine/verify/poison.h"
#include "engine/verify/provenance.h"
#include "engine/verify/verify.h"
#include "engine/verify/verify_fast.h"
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

// Memory made for a new group, filled by the thread that made it, while
// the ranks start: the first op's inputs at `at.in`, its outputs at
// `at.out` poisoned (what placeInputs and RankGroup::run would do next on
// the engine's thread, once the ranks had joined). The ranks' start is
// mostly waiting (a 1-element run keeps 0.95 of this VM's 2 CPUs busy) and
// the memory is made ~55 ms before the ranks are ready (4 ranks, 16 MiB).
void fillFresh(std::vector<SharedMemory>& mems, const OpSpec& s, const Pattern& p, const StepPlace& at) {
  const int n = std::min(s.ranks, int(mems.size()));
  std::atomic<int> next{0};
  auto work = [&] {
    for (int r; (r = next++) < n;) {
      std::byte* base = reinterpret_cast<std::byte*>(mems[std::size_t(r)].data());
      if (inputBytes(s, r)) writeInputs(s, p, r, base + at.in[std::size_t(r)]);
      poisonBytes(base + at.out[std::size_t(r)], outputBytes(s, r), s.dtype);
    }
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < std::min(n, verifyThreads()); ++k) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace

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


Result<StepResult> Engine::runStep(const OpSpec& s, const Pattern& p, const Provenance& prov,
                                   const StepPlace& at, const RunOptions& opts,
                                   StepBytes* bytes, bool hold, bool release) {
  StepResult step = freshStep(s);
  setPhase(Progress::Phase::op);
  if (Status st = group_->run(step, at, opts); !st) {
    if (!group_->healthy()) dropGroup();  // the next request starts a fresh group
    return st.error();
  }
  waited_us_ += step.wait_us;
  split_.reach_us += step.reach_us, split_.warmup_us += step.warmup_us, split_.rank_poison_us += step.rank_poison_us;
  split_.timed_us += step.timed_us, split_.replies_us += step.replies_us;
  *bytes = group_->bytesAt(s, at);
  if (release) group_->release();
  if (verify_) {
    // Decode, check and overview the bytes where the workers wrote them.
    setPhase(Progress::Phase::verify, 0);  // the check's time is its own from here, not the op's
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
  bool faulted = false;  // the run reached the workers: its fault (if any) is noted
  auto finish = [&] {
    if (faulted && !snap->rejected) noteFault(r, snap->notice, snap->verified);
    const PhaseTimes phases = takePhases();
    snap->engine_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    {
      std::lock_guard<std::mutex> lock(mu_);
      phases_ = phases;
    }
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
  bool probed = false;  // the first request probes the backends: start-up
  {
    std::lock_guard<std::mutex> lock(devices_mu_);
    probed = devices_ != nullptr;
  }
  if (!probed) setPhase(Progress::Phase::starting);
  // Across hosts `auto` is MPI, the backend that runs there (issue 33).
  const BackendKind asked = r.backend == BackendKind::automatic && !hosts().empty() ? BackendKind::mpi
                            : rounds && r.backend == BackendKind::automatic             ? BackendKind::gloo
                                                                                        : r.backend;
  const DeviceReport report = devicesFor(asked);  // NCCL across hosts: the hosts' own
  auto backend = report.choose(asked, &snap->notice);
  if (!backend) {
    snap->error = backend.error().text;
    snap->rejected = true;
    return finish();
  }
  const BackendStatus* bs = report.find(*backend);
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
  // A fault that would do nothing on this run is refused, naming what it
  // can apply to (an algorithm's run checks it against its schedule).
  if (r.kind == Request::Kind::run && !rounds)
    if (Status st = faultFitsRun(r, nullptr); !st) {
      snap->error = st.text();
      snap->rejected = true;
      return finish();
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
  // The memory `t` needs (memory_budget.h).
  auto memoryFits = [&](const OpSpec& t) -> Status {
    // The snapshot copies every value when asked to keep buffers this big.
    std::size_t largest = 0;
    OpSpec out = snap->spec;
    out.elems = t.elems;
    for (int q = 0; q < t.ranks; ++q)
      largest = std::max({largest, inputBytes(t, q), outputBytes(out, q)});
    const bool keep_all =
        r.keep_values < 0 || double(r.keep_values) * double(dtypeSize(t.dtype)) >= double(largest);
    if (r.kind == Request::Kind::run && r.algo != "native") {
      // What rounds hold; a schedule that cannot be built is refused with
      // its own reason later.
      if (auto sch = algo::buildSchedule(r.algo, t))
        return checkRoundsMemory(t, sch->slots, r.every_round, keep_all, sch->parts);
      return {};
    }
    return checkRunMemory(t, r.program == Program::all_reduce_decomposed ? 3 : 1, false, keep_all);
  };
  Status fits = validate(first, bs->caps);
  if (fits) {
    fits = memoryFits(first);
  } else if (const std::int64_t cap = largestElemsWithinCap(first, bs->caps); cap >= 1 && cap < first.elems) {
    // Over the per-rank cap: the cap's suggestion must fit the memory too
    // (tried here), or the memory's own, smaller one is said as well.
    OpSpec t = first;
    t.elems = cap;
    if (validate(t, bs->caps))
      if (Status mem = memoryFits(t); !mem)
        fits = Error{say("{0}; and that does not fit in memory either: {1}", fits.text(), mem.text())};
  }
  if (fits && *backend == BackendKind::nccl) fits = checkGpuFits(r, first, *bs);
  if (!fits) {
    snap->error = fits.text();
    snap->rejected = true;
    return finish();
  }
  if (r.algo != "native") {
    faulted = true;
    runAlgorithm(r, *snap, *bs);
    return finish();
  }
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
  // A group to start: the ranks' memory is made meanwhile. Its huge pages
  // wait for a kernel thread on every CPU (shared_memory.cpp, collapse),
  // which then overlaps the ranks' own start (their exec, Gloo's mesh).
  // The memory is then filled on that thread too (fillFresh): the run's
  // inputs written, its outputs poisoned.
  std::future<Result<std::vector<SharedMemory>>> early;
  const Pattern pattern = choosePattern(first);
  if (!group_ || !group_->healthy() || group_->ranks() != first.ranks || group_->backend() != *backend)
    early = std::async(std::launch::async, [need, first, pattern, at] {
      auto made = SharedMemory::createMany(need, "collviz-rank");
      if (made) fillFresh(*made, first, pattern, at);
      return made;
    });
  if (Status st = ensureGroup(first.ranks, *backend, &snap->notice); !st) {
    snap->error = st.text();
    return finish();
  }
  snap->backend = group_->info();
  group_->setFault(r.fault);
  group_->setRunDeadline(r.deadline);
  faulted = true;
  verify_ = r.verify;
  keep_values_ = r.keep_values;
  const RunOptions reps{std::max(0, r.warmup), std::max(1, r.iters)};
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
  std::vector<SharedMemory> made;
  std::vector<char*> filled;  // the memory fillFresh filled
  if (early.valid())
    if (auto m = early.get()) made = std::move(*m);  // else reserve makes them and says why not
  for (const SharedMemory& m : made) filled.push_back(m.data());
  if (Status st = group_->reserve(need, std::move(made)); !st)
    return failed(Error{say("{0}: {1}", name(first.op), st.text())});
  bool all_filled = int(filled.size()) == first.ranks;
  for (int k = 0; k < first.ranks && all_filled; ++k)
    all_filled = reinterpret_cast<char*>(group_->memory(k)) == filled[std::size_t(k)];
  if (all_filled) {
    group_->setInputsHeld(first);
    group_->setOutputsPoisoned(first, at.out);
  }
  if (Status st = placeInputs(first, pattern); !st) return failed(st);
  StepBytes bytes1, bytes2;
  {
    std::lock_guard<std::mutex> lock(mu_);
    progress_.steps = decomposed ? 3 : 1;
  }
  auto done = runStep(first, pattern, opProvenance(first), at, reps, &bytes1, true, r.last && !decomposed);
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