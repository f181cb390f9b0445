#include "engine/group/rank_group.h"

#include "engine/group/deadline.h"
#include "engine/group/exit_cleanup.h"
#include "engine/group/protocol.h"
#include "engine/group/said_json.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/verify/poison.h"
#include "engine/verify/verify_fast.h"

extern char** environ;

namespace collviz {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {


// Poll in slices so a cancel (engine shutdown, Ctrl-C) is seen quickly.
int msLeft(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? int(std::min<long>(left, 50)) : 0;
}

}  // namespace

StepPlace singlePlace(const OpSpec& s) {
  StepPlace at;
  for (int r = 0; r < s.ranks; ++r) {
    at.in.push_back(0);
    at.out.push_back(alignToPage(inputBytes(s, r)));
  }
  return at;
}

std::vector<std::size_t> placeBytes(const OpSpec& s, const StepPlace& at) {
  std::vector<std::size_t> out;
  for (int r = 0; r < s.ranks; ++r)
    out.push_back(std::max(at.in[r] + inputBytes(s, r), at.out[r] + outputBytes(s, r)));
  return out;
}

StepBytes RankGroup::bytesAt(const OpSpec& s, const StepPlace& at) const {
  StepBytes b;
  for (int r = 0; r < s.ranks; ++r) {
    const std::size_t in = inputBytes(s, r), out = outputBytes(s, r);
    b.in.push_back({in ? memory(r) + at.in[r] : nullptr, in});
    b.out.push_back({out ? memory(r) + at.out[r] : nullptr, out});
  }
  return b;
}

std::chrono::milliseconds RankGroup::joinTimeout() const { return joinBudget(cfg_.deadline); }

Result<std::unique_ptr<RankGroup>> RankGroup::start(const GroupConfig& cfg) {
  std::unique_ptr<RankGroup> g(new RankGroup(cfg));
  g->workers_.resize(cfg.ranks);
  if (cfg.isolate) {
    if (auto net = PrivateNetwork::create()) g->net_ = std::move(*net);
    else g->exposed_why_ = net.error().text;
  }
  if (cfg.backend == BackendKind::mpi || !cfg.hosts.empty()) {  // across hosts mpirun starts every backend
    if (Status st = g->launchMpi(); !st) return st.error();
    if (Status st = g->rendezvous(std::vector<bool>(cfg.ranks, true)); !st) return st.error();
    return g;
  }
  for (int r = 0; r < cfg.ranks; ++r)
    if (Status st = g->spawn(r); !st) return st.error();
  if (Status st = g->rendezvous(std::vector<bool>(cfg.ranks, false)); !st) return st.error();
  return g;
}

RankGroup::~RankGroup() { stop(); }

std::vector<pid_t> RankGroup::pids() const {
  std::vector<pid_t> out;
  for (const auto& w : workers_) out.push_back(w.pid);
  return out;
}

std::vector<RankHost> RankGroup::places() const {
  char me[256] = "";
  ::gethostname(me, sizeof me - 1);
  std::vector<RankHost> out;
  for (const auto& w : workers_) out.push_back(w.remote ? RankHost{w.host, w.remote_pid} : RankHost{me, long(w.pid)});
  return out;
}

Status RankGroup::spawn(int rank) {
  auto pair = Channel::pair();
  if (!pair) return pair.error();
  Channel mine = std::move(pair->first), theirs = std::move(pair->second);
  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls.
  const std::string path = cfg_.worker_path;
  std::vector<std::string> args = {path, "--rank", std::to_string(rank), "--size",
                                   std::to_string(cfg_.ranks), "--fd", "3", "--backend",
                                   std::string(name(cfg_.backend)), "--timeout-ms",
                                   std::to_string(initTimeout().count())};
  const RankPlacement* place =
      rank < int(cfg_.placement.size()) ? &cfg_.placement[rank] : nullptr;
  if (place && place->gpu >= 0) {
    args.push_back("--gpu");
    args.push_back(std::to_string(place->gpu));
  }
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    bool overridden = false;
    if (place)
      for (const auto& [k, v] : place->env)
        if (std::strncmp(*e, k.c_str(), k.size()) == 0 && (*e)[k.size()] == '=')
          overridden = true;
    if (!overridden) env.emplace_back(*e);
  }
  if (place)
    for (const auto& [k, v] : place->env) env.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int child_fd = theirs.fd();
  const PrivateNetwork& net = net_;

