// Runs: the app's side of the engine. Sends requests (never waits), collects
// every snapshot the engine publishes, and keeps the latest result for each
// (program, spec, backend) so that switching back to an op shows its real
// result in the same frame. While idle it runs, one at a time, the other
// entries of the op list for the current settings (prefetch), so ←/→ in a
// lecture lands on a real result at once. No GL, no ImGui.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace collviz::ui {

struct RunKey {
  Program program = Program::single;
  OpSpec spec;
  BackendKind backend = BackendKind::automatic;
  std::string fault;  // COLLVIZ_FAULT for this run ("" none; the "break it" menu)
  std::string algo = "native";  // an engine algorithm runs round by round
  bool operator==(const RunKey&) const = default;
};

// What the app needs from an engine; Engine implements it through
// EngineRunner, tests through a fake.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual uint64_t run(const RunKey& k) = 0;
  virtual std::shared_ptr<const Snapshot> latest() const = 0;
  virtual bool busy() const = 0;
  // Engine::progress, Engine::cancel, Engine::fetchValues (a runner without
  // them: idle, nothing to cancel, no values).
  virtual Progress progress() const { return {}; }
  virtual bool cancel(uint64_t) { return false; }
  virtual FetchedValues fetchValues(uint64_t, int, int, BufferSide, int64_t, int64_t) const {
    return {};
  }
};

class EngineRunner : public Runner {
 public:
  explicit EngineRunner(Engine& e) : engine_(e) {}
  uint64_t run(const RunKey& k) override;
  std::shared_ptr<const Snapshot> latest() const override { return engine_.latest(); }
  bool busy() const override { return engine_.busy(); }
  Progress progress() const override { return engine_.progress(); }
  bool cancel(uint64_t id) override { return engine_.cancel(id); }
  FetchedValues fetchValues(uint64_t seq, int step, int rank, BufferSide side, int64_t first,
                            int64_t count) const override {
    return engine_.fetchValues(seq, step, rank, side, first, count);
  }

 private:
  Engine& engine_;
};

class Runs {
 public:
  explicit Runs(Runner& r) : runner_(r) {}

  // Once per frame: take the newest snapshot into the cache; when nothing is
  // in flight, start the first of `prefetch` that has no result yet.
  void poll(const std::vector<RunKey>& prefetch);
  // Prefetch only runs whose buffers (all ranks, in + out) are this small.
  static constexpr std::size_t kPrefetchMaxBytes = std::size_t(4) << 20;
  static bool prefetchable(const RunKey& k);
  // Run `k` now (a newer request replaces queued ones in the engine).
  void request(const RunKey& k);
  // The newest result for exactly `k`, or null.
  std::shared_ptr<const Snapshot> find(const RunKey& k) const;
  // Is a request for `k` sent and not yet answered?
  bool waiting(const RunKey& k) const;
  // The id of the newest request for `k` not yet answered (0: none).
  uint64_t pendingId(const RunKey& k) const;
  // End the requests for `k` in flight (Engine::cancel); their answers say
  // "cancelled". False when none was.
  bool cancel(const RunKey& k);
  bool busy() const { return runner_.busy() || !pending_.empty(); }
  // The most recent snapshot of all (for engine-wide errors and notices).
  std::shared_ptr<const Snapshot> newest() const { return newest_; }
  uint64_t received() const { return received_; }
  Runner& runner() const { return runner_; }
  // The background runs of other ops (the viewer's switch). Off, or once
  // every key asked for has a result, nothing more is sent.
  void setPrefetch(bool on) { prefetch_ = on; }
  bool prefetch() const { return prefetch_; }
  // Does every key of `keys` have a result?
  bool allCached(const std::vector<RunKey>& keys) const;
  void clear() { cache_.clear(); }

 private:
  struct Pending {
    uint64_t id;
    RunKey key;
  };
  struct Entry {
    RunKey key;
    std::shared_ptr<const Snapshot> snap;
  };
  Runner& runner_;
  std::vector<Pending> pending_;
  std::vector<Entry> cache_;
  std::shared_ptr<const Snapshot> newest_;
  uint64_t last_seq_ = 0;
  uint64_t received_ = 0;
  bool prefetch_ = true;
};

}  // namespace collviz::ui
