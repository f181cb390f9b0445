// Waiting for a step's answers. A closed channel is a crash and ends the
// step at once; so does an error reported by any rank (its message first,
// after a short grace in which the others' reports arrive). Silence is
// judged by engine/deadline.h: hung when no silent rank used CPU for a whole
// --deadline-ms window, slow when they kept working past the step's scaled
// deadline.
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/deadline.h"
#include "engine/rank_group.h"

namespace collviz {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// Poll in slices so a cancel (engine shutdown, Ctrl-C) is seen quickly.
int sliceUntil(Clock::time_point t) {
  const auto left = std::chrono::duration_cast<milliseconds>(t - Clock::now()).count();
  return left > 0 ? int(std::min<long long>(left, 50)) : 0;
}

long long msSince(Clock::time_point t0) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
}

}  // namespace

Status RankGroup::awaitRanks(StepResult& step, const RunOptions& opts) {
  const OpSpec& s = step.spec;
  const int n = cfg_.ranks;
  const std::string op(name(s.op));
  const milliseconds window = cfg_.deadline, per_op = opDeadline(s, cfg_.deadline);
  const int reps = std::max(1, opts.warmup + opts.iters);
  const auto t0 = Clock::now(), cap = t0 + per_op * reps;
  const milliseconds grace = std::clamp(window / 4, milliseconds(200), milliseconds(1000));
  ProgressWatch watch(pids());
  // MPI ranks poll while they wait for a peer, so waiting costs CPU: there
  // a silent rank that used none for a whole window is the one that hangs.
  const bool polling = cfg_.backend == BackendKind::mpi;
  auto idle = [&](const std::vector<int>& ranks) {
    std::vector<int> out;
    for (int r : ranks)
      if (!watch.worked(r) || watch.stopped(r)) out.push_back(r);
    return out;
  };
  auto working_now = [&](const std::vector<int>& ranks) {
    return polling ? idle(ranks).empty() : watch.anyWorked(ranks);
  };
  auto look = t0 + std::min(window, per_op);  // next judgement of the silent ranks
  std::optional<Clock::time_point> grace_end;
  enum class Why { none, error, hung, slow } why = Why::none;
  int first_error = -1;
  std::vector<int> state(n, 0);  // 0 waiting, 1 done, 2 error
  std::vector<std::string> errors(n);
  int left = n;
  auto silent = [&] {
    std::vector<int> out;
    for (int r = 0; r < n; ++r)
      if (state[r] == 0) out.push_back(r);
    return out;
  };
  while (left > 0) {
    if (cfg_.cancel && cfg_.cancel->load()) {
      healthy_ = false;
      return Error{op + ": cancelled"};
    }
    const auto until = grace_end ? *grace_end : std::min(look, cap);
    std::vector<pollfd> pfds(n);
    for (int r = 0; r < n; ++r) pfds[r] = {workers_[r].ch.fd(), short(state[r] ? 0 : POLLIN), 0};
    const int pr = ::poll(pfds.data(), pfds.size(), sliceUntil(until));
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) {
      if (Clock::now() < until) continue;
      if (grace_end) break;
      watch.sample();
      const bool working = working_now(silent());
      if (Clock::now() < cap && working) {
        look = Clock::now() + window;
        continue;
      }
      why = working ? Why::slow : Why::hung;
      grace_end = Clock::now() + grace;
      continue;
    }
    for (int r = 0; r < n; ++r) {
      if (state[r] || !(pfds[r].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto m = workers_[r].ch.recv(milliseconds(0));
      --left;
      if (!m) {
        healthy_ = false;
        return Error{op + ": " + describeExit(r)};
      }
      const json j = json::parse(m->body, nullptr, false);
      if (!j.is_discarded() && j.value("type", "") == "done") {
        state[r] = 1;
        step.ranks[r].op_us = j.value("op_us", 0.0);
        step.ranks[r].copy_us = j.value("copy_us", 0.0);
        step.ranks[r].copies = j.value("copies", "");
        continue;
      }
      state[r] = 2;
      errors[r] = j.is_discarded() ? m->body : j.value("message", m->body);
      if (first_error < 0) first_error = r;
      if (!grace_end) {
        why = Why::error;
        grace_end = Clock::now() + grace;
      }
    }
  }
  if (why == Why::none && first_error < 0) return {};
  healthy_ = false;  // a failed or abandoned collective can leave peers mid-protocol
  std::string silence;
  if (std::vector<int> quiet = silent(); !quiet.empty()) {
    watch.sample();
    std::vector<int> stopped;
    for (int r : quiet)
      if (watch.stopped(r)) stopped.push_back(r);
    if (why == Why::slow && !working_now(quiet)) why = Why::hung;
    // MPI: the idle ones among the silent (the others poll, waiting on them).
    const std::vector<int> blockers = polling && stopped.empty() ? idle(quiet) : stopped;
    if (why == Why::slow) {
      silence = "rank(s) " + rankList(quiet) + " still working after " + std::to_string(msSince(t0)) +
                " ms (slow, not hung: " + std::to_string(per_op.count()) + " ms allowed per op); " +
                "allow more with --deadline-ms " +
                std::to_string(suggestedDeadlineMs(milliseconds(msSince(t0) / reps)));
    } else {
      const std::vector<int>& named = blockers.empty() ? quiet : blockers;
      silence = "rank(s) " + rankList(named) + " did not finish: no progress for " +
                std::to_string(std::min(window, per_op).count()) + " ms (hung" +
                (stopped.empty() ? "" : ", process stopped") + ")";
    }
  }
  const std::string restart = "the group will be restarted";
  // An error a rank returned comes first; so it does when the deadline and
  // that error arrive together and no rank is left silent.
  if (first_error >= 0 && (why == Why::error || silence.empty()))
    return Error{errors[first_error] + (silence.empty() ? "" : "; " + silence)};
  if (silence.empty()) return Error{op + ": " + restart};
  return Error{op + ": " + silence + "; " + restart +
               (first_error < 0 ? "" : "; first error: " + errors[first_error])};
}

}  // namespace collviz