  const pid_t pid = ::fork();
  if (pid < 0) return Error{say("{0}: {1}", "fork", std::strerror(errno))};
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (net.active() && !net.enter()) ::_exit(126);
    if (child_fd == 3) ::fcntl(3, F_SETFD, 0);
    else ::dup2(child_fd, 3);  // dup2 clears close-on-exec
    ::dup2(2, 1);              // stdout belongs to the app (JSON); logs go to stderr
    ::execve(path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  registerChild(pid);
  theirs.close();
  workers_[rank].pid = pid;
  workers_[rank].ch = std::move(mine);
  return {};
}

// Serve the rendezvous store until every rank reports ready.
Status RankGroup::rendezvous(std::vector<bool> hello) {
  const int n = cfg_.ranks;
  std::vector<bool> ready(n, false);
  int left = n;
  const auto deadline = Clock::now() + joinTimeout();
  while (left > 0) {
    std::vector<pollfd> pfds(n);
    for (int r = 0; r < n; ++r) pfds[r] = {workers_[r].ch.fd(), short(ready[r] ? 0 : POLLIN), 0};
    if (cfg_.cancel && cfg_.cancel->load()) {
      healthy_ = false;
      return Error{say("cancelled")};
    }
    const int pr = ::poll(pfds.data(), pfds.size(), msLeft(deadline));
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0 && Clock::now() < deadline) continue;
    if (pr <= 0) {
      healthy_ = false;
      Text blame = whoBlocksJoining(ready, hello);
      if (blame.empty()) {
        std::vector<int> waiting;
        for (int r = 0; r < n; ++r)
          if (!ready[r]) waiting.push_back(r);
        blame = say("rank(s) {0} did not join", rankList(waiting));
      }
      return Error{say("starting {0}: {1} within {2} ms", name(cfg_.backend), blame, joinTimeout().count())};
    }
    for (int r = 0; r < n; ++r) {
      if (!(pfds[r].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto m = workers_[r].ch.recv(std::chrono::milliseconds(0));
      if (!m) {
        healthy_ = false;
        return Error{say("starting {0}: {1}", name(cfg_.backend), describeExit(r))};
      }
      const json j = json::parse(m->body, nullptr, false);
      const std::string type = j.is_discarded() ? "" : j.value("type", "");
      if (type == "hello") {
        hello[r] = true;
      } else if (type == "store_set") {
        store_[j.value("key", "")] = j.value("value", "");
      } else if (type == "store_get") {
        auto it = store_.find(j.value("key", ""));
        json reply = {{"type", "store_value"}, {"found", it != store_.end()}};
        if (it != store_.end()) reply["value"] = it->second;
        workers_[r].ch.send(reply.dump());
      } else if (type == "ready") {
        ready[r] = true;
        --left;
        if (r == 0) {
          const json& b = j["backend"];
          info_ = {b.value("name", ""), b.value("version", ""), getSaid(b, "devices"),
                   getSaid(b, "transport"), getSaid(b, "notes")};
        }
      } else if (type == "error") {
        healthy_ = false;
        // A peer that never started makes the others fail waiting for it:
        // name it first.
        const Text blame = whoBlocksJoining(ready, hello);
        const Error e = protocol::errorFrom(m->body);
        const Text who = workers_[r].remote ? say("rank {0} on host {1}", r, workers_[r].host) : lit("rank " + std::to_string(r));
        return blame.empty() ? Error{say("starting {0}: {1}: {2}", name(cfg_.backend), who, e.text)}
                             : Error{say("starting {0}: {1}; {2}: {3}", name(cfg_.backend), blame, who, e.text)};
      }
    }
  }
  store_.clear();
  if (exposed())
    info_.transport = say("{0}; NOT isolated: other local users can reach these ports (no private network namespace: {1})",
                          info_.transport, exposed_why_);
  return {};
}

// The ranks to blame for a start-up that did not finish: those that never
// said hello (their process did not start), else those stopped; empty when
// every rank started and runs (then the peers' own reports say more).
Text RankGroup::whoBlocksJoining(const std::vector<bool>& ready,
                                 const std::vector<bool>& hello) {
  std::vector<int> silent, stopped;
  ProgressWatch watch(pids());
  for (int r = 0; r < cfg_.ranks; ++r) {
    if (!hello[r]) silent.push_back(r);
    else if (!ready[r] && watch.stopped(r)) stopped.push_back(r);
  }
  if (!silent.empty()) return say("rank(s) {0} never said hello", rankList(silent));
  if (!stopped.empty()) return say("rank(s) {0} stopped before joining", rankList(stopped));
  return {};
}

Status RankGroup::reserve(const std::vector<std::size_t>& bytes, std::vector<SharedMemory> made) {
  std::vector<int> ranks, fresh;
  std::vector<std::size_t> sizes;
  std::vector<SharedMemory> mems;
  for (int r = 0; r < cfg_.ranks && r < int(bytes.size()); ++r) {
    const std::size_t b = std::max<std::size_t>(bytes[r], 1);
    if (workers_[r].shm.data() && workers_[r].shm.size() >= b) continue;
    ranks.push_back(r);
    mems.emplace_back();
    if (std::size_t(r) < made.size() && made[r].data() && made[r].size() >= b) {
      mems.back() = std::move(made[r]);
    } else {
      fresh.push_back(int(mems.size()) - 1);
      sizes.push_back(b);
    }
  }
  if (!sizes.empty()) {
    auto more = SharedMemory::createMany(sizes, "collviz-rank");
    if (!more) return more.error();
    for (std::size_t k = 0; k < fresh.size(); ++k) mems[fresh[k]] = std::move((*more)[k]);
  }
  return ranks.empty() ? Status{} : mapNew(ranks, std::move(mems));
}

// New memory `mems` for `ranks`, each sent to its rank, then every rank's
// answer awaited.
Status RankGroup::mapNew(const std::vector<int>& ranks, std::vector<SharedMemory> mems) {
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    Worker& w = workers_[ranks[i]];
    const SharedMemory& shm = mems[i];
    // Its size, not the bytes asked: rounded up to whole huge pages where it is big.
    if (Status st = w.ch.send(json{{"type", "map"}, {"bytes", shm.size()}}.dump(), w.remote ? -1 : shm.fd()); !st) {
      healthy_ = false;  // the rank is gone: the next request must start a fresh group
      return Error{describeExit(ranks[i])};
    }
  }
  Error refused;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int rank = ranks[i];
    Worker& w = workers_[rank];
    auto reply = w.ch.recv(cfg_.deadline);
    if (!reply) {
      healthy_ = false;
      const bool stopped = ProgressWatch({w.pid}).stopped(0);
      return Error{reply.error().message != "timeout" ? describeExit(rank)
                   : stopped ? say("rank {0} did not map its shared memory (process stopped)", rank)
                             : say("rank {0} did not map its shared memory", rank)};
    }
    // A refusal is answered after the other ranks' answers are read: none
    // may be left in a channel for the next run to read.
    if (json::parse(reply->body, nullptr, false).value("type", "") != "mapped") {
      if (refused.message.empty()) refused = Error{say("rank {0}: {1}", rank, reply->body)};
      continue;
    }
    w.shm = std::move(mems[i]);
    inputs_held_.reset();
    poisoned_.reset();
  }
  if (!refused.message.empty()) return refused;
  return {};
}

