// An MPI group (engine/group/mpi_launch.h): mpirun starts the N ranks as one job;
// each connects back to the engine's listener and says hello with its rank
// and pid. mpirun is the engine's child (PR_SET_PDEATHSIG: it dies with the
// engine) and the ranks are mpirun's (they set PR_SET_PDEATHSIG themselves:
// they die with mpirun), so nothing outlives the engine. Open MPI aborts the
// whole job when a rank dies; the engine then reaps mpirun and the next
// request starts a new job.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/group/deadline.h"
#include "engine/group/exit_cleanup.h"
#include "engine/group/mpi_launch.h"
#include "engine/group/rank_group.h"

extern char** environ;

namespace collviz {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

Status RankGroup::forkMpirun(const std::string& path, const std::vector<std::string>& given,
                             const std::vector<std::string>& given_env) {
  std::vector<std::string> args = given;
  // Open MPI's files in folders of the job's own (mpi_job_dir.h), after the
  // folders of jobs whose collviz died are swept.
  auto files = makeMpiJobFiles();
  if (!files) return Error{say("starting mpi: {0}", files.error().text)};
  mpi_files_ = std::move(*files);
  std::vector<std::string> added = given_env;
  if (cfg_.hosts.empty()) {
    for (const std::string& e : mpi_files_.env()) added.push_back(e);
  } else {
    // Across hosts only mpirun's own session folder moves (TMPDIR is not
    // passed on): the MCA settings would send the remote daemons to folders
    // that exist only here.
    added.push_back("TMPDIR=" + mpi_files_.session.path());
  }
  // What mpirun starts carries its mark: ended with it (exit_cleanup.h).
  const std::string mark = newJobMark();
  added.push_back(mark);
  std::vector<std::string> env = environWith(added);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int log[2];
  if (::pipe2(log, O_CLOEXEC) != 0) return Error{say("{0}: {1}", "pipe", std::strerror(errno))};

  // Across hosts mpirun ends with the engine by SIGTERM: it then ends the
  // remote daemons and removes its session directory (SIGKILL leaves it).
  const int death = cfg_.hosts.empty() ? SIGKILL : SIGTERM;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log[0]);
    ::close(log[1]);
    return Error{say("{0}: {1}", "fork", std::strerror(errno))};
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, death);
    // Its log's reader may be gone (the engine killed): a write must not
    // end it before it has cleaned up.
    if (death == SIGTERM) ::signal(SIGPIPE, SIG_IGN);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    // stdout belongs to the app (JSON): Open MPI's messages and the ranks'
    // logs go through the log pipe to stderr.
    ::dup2(log[1], 1);
    ::dup2(log[1], 2);
    ::execve(path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(log[1]);
  registerMarkedChild(pid, mark);
  mpirun_ = pid;
  mpi_log_.start(log[0]);
  return {};
}

