#include "engine/bench/sweep.h"

#include <algorithm>

#include "engine/algo/algorithms.h"
#include "engine/group/memory_budget.h"
#include "engine/verify/report.h"

namespace collviz {

using json = nlohmann::json;

std::chrono::milliseconds benchDeadline(const BenchConfig& c) {
  const std::size_t per16M = c.max_bytes / (std::size_t(16) << 20);
  return std::chrono::milliseconds(5000 + 2000 * int64_t(per16M));
}

namespace {

BenchRow rowFor(const BenchPoint& p) {
  BenchRow row;
  const OpSpec& s = p.spec;
  row.op = s.op;
  row.size = p.size;
  row.count = benchCount(s);
  row.elems = s.elems;
  row.dtype = s.dtype;
  row.redop = s.redop;
  row.root = usesRoot(s.op) ? s.root : -1;
  row.ranks = s.ranks;
  row.rank_us.assign(std::size_t(s.ranks), 0.0);
  return row;
}

// Wait for `id`'s snapshot, reading `cancel` every 50 ms; nullptr on cancel.
std::shared_ptr<const Snapshot> waitOrCancel(Engine& e, uint64_t id,
                                             const std::atomic<bool>* cancel) {
  for (;;) {
    if (cancel && cancel->load()) return nullptr;
    if (auto s = e.waitFor(id, std::chrono::milliseconds(50))) return s;
  }
}

}  // namespace

Result<BenchResult> runSweep(Engine& engine, const BenchConfig& c, const BenchCallbacks& cb,
                             const std::atomic<bool>* cancel) {
  if (Status st = validate(c); !st) return st.error();
  const std::vector<BenchPoint> plan = planSweep(c);
  BenchResult res;
  const DeviceReport report = engine.devicesFor(c.backend);
  auto chosen = report.choose(c.backend, &res.notice);
  if (!chosen) return chosen.error();
  const BackendStatus* bs = report.find(*chosen);
  if (Status st = checkAgainstBackend(plan, bs->caps); !st) return st.error();
  for (const BenchPoint& p : plan) {
    Status st = checkRunMemory(p.spec);
    if (st && *chosen == BackendKind::nccl) {
      int work_blocks = 0;  // an algorithm's working buffer sits on the GPU too
      if (c.algo != "native")
        if (auto sch = algo::buildSchedule(c.algo, p.spec)) work_blocks = roundsDeviceBlocks(sch->slots);
      st = checkNcclMemory({p.spec}, work_blocks, *bs);
    }
    if (!st)
      return Error{say("{0} at {1} B: {2} (use a smaller -e)", name(p.spec.op), p.size, st.text())};
  }
  res.backend = bs->info;

  const int total = int(plan.size());
  const int chunks = std::max(1, c.check);
  for (int i = 0; i < total; ++i) {
    if (cancel && cancel->load()) {
      res.cancelled = true;
      return res;
    }
    const BenchPoint& p = plan[std::size_t(i)];
    if (cb.on_start) cb.on_start(p, i, total);
    BenchRow row = rowFor(p);
    double time_sum = 0, waited = 0;
    int64_t wrong = 0;
    for (int k = 0; k < chunks; ++k) {
      Request r;
      r.spec = p.spec;
      r.backend = *chosen;
      r.warmup = k == 0 ? c.warmup : 0;
      r.iters = c.iters / chunks + (k < c.iters % chunks ? 1 : 0);
      r.verify = c.check > 0;
      r.algo = c.algo;
      r.every_round = false;
      const uint64_t id = engine.submit(r);
      auto snap = waitOrCancel(engine, id, cancel);
      if (!snap) {
        res.cancelled = true;
        return res;
      }
      if (snap->request != id) {
        res.error = say("another run request replaced the sweep's request (give the sweep an "
                        "Engine of its own)");
        return res;
      }
      if (!snap->error.empty() || snap->steps.empty()) {
        res.error = snap->error.empty()
                        ? say("{0} at {1} B: no result", name(p.spec.op), p.size)
                        : say("{0} at {1} B: {2}", name(p.spec.op), p.size, snap->error);
        return res;
      }
      if (!snap->backend.name.empty()) res.backend = snap->backend;
      const StepResult& st = snap->steps[0];
      time_sum += st.time_us * r.iters;
      for (const RankResult& rr : st.ranks)
        if (rr.rank >= 0 && rr.rank < row.ranks) row.rank_us[std::size_t(rr.rank)] += rr.op_us * r.iters;
      waited += st.wait_us;
      row.engine_us += snap->engine_us;
      if (r.verify) {
        wrong += st.verify.wrong;
        ++row.checks;
        if (row.problem.empty()) row.problem = snap->problem;
      }
      ++row.requests;
    }
    row.time_us = time_sum / c.iters;
    for (double& us : row.rank_us) us /= c.iters;
    row.wrong = c.check > 0 ? wrong : -1;
    row.overhead_us = std::max(0.0, row.engine_us - waited);
    row.algbw = bandwidthGBs(algBytes(row.op, row.ranks, double(perRankBytes(p.spec))),
                             row.time_us);
    row.busbw = row.algbw * busBandwidthFactor(row.op, row.ranks);
    res.rows.push_back(row);
    if (cb.on_row) cb.on_row(res.rows.back(), i + 1, total);
  }
  return res;
}

json toJson(const BenchRow& r) {
  return json{{"op", name(r.op)},
              {"size", r.size},
              {"count", r.count},
              {"type", name(r.dtype)},
              {"redop", reduces(r.op) ? std::string(name(r.redop)) : "none"},
              {"root", r.root},
              {"time_us", r.time_us},
              {"algbw", r.algbw},
              {"busbw", r.busbw},
              {"wrong", r.wrong >= 0 ? json(r.wrong) : json(nullptr)},
              {"problem", r.problem.empty() ? json(nullptr) : json(r.problem)},
              {"checks", r.checks},
              {"ranks", r.ranks},
              {"elems_per_block", r.elems},
              {"busbw_factor", busBandwidthFactor(r.op, r.ranks)},
              {"rank_time_us", r.rank_us},
              {"engine_us", r.engine_us},
              {"overhead_us", r.overhead_us},
              {"requests", r.requests}};
}

json toJson(const BenchResult& r, const BenchConfig& c) {
  json ops = json::array();
  for (Op op : c.ops) ops.push_back(name(op));
  json rows = json::array();
  json avg = json::object();
  int64_t wrong = 0;
  bool checked = false;
  for (Op op : c.ops) {
    double sum = 0;
    int n = 0;
    for (const BenchRow& row : r.rows)
      if (row.op == op) sum += row.busbw, ++n;
    if (n) avg[std::string(name(op))] = sum / n;
  }
  for (const BenchRow& row : r.rows) {
    rows.push_back(toJson(row));
    if (row.wrong >= 0) wrong += row.wrong, checked = true;
  }
  return json{
      {"config",
       {{"ops", ops},
        {"ranks", c.ranks},
        {"dtype", name(c.dtype)},
        {"redop", name(c.redop)},
        {"root", c.root},
        {"backend", name(c.backend)},
        {"min_bytes", c.min_bytes},
        {"max_bytes", c.max_bytes},
        {"factor", c.factor},
        {"iters", c.iters},
        {"warmup", c.warmup},
        {"check", c.check},
        {"algo", c.algo}}},
      {"backend", toJson(r.backend)},
      {"notice", r.notice},
      {"units",
       {{"size", "bytes"},
        {"count", "elements"},
        {"time_us", "microseconds per op, slowest rank, average of -n iterations"},
        {"algbw", "GB/s (1e9 bytes/s) = size / time"},
        {"busbw", "GB/s = algbw * busbw_factor"},
        {"engine_us", "microseconds, the size's requests inside the engine"},
        {"overhead_us", "engine_us - time waiting for the ranks (measured)"}}},
      {"rows", rows},
      {"avg_busbw", avg},
      {"wrong_total", checked ? json(wrong) : json(nullptr)},
      {"interrupted", r.cancelled},
      {"error", r.error}};
}

// ---- BenchJob ----------------------------------------------------------------

BenchJob::BenchJob(BenchConfig c, EngineOptions eo) : config_(std::move(c)) {
  eo.deadline = std::max(eo.deadline, benchDeadline(config_));
  thread_ = std::thread([this, eo] { run(eo); });
}

BenchJob::~BenchJob() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

BenchJob::State BenchJob::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

uint64_t BenchJob::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_.version;
}

