// RankGroup's side of an algorithm's rounds: the working buffer sits in each
// rank's shared memory after its input, so the engine reads every rank's
// state after a round with one copy.
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/algo/schedule.h"
#include "engine/rank_group.h"

namespace collviz {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

Status RankGroup::runRounds(const algo::Schedule& s, const StepResult& inputs, int from, int to,
                            const RunOptions& opts, std::vector<RoundsReply>& replies,
                            std::vector<std::vector<std::byte>>* work) {
  const OpSpec& sp = s.spec;
  const int n = cfg_.ranks;
  if (sp.ranks != n) return Error{"internal: spec ranks differ from the group"};
  const std::string what = s.algo + " " + std::string(name(sp.op));
  std::vector<std::size_t> work_off(std::size_t(n), 0);
  for (int r = 0; r < n; ++r) {
    const std::size_t in = inputBytes(sp, r);
    work_off[std::size_t(r)] = alignToPage(in);
    if (Status st = ensureMemory(r, work_off[std::size_t(r)] + alignToPage(s.workBytes())); !st)
      return Error{what + ": " + st.message()};
    if (from == 0 && in)
      std::memcpy(workers_[std::size_t(r)].shm.data(), inputs.ranks[std::size_t(r)].input.bytes.data(), in);
  }
  if (from == 0) inputs_held_.reset();  // offset 0 now holds `inputs`, whatever they are
  const json base = {{"type", "rounds"}, {"algo", s.algo},          {"op", name(sp.op)},
                     {"ranks", sp.ranks}, {"elems", sp.elems},      {"dtype", name(sp.dtype)},
                     {"redop", name(sp.redop)}, {"root", sp.root},  {"in_offset", 0},
                     {"from", from},      {"to", to},               {"warmup", opts.warmup},
                     {"iters", opts.iters}};
  json with_fault = base;
  if (fault_) with_fault["fault"] = *fault_;
  for (int r = 0; r < n; ++r) {
    json m = with_fault;
    m["work_offset"] = work_off[std::size_t(r)];
    if (!workers_[std::size_t(r)].ch.send(m.dump())) {
      healthy_ = false;
      return Error{what + ": " + describeExit(r)};
    }
  }
  std::vector<std::string> done;
  if (Status st = awaitAll(what, std::max(1, opts.warmup + opts.iters), done); !st) return st;
  replies.assign(std::size_t(n), {});
  for (int r = 0; r < n; ++r) {
    const json j = json::parse(done[std::size_t(r)], nullptr, false);
    replies[std::size_t(r)] = {j.value("op_us", 0.0), j.value("sent", uint64_t(0)),
                               j.value("received", uint64_t(0))};
  }
  if (work) {
    work->resize(std::size_t(n));
    for (int r = 0; r < n; ++r) {
      auto& buf = (*work)[std::size_t(r)];
      buf.resize(s.workBytes());
      std::memcpy(buf.data(), workers_[std::size_t(r)].shm.data() + work_off[std::size_t(r)],
                  buf.size());
    }
  }
  return {};
}

Status RankGroup::awaitAll(const std::string& what, int reps, std::vector<std::string>& done) {
  const int n = cfg_.ranks;
  done.assign(std::size_t(n), {});
  auto deadline = Clock::now() + cfg_.deadline * reps;
  // Ranks blocked on a hung peer report their own timeout a moment later:
  // a short grace lets only the silent rank(s) be named as hung.
  bool grace_used = false;
  const auto grace = std::clamp(cfg_.deadline / 4, std::chrono::milliseconds(200),
                                std::chrono::milliseconds(1000));
  std::vector<int> state(std::size_t(n), 0);  // 0 waiting, 1 done, 2 error
  std::string failed;
  int left = n;
  while (left > 0) {
    std::vector<pollfd> pfds(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r)
      pfds[std::size_t(r)] = {workers_[std::size_t(r)].ch.fd(),
                              short(state[std::size_t(r)] ? 0 : POLLIN), 0};
    if (cfg_.cancel && cfg_.cancel->load()) {
      healthy_ = false;
      return Error{what + ": cancelled"};
    }
    const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    const int pr = ::poll(pfds.data(), pfds.size(), left_ms > 0 ? int(std::min<long>(left_ms, 50)) : 0);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0 && Clock::now() < deadline) continue;
    if (pr == 0 && !grace_used && left > 1) {
      grace_used = true;
      deadline = Clock::now() + grace;
      continue;
    }
    if (pr == 0) break;
    for (int r = 0; r < n; ++r) {
      if (state[std::size_t(r)] || !(pfds[std::size_t(r)].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      auto m = workers_[std::size_t(r)].ch.recv(std::chrono::milliseconds(0));
      --left;
      if (!m) {
        healthy_ = false;
        return Error{what + ": " + describeExit(r)};
      }
      const json j = json::parse(m->body, nullptr, false);
      if (!j.is_discarded() && j.value("type", "") == "done") {
        state[std::size_t(r)] = 1;
        done[std::size_t(r)] = m->body;
      } else {
        state[std::size_t(r)] = 2;
        if (failed.empty()) failed = j.is_discarded() ? m->body : j.value("message", m->body);
      }
    }
  }
  std::string hung;
  for (int r = 0; r < n; ++r)
    if (state[std::size_t(r)] == 0) hung += (hung.empty() ? "" : ", ") + std::to_string(r);
  if (!hung.empty()) {
    healthy_ = false;
    return Error{what + ": rank(s) " + hung + " did not finish within " +
                 std::to_string((cfg_.deadline * reps).count()) +
                 " ms (hung); the group will be restarted" +
                 (failed.empty() ? "" : "; first error: " + failed)};
  }
  if (!failed.empty()) {
    healthy_ = false;  // a failed round can leave peers mid-exchange
    return Error{failed};
  }
  return {};
}

}  // namespace collviz