std::byte* RankGroup::memory(int r) const {
  return reinterpret_cast<std::byte*>(workers_[r].shm.data());
}

// The op's wait by what the ranks did in it (StepResult::reach_us...), from
// their stamps on the steady clock: each part ends when the last rank ends
// it. Left at 0 unless every rank stamped its run (Gloo on this host).
static void splitWait(StepResult& step, double sent_at_us) {
  double got = 0, warm = 0, begin = 0, end = 0;
  for (const RankResult& rr : step.ranks) {
    if (rr.timed_end_at_us <= 0) return;
    got = std::max(got, rr.got_at_us), warm = std::max(warm, rr.warm_end_at_us);
    begin = std::max(begin, rr.timed_begin_at_us), end = std::max(end, rr.timed_end_at_us);
  }
  // Clamped in order, so that the parts stay in [0, wait] and add up to it.
  got = std::clamp(got, sent_at_us, sent_at_us + step.wait_us);
  warm = std::clamp(warm, got, sent_at_us + step.wait_us);
  begin = std::clamp(begin, warm, sent_at_us + step.wait_us);
  end = std::clamp(end, begin, sent_at_us + step.wait_us);
  step.reach_us = got - sent_at_us;
  step.warmup_us = warm - got;
  step.rank_poison_us = begin - warm;
  step.timed_us = end - begin;
  step.replies_us = step.wait_us - (end - sent_at_us);
}