bool BenchJob::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_.finished;
}

void BenchJob::run(EngineOptions eo) {
  Result<BenchResult> res = Error{say("not run")};
  {
    Engine engine(eo);  // its own workers; destroyed (workers ended) before `finished`
    BenchCallbacks cb;
    cb.on_start = [this](const BenchPoint& p, int, int total) {
      std::lock_guard<std::mutex> lock(mu_);
      state_.total = total;
      state_.current = std::string(name(p.spec.op)) + " " + formatSize(p.size);
      ++state_.version;
    };
    cb.on_row = [this](const BenchRow& row, int done, int total) {
      std::lock_guard<std::mutex> lock(mu_);
      state_.rows.push_back(row);
      state_.done = done;
      state_.total = total;
      ++state_.version;
    };
    res = runSweep(engine, config_, cb, &cancel_);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!res) {
      state_.error = res.error().text;
    } else {
      state_.cancelled = res->cancelled;
      state_.error = res->error;
      state_.notice = res->notice;
      state_.backend = res->backend;
    }
    state_.current.clear();
    state_.finished = true;
    ++state_.version;
  }
  // The end is a change like a snapshot: wake the window, which sleeps once
  // it sees no sweep running (it may have looked just before `finished`).
  if (eo.wake) eo.wake();
}

}  // namespace collviz
