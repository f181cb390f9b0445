#include "app/view/runs.h"

#include "engine/group/deadline.h"

#include <algorithm>

#include "app/view/diagram_model.h"

namespace collviz::ui {

uint64_t EngineRunner::run(const RunKey& k) {
  Request r;
  r.program = k.program;
  r.spec = k.spec;
  r.backend = k.backend;
  r.fault = k.fault;
  r.algo = k.algo;
  // The op's deadline scaled by its bytes, as each op's is: a big op (one
  // opened from a job, 40 MiB a rank) on a loaded machine is slow, not hung.
  r.deadline = opDeadline(k.spec, engine_.options().deadline);
  return engine_.submit(r);
}

void Runs::request(const RunKey& k) {
  uint64_t id = runner_.run(k);
  pending_.push_back({id, k});
}

void Runs::poll(const std::vector<RunKey>& prefetch) {
  std::shared_ptr<const Snapshot> s = runner_.latest();
  if (s && s->seq != last_seq_) {
    last_seq_ = s->seq;
    newest_ = s;
    ++received_;
    // Requests up to this one are answered or were replaced in the queue.
    auto answered = std::find_if(pending_.begin(), pending_.end(),
                                 [&](const Pending& p) { return p.id == s->request; });
    if (answered != pending_.end()) {
      RunKey key = answered->key;
      auto old = std::find_if(cache_.begin(), cache_.end(), [&](const Entry& e) { return e.key == key; });
      if (old != cache_.end()) old->snap = s;
      else cache_.push_back({key, s});
    }
    std::erase_if(pending_, [&](const Pending& p) { return p.id <= s->request; });
  }
  if (!prefetch_ || !pending_.empty() || runner_.busy()) return;
  for (const RunKey& k : prefetch) {
    if (!find(k) && prefetchable(k)) {
      request(k);
      return;
    }
  }
}

// Other ops are run ahead only while small: at big sizes each costs seconds,
// and its run would leave the shown result's values stale in the workers'
// memory (Engine::fetchValues).
bool Runs::prefetchable(const RunKey& k) {
  double bytes = 0;
  for (int r = 0; r < k.spec.ranks; ++r)
    bytes += double(inputBytes(k.spec, r)) + double(outputBytes(k.spec, r));
  return bytes <= double(kPrefetchMaxBytes);
}

std::shared_ptr<const Snapshot> Runs::find(const RunKey& k) const {
  for (const Entry& e : cache_)
    if (e.key == k) return e.snap;
  return nullptr;
}

bool Runs::allCached(const std::vector<RunKey>& keys) const {
  return std::all_of(keys.begin(), keys.end(), [&](const RunKey& k) { return find(k) != nullptr; });
}

uint64_t Runs::pendingId(const RunKey& k) const {
  uint64_t id = 0;
  for (const Pending& p : pending_)
    if (p.key == k) id = std::max(id, p.id);
  return id;
}

bool Runs::cancel(const RunKey& k) {
  bool any = false;
  for (const Pending& p : pending_)
    if (p.key == k) any = runner_.cancel(p.id) || any;
  return any;
}

bool Runs::waiting(const RunKey& k) const {
  return std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.key == k; });
}

}  // namespace collviz::ui