Status RankGroup::run(StepResult& step, const StepPlace& at, const RunOptions& opts) {
  const OpSpec& s = step.spec;
  const int n = cfg_.ranks;
  if (s.ranks != n) return Error{say("internal: spec ranks differ from the group")};
  step.ranks.resize(n);
  for (int r = 0; r < n; ++r) {
    const std::size_t need = std::max(at.in[r] + inputBytes(s, r), at.out[r] + outputBytes(s, r));
    if (!workers_[r].shm.data() || workers_[r].shm.size() < need)
      return Error{say("internal: rank {0}'s shared memory is not reserved", r)};
  }
  // Bytes left from an earlier run must never pass as this run's result
  // (ranks on threads of their own: at real sizes this is memory-bound).
  std::atomic<int> next{0};
  auto poison = [&] {
    for (int r; (r = next++) < n;)
      poisonBytes(workers_[r].shm.data() + at.out[r], outputBytes(s, r), s.dtype);
  };
  std::size_t out_total = 0;
  for (int r = 0; r < n; ++r) out_total += outputBytes(s, r);
  const bool poisoned = poisoned_ && poisoned_->first == s && poisoned_->second == at.out;
  poisoned_.reset();  // this run writes the outputs
  if (!poisoned) {
    std::vector<std::thread> pool;
    const int threads = out_total >= (std::size_t(8) << 20) ? std::min(n, verifyThreads()) : 1;
    for (int k = 1; k < threads; ++k) pool.emplace_back(poison);
    poison();
    for (auto& t : pool) t.join();
  }
  json base = {{"type", "run"},     {"op", name(s.op)},       {"ranks", s.ranks},
                     {"elems", s.elems},  {"dtype", name(s.dtype)}, {"redop", name(s.redop)},
                     {"root", s.root},    {"warmup", opts.warmup},
                     {"iters", opts.iters},
                     {"timeout_ms", opDeadline(s, deadline()).count()}};
  if (fault_) base["fault"] = *fault_;
  // Ranks on other hosts: their inputs and poisoned outputs travel first.
  std::vector<Span> in_spans, out_spans;
  for (int r = 0; r < n; ++r) {
    if (!workers_[r].remote) continue;
    if (inputBytes(s, r)) in_spans.push_back({r, at.in[r], inputBytes(s, r)});
    if (outputBytes(s, r)) out_spans.push_back({r, at.out[r], outputBytes(s, r)});
  }
  std::vector<Span> both = in_spans;
  both.insert(both.end(), out_spans.begin(), out_spans.end());
  const auto sent = Clock::now();
  if (Status st = pushSpans(both); !st) return Error{say("{0}: {1}", name(s.op), st.text())};
  const auto pushed = Clock::now();
  for (const Span& sp : both) step.wire_bytes += sp.n;
  for (const Span& sp : out_spans) step.wire_bytes += sp.n;
  for (int r = 0; r < n; ++r) {
    json m = base;
    m["in_offset"] = at.in[r];
    m["out_offset"] = at.out[r];
    if (workers_[r].remote) m["beat_ms"] = beatPeriod(cfg_.deadline).count();
    if (!workers_[r].ch.send(m.dump())) {
      healthy_ = false;
      return Error{say("{0}: {1}", name(s.op), describeExit(r))};
    }
  }
  if (Status st = awaitRanks(step, opts); !st) return st;
  const auto answered = Clock::now();
  if (Status st = pullSpans(out_spans); !st) return Error{say("{0}: {1}", name(s.op), st.text())};
  step.wait_us = std::chrono::duration<double, std::micro>(Clock::now() - sent).count();
  if (step.wire_bytes)
    step.wire_us = std::chrono::duration<double, std::micro>((pushed - sent) + (Clock::now() - answered)).count();
  splitWait(step, std::chrono::duration<double, std::micro>(sent.time_since_epoch()).count());
  step.time_us = 0;
  for (int r = 0; r < n; ++r) {
    RankResult& rr = step.ranks[r];
    rr.rank = r;
    rr.input.present = inputBlocks(s.op, n, r, s.root) > 0;
    rr.output.present = outputBlocks(s.op, n, r, s.root) > 0;
    step.time_us = std::max(step.time_us, rr.op_us);
  }
  return {};
}