Status RankGroup::launchMpi() {
  if (!cfg_.hosts.empty()) return launchMpiHosts();
  const int n = cfg_.ranks;
  auto mpirun = findMpirun();
  if (!mpirun) return Error{say("starting mpi: {0}", mpirun.error().text)};
  auto listener = MpiListener::open();
  if (!listener) return Error{say("starting mpi: {0}", listener.error().text)};
  const std::vector<std::string> worker = {cfg_.worker_path, "--backend", "mpi", "--connect",
                                           listener->name(), "--size", std::to_string(n),
                                           "--timeout-ms", std::to_string(initTimeout().count())};
  auto bind = mpiBinding(std::getenv("COLLVIZ_MPI_BIND"));
  if (!bind) return Error{say("starting mpi: {0}", bind.error().text)};
  std::vector<std::string> env = mpirunEnv(::geteuid() == 0);
  env.push_back(std::string(kMpiBindPerOpEnv) + (mpiBindsPerOp(std::getenv("COLLVIZ_MPI_BIND")) ? "=1" : "=0"));
  if (Status st = forkMpirun(*mpirun, mpirunArgs(*mpirun, n, worker, *bind), env); !st) return st;

  // Every rank connects and says hello; mpirun failing ends the wait.
  const auto deadline = Clock::now() + joinTimeout();
  std::vector<bool> joined(n, false);
  int left = n;
  while (left > 0) {
    if (cfg_.cancel && cfg_.cancel->load()) {
      healthy_ = false;
      return Error{say("cancelled")};
    }
    int status = 0;
    if (reapJob(mpirun_, &status, false) == mpirun_) {
      forgetChild(mpirun_);
      mpirun_ = -1;
      mpi_log_.stop();
      healthy_ = false;
      std::vector<int> missing;
      for (int r = 0; r < n; ++r)
        if (!joined[r]) missing.push_back(r);
      return Error{say("starting mpi: mpirun {0} before rank(s) {1} connected (Open MPI's message is on stderr)",
                       exitText(status), rankList(missing))};
    }
    if (Clock::now() >= deadline) {
      healthy_ = false;
      std::vector<int> missing;
      for (int r = 0; r < n; ++r)
        if (!joined[r]) missing.push_back(r);
      return Error{say("starting mpi: rank(s) {0} never said hello within {1} ms", rankList(missing),
                       joinTimeout().count())};
    }
    pollfd p{listener->fd(), POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    auto peer = listener->accept();
    if (!peer) continue;  // another uid, or the peer went away: not one of ours
    auto hello = peer->ch.recv(std::chrono::milliseconds(2000));
    if (!hello) continue;
    // Its pid the kernel's, its parent mpirun: else not one of ours.
    auto r = checkHello(hello->body, peer->pid, mpirun_, n);
    if (!r || joined[*r]) continue;
    joined[*r] = true;
    --left;
    workers_[*r].pid = peer->pid;
    workers_[*r].child = false;
    workers_[*r].ch = std::move(peer->ch);
  }
  return {};
}

void RankGroup::stopMpi() {
  for (auto& w : workers_)
    if ((w.pid > 0 || w.remote) && w.ch.open()) w.ch.send(json{{"type", "exit"}}.dump());
  if (mpirun_ > 0) {
    // Healthy: the ranks finalize and mpirun exits by itself. Otherwise the
    // ranks are killed (only while still mpirun's: a pid is never reused
    // under us) and mpirun, which reaps them, follows.
    int status = 0;
    pid_t got = 0;
    auto wait = [&](int ms) {
      const auto until = Clock::now() + std::chrono::milliseconds(ms);
      while ((got = reapJob(mpirun_, &status, false)) == 0 && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    };
    // Across hosts a rank ends when its connection closes (worker/main.cpp),
    // and Open MPI then ends the job and cleans up after itself.
    const bool remote = !cfg_.hosts.empty();
    if (remote && !healthy_)
      for (auto& w : workers_) w.ch.close();
    wait(healthy_ || remote ? 3000 : 0);
    if (got == 0) {
      for (auto& w : workers_)
        if (w.pid > 0 && parentAndState(w.pid).first == mpirun_) ::kill(w.pid, SIGKILL);
      wait(1000);
    }
    if (got == 0 && remote) {  // mpirun ends the remote daemons itself on SIGTERM
      ::kill(mpirun_, SIGTERM);
      wait(2000);
    }
    if (got == 0) {
      ::kill(mpirun_, SIGKILL);
      reapJob(mpirun_, &status, true);  // and whatever it started here: an agent that never returns
    }
    forgetChild(mpirun_);
    mpirun_ = -1;
  }
  mpi_log_.stop();
  // The ranks die with mpirun (their PR_SET_PDEATHSIG); wait until they are.
  const auto until = Clock::now() + std::chrono::milliseconds(2000);
  for (auto& w : workers_) {
    while (w.pid > 0 && Clock::now() < until) {
      const auto [parent, state] = parentAndState(w.pid);
      if (parent < 0 || state == 'Z' || state == 'X') break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    w.pid = -1;
    w.ch.close();
    w.shm.reset();
  }
  mpi_files_ = MpiJobFiles{};  // the job has ended: its files go
}

// A rank's channel closed: Open MPI ends the whole job when a rank dies, so
// every channel closes within moments and the one seen first need not be
// the one that died; mpirun's own notice says which did, and how.
Text RankGroup::describeMpiExit(int rank) {
  healthy_ = false;
  if (mpirun_ > 0) {
    // mpirun says which rank died, then exits: wait for either. On a loaded
    // machine its notice took more than 1.5 s (the death was then named only
    // as a closed channel); seen, the wait ends at once.
    const auto until = Clock::now() + std::chrono::milliseconds(4000);
    pid_t got = 0;
    int polls = 0;
    while ((got = reapJob(mpirun_, &mpirun_status_, false)) == 0 && Clock::now() < until) {
      if (++polls % 4 == 0 && parseMpiDeath(mpi_log_.tail())) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (got == mpirun_) {
      forgetChild(mpirun_);
      mpirun_ = -1;
      mpi_log_.stop();  // mpirun is gone: the pipe ends, the whole log is in
    }
  }
  const Text ended = say("Open MPI ended the job; the next request starts a new one");
  if (auto death = parseMpiDeath(mpi_log_.tail())) {
    std::string how;
    for (char c : death->how)  // mpirun wraps its lines
      if (!(std::isspace(static_cast<unsigned char>(c)) && !how.empty() && how.back() == ' '))
        how += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
    // Open MPI 4.1 prints "PID 0"; the rank's hello gave its pid.
    pid_t pid = death->pid;
    if (death->rank >= 0 && death->rank < cfg_.ranks && workers_[death->rank].pid > 0)
      pid = workers_[death->rank].pid;
    if (death->rank >= 0 && death->rank < cfg_.ranks && workers_[death->rank].remote) {
      const Worker& d = workers_[death->rank];
      return say("rank {0} on host {1} (pid {2}) {3}; {4}", death->rank, d.host, d.remote_pid, how, ended);
    }
    return say("rank {0} (pid {1}) {2}; {3}", death->rank, pid, how, ended);  // `how`: Open MPI's words
  }
  const Worker& w = workers_[rank];
  // Open MPI lost a host's daemon (its link down, the host gone): name that host.
  static const std::regex lost(R"(lost\s+communication\s+with\s+a\s+remote\s+daemon[\s\S]*?Remote\s+daemon:\s*\S+\s+on\s+node\s+(\S+))");
  std::smatch m;
  const std::string log = mpi_log_.tail();
  if (w.remote && std::regex_search(log, m, lost))
    return say("host {0} was lost: Open MPI lost contact with its daemon (a link down or the host gone); {1}",
               m[1].str(), ended);
  if (w.remote) {
    if (mpirun_ < 0)
      return say("rank {0} on host {1} (pid {2}) ended: its connection closed and mpirun {3}; {4}", rank, w.host,
                 w.remote_pid, exitText(mpirun_status_), ended);
    return say("rank {0} on host {1} (pid {2}) ended: its connection closed; {3}", rank, w.host, w.remote_pid, ended);
  }
  if (mpirun_ < 0)
    return say("rank {0} (pid {1}) ended: its channel closed and mpirun {2}; {3}", rank, w.pid,
               exitText(mpirun_status_), ended);
  return say("rank {0} (pid {1}) ended: its channel closed; {2}", rank, w.pid, ended);
}

}  // namespace collviz
