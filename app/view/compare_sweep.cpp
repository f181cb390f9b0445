#include "app/view/compare_sweep.h"

#include <chrono>

#include "app/lang/lang.h"
#include "app/view/link_view.h"

namespace collviz::ui {

CompareSweep::CompareSweep(CompareSweepConfig c, EngineOptions eo) : config_(std::move(c)) {
  if (config_.elems.empty()) config_.elems = splittable(sweepElems(config_.spec), {config_.a, config_.b});
  config_.reps = std::max(1, config_.reps);
  for (const std::string& algo : {config_.a, config_.b}) {
    SweepSeries s;
    s.algo = algo;
    for (int64_t e : config_.elems) {
      OpSpec sp = config_.spec;
      sp.elems = e;
      const CompareRow row = compareRow(sp, algo);
      s.messages = row.rounds;
      SizePoint p;
      p.elems = e;
      p.block_bytes = double(e) * double(dtypeSize(sp.dtype));
      p.model_bytes = row.model_bytes;
      if (!row.error.empty()) p.error = row.error;
      s.sizes.push_back(p);
    }
    state_.series.push_back(std::move(s));
  }
  state_.total = 2 * int(config_.elems.size()) * config_.reps;
  thread_ = std::thread([this, eo] { run(eo); });
}

CompareSweep::~CompareSweep() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

CompareSweep::State CompareSweep::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

void CompareSweep::run(EngineOptions eo) {
  {
    Engine engine(eo);  // its own workers, ended before `finished`
    // Sizes outer, algorithms inner: the small sizes of both come first.
    for (std::size_t k = 0; k < config_.elems.size() && !cancel_; ++k)
      for (int i = 0; i < 2 && !cancel_; ++i) {
        const std::string& algo = i == 0 ? config_.a : config_.b;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (!state_.series[std::size_t(i)].sizes[k].error.empty()) {
            state_.done += config_.reps;
            continue;
          }
        }
        Request r;
        r.spec = config_.spec;
        r.spec.elems = config_.elems[k];
        r.backend = config_.backend;
        r.algo = algo;
        r.fault = config_.fault;
        r.every_round = false;
        std::vector<double> reps;
        std::string error;
        for (int rep = 0; rep < config_.reps && !cancel_ && error.empty(); ++rep) {
          {
            std::lock_guard<std::mutex> lock(mu_);
            state_.current = algo + " " + byteText(double(r.spec.elems) * double(dtypeSize(r.spec.dtype))) +
                             " " + std::to_string(rep + 1) + "/" + std::to_string(config_.reps);
            ++state_.version;
          }
          const uint64_t id = engine.submit(r);
          std::shared_ptr<const Snapshot> snap;
          while (!cancel_ && !snap) snap = engine.waitFor(id, std::chrono::milliseconds(50));
          if (!snap) break;
          if (!snap->error.empty()) error = render(snap->error);
          else if (!snap->verified) error = trf("{0}: the output did not verify", {algo});
          else reps.push_back(snap->time_us);
          std::lock_guard<std::mutex> lock(mu_);
          ++state_.done;
          ++state_.version;
        }
        std::lock_guard<std::mutex> lock(mu_);
        SizePoint& p = state_.series[std::size_t(i)].sizes[k];
        p.reps_us = reps;
        p.error = error;
        if (error.empty() && int(reps.size()) == config_.reps) p.median_us = medianOf(reps);
        if (!error.empty() && state_.error.empty()) state_.error = error;
        ++state_.version;
      }
  }
  std::lock_guard<std::mutex> lock(mu_);
  state_.finished = true;
  state_.current.clear();
  ++state_.version;
}

}  // namespace collviz::ui
