// Waiting for the ranks' answers, for native ops and algorithm rounds alike.
// A closed channel is a crash and ends the wait at once; so does an error
// reported by any rank (its message first, after a short grace in which the
// others' reports arrive). Silence is judged by engine/group/deadline.h over a
// sliding --deadline-ms window, sampled all through the wait whatever the
// size: hung when no silent rank progressed during the last window (a
// stopped rank is named at once, whatever its peers do), slow when they kept
// working past the step's scaled deadline. A rank on another host has no
// process here to watch: it beats while it runs (engine/worker/heartbeat.h),
// and one not heard from for a whole window is hung (stopped, or its host
// or link gone) whatever its peers do. MPI ranks poll while they wait
// for a peer, so waiting costs CPU there: a silent MPI rank that made no
// progress during the window while its peers polled is the one that hangs.
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/group/protocol.h"
#include "engine/group/deadline.h"
#include "engine/group/rank_group.h"

namespace collviz {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

long long msSince(Clock::time_point t0) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
}

}  // namespace

Status RankGroup::awaitReplies(const Text& what, milliseconds per_op, int reps,
                               std::vector<std::string>& done) {
  const int n = cfg_.ranks;
  const milliseconds window = deadline();
  reps = std::max(1, reps);
  const auto t0 = Clock::now(), cap = t0 + per_op * reps;
  const milliseconds grace = std::clamp(window / 4, milliseconds(200), milliseconds(1000));
  ProgressWindow watch(pids(), window);
  const bool polling = cfg_.backend == BackendKind::mpi;
  // The silent ranks that made no progress in the last window (or stopped).
  // A rank on another host counts as working while it beats; silent for a
  // whole window it cannot speak (stopped, its host or its link gone).
  auto remote = [&](int r) { return workers_[std::size_t(r)].remote; };
  std::vector<Clock::time_point> heard(std::size_t(n), t0);  // its last beat
  auto unheard = [&](int r, Clock::time_point now) { return remote(r) && now - heard[std::size_t(r)] >= window; };
  // MPI's pollers yield the core while they wait: on loaded cores (another
  // job's busy threads, another group's pollers) each may run well under 1 %
  // of the window, and far less than another poller, yet it stays runnable
  // and runs; the asleep rank sleeps and runs next to nothing. So among MPI's
  // silent ranks one runnable in at least half of the window's samples, or
  // that ran at least 1/8 of what the busiest ran (and at least 1 ms), is a
  // poller, not the hang.
  auto idle = [&](const std::vector<int>& ranks) {
    long long busiest = 0;
    if (polling)
      for (int r : ranks)
        if (!remote(r) && !watch.stopped(r)) busiest = std::max(busiest, watch.ran(r));
    auto polled = [&](int r) {
      return polling && (watch.runnable(r) >= 0.5 || (busiest >= 1000000 && watch.ran(r) * 8 >= busiest));
    };
    std::vector<int> out;
    const auto now = Clock::now();
    for (int r : ranks)
      if (remote(r) ? unheard(r, now) : (watch.stopped(r) || (!watch.progressed(r) && !polled(r))))
        out.push_back(r);
    return out;
  };
  // "2, 3", and across hosts "2 (node2), 3 (node2)": the host named with its ranks.
  auto named = [&](const std::vector<int>& ranks) {
    std::string out;
    for (int r : ranks)
      out += (out.empty() ? "" : ", ") + std::to_string(r) +
             (remote(r) ? " (" + workers_[std::size_t(r)].host + ")" : std::string());
    return out;
  };
  std::optional<Clock::time_point> grace_end;
  enum class Why { none, error, hung, slow } why = Why::none;
  int first_error = -1;
  std::vector<int> state(static_cast<std::size_t>(n), 0);  // 0 waiting, 1 done, 2 error
  std::vector<Error> errors(static_cast<std::size_t>(n));
  done.assign(std::size_t(n), {});
  int left = n;
  auto silent = [&] {
    std::vector<int> out;
    for (int r = 0; r < n; ++r)
      if (state[std::size_t(r)] == 0) out.push_back(r);
    return out;
  };
  while (left > 0) {
    if (cfg_.cancel && cfg_.cancel->load()) {
      healthy_ = false;
      return Error{say("{0}: {1}", what, say("cancelled"))};
    }
    std::vector<pollfd> pfds(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r)
      pfds[std::size_t(r)] = {workers_[std::size_t(r)].ch.fd(),
                              short(state[std::size_t(r)] ? 0 : POLLIN), 0};
    // Slices of at most 50 ms: a cancel (engine shutdown, Ctrl-C) is seen quickly.
    const int slice = int(std::min<long long>(50, watch.period().count()));
    const int pr = ::poll(pfds.data(), pfds.size(), slice);
    if (pr < 0 && errno == EINTR) continue;
    const auto now = Clock::now();
    if (grace_end) {
      if (now >= *grace_end) break;
    } else {
      watch.sample(now);
      if (watch.full(now)) {
        bool working = false, stopped = false;
        for (int r : silent()) {
          working = working || (remote(r) ? !unheard(r, now) : watch.progressed(r));
          stopped = stopped || (remote(r) ? unheard(r, now) : watch.stopped(r));
        }
        // MPI: a peer polling flat out is no sign of progress; one idle
        // silent rank is the hang.
        if (polling) working = idle(silent()).empty();
        if (stopped || !working) why = Why::hung;
        else if (now >= cap) why = Why::slow;
        if (why != Why::none) grace_end = now + grace;
      }
    }
    if (pr <= 0) continue;
    for (int r = 0; r < n; ++r) {
      const auto k = std::size_t(r);
      if (state[k] || !(pfds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto m = workers_[k].ch.recv(milliseconds(0));
      if (!m) {
        healthy_ = false;
        return Error{say("{0}: {1}", what, describeExit(r))};
      }
      const json j = json::parse(m->body, nullptr, false);
      if (remote(r) && !j.is_discarded() && j.value("type", "") == "beat") {
        heard[k] = Clock::now();
        continue;
      }
      --left;
      if (!j.is_discarded() && j.value("type", "") == "done") {
        state[k] = 1;
        done[k] = m->body;
        continue;
      }
      state[k] = 2;
      errors[k] = protocol::errorFrom(m->body);
      if (first_error < 0) first_error = r;
      if (!grace_end) {
        why = Why::error;
        grace_end = Clock::now() + grace;
      }
    }
  }
  if (why == Why::none && first_error < 0) return {};
  healthy_ = false;  // a failed or abandoned collective can leave peers mid-protocol
  Text silence;
  if (std::vector<int> quiet = silent(); !quiet.empty()) {
    std::vector<int> stopped, mute;
    const auto end = Clock::now();
    for (int r : quiet) {
      if (!remote(r) && watch.stopped(r)) stopped.push_back(r);
      if (unheard(r, end)) mute.push_back(r);
    }
    if (why == Why::slow && (!stopped.empty() || !mute.empty())) why = Why::hung;
    if (why == Why::hung && stopped.empty() && !mute.empty()) {
      // Remote ranks that fell silent: named first (their peers, MPI's
      // pollers among them, wait on them), with how long since the last word.
      Clock::time_point last = heard[std::size_t(mute[0])];
      for (int r : mute) last = std::min(last, heard[std::size_t(r)]);
      silence = say("rank(s) {0} did not finish: not heard from for {1} ms (hung: the process stopped, or its host or link is down)",
                    named(mute), msSince(last));
    } else if (polling && stopped.empty() && why == Why::hung) {
      stopped = idle(quiet);  // MPI: the idle ones among the silent (the others poll, waiting on them)
    }
    if (silence.empty()) {
      if (why == Why::slow) {
        silence = say("rank(s) {0} still working after {1} ms (slow, not hung: {2} ms allowed per op); allow more with --deadline-ms {3}",
                      named(quiet), msSince(t0), per_op.count(),
                      suggestedDeadlineMs(milliseconds(msSince(t0) / reps)));
      } else {
        const std::vector<int>& blamed = stopped.empty() ? quiet : stopped;
        const bool any_stopped =
            std::any_of(stopped.begin(), stopped.end(), [&](int r) { return watch.stopped(r); });
        silence = stopped.empty()
                      ? say("rank(s) {0} did not finish: no progress for {1} ms (hung)", named(blamed), window.count())
                  : any_stopped
                      ? say("rank(s) {0} did not finish: no progress for {1} ms (hung, process stopped)",
                            named(blamed), window.count())
                      : say("rank(s) {0} did not finish: no progress for {1} ms (hung, no CPU time while its peers waited)",
                            named(blamed), window.count());
      }
    }
  }
  const Text restart = say("the group will be restarted");
  // An error a rank returned comes first; so it does when the deadline and
  // that error arrive together and no rank is left silent.
  if (first_error >= 0 && (why == Why::error || silence.empty()))
    return silence.empty() ? errors[std::size_t(first_error)]
                           : Error{say("{0}; {1}", errors[std::size_t(first_error)].text, silence)};
  if (silence.empty()) return Error{say("{0}: {1}", what, restart)};
  if (first_error < 0) return Error{say("{0}: {1}; {2}", what, silence, restart)};
  return Error{say("{0}: {1}; {2}; first error: {3}", what, silence, restart,
                   errors[std::size_t(first_error)].text)};
}

Status RankGroup::awaitRanks(StepResult& step, const RunOptions& opts) {
  const OpSpec& s = step.spec;
  std::vector<std::string> done;
  if (Status st = awaitReplies(lit(std::string(name(s.op))), opDeadline(s, deadline()),
                               opts.warmup + opts.iters, done);
      !st)
    return st;
  for (int r = 0; r < cfg_.ranks; ++r) {
    const json j = json::parse(done[std::size_t(r)], nullptr, false);
    RankResult& rr = step.ranks[std::size_t(r)];
    rr.op_us = j.value("op_us", 0.0);
    rr.copy_us = j.value("copy_us", 0.0);
    if (const auto at = j.find("at_us"); at != j.end() && at->is_array() && at->size() == 4) {
      rr.got_at_us = (*at)[0].get<double>(), rr.warm_end_at_us = (*at)[1].get<double>();
      rr.timed_begin_at_us = (*at)[2].get<double>(), rr.timed_end_at_us = (*at)[3].get<double>();
    }
    rr.copies = j.value("copies", "");
  }
  return {};
}

}  // namespace collviz