Text RankGroup::describeExit(int rank) {
  Worker& w = workers_[rank];
  if (w.remote) return describeMpiExit(rank);
  if (w.pid <= 0) return say("rank {0} (pid {1}) is not running", rank, w.pid);
  if (!w.child) return describeMpiExit(rank);  // an MPI rank: mpirun's child
  int status = 0;
  pid_t got = 0;
  for (int i = 0; i < 100 && got == 0; ++i) {  // the exit follows the EOF closely
    got = ::waitpid(w.pid, &status, WNOHANG);
    if (got == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (got != w.pid) return say("rank {0} (pid {1}) closed its channel", rank, w.pid);
  const pid_t pid = w.pid;
  forgetChild(w.pid);
  w.pid = -1;
  if (WIFSIGNALED(status))
    return say("rank {0} (pid {1}) was killed by signal {2} ({3})", rank, pid, WTERMSIG(status),
               strsignal(WTERMSIG(status)));
  return say("rank {0} (pid {1}) exited with code {2}", rank, pid, WEXITSTATUS(status));
}

void RankGroup::release() {
  if (cfg_.backend == BackendKind::mpi || !cfg_.hosts.empty() || released_) return;
  for (auto& w : workers_)
    if (w.pid > 0) w.ch.send(json{{"type", "exit"}}.dump());
  released_ = true;
}

void RankGroup::stop() {
  if (cfg_.backend == BackendKind::mpi || !cfg_.hosts.empty()) return stopMpi();
  for (auto& w : workers_)
    if (w.pid > 0 && !released_) w.ch.send(json{{"type", "exit"}}.dump());
  const auto deadline = Clock::now() + std::chrono::milliseconds(healthy_ ? 1000 : 0);
  for (auto& w : workers_) {
    if (w.pid <= 0) continue;
    int status = 0;
    pid_t got = 0;
    while ((got = ::waitpid(w.pid, &status, WNOHANG)) == 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (got == 0) {
      ::kill(w.pid, SIGKILL);
      while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {}
    }
    forgetChild(w.pid);
    w.pid = -1;
    w.ch.close();
    w.shm.reset();
  }
}

}  // namespace collviz
