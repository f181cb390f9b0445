#include "engine/group/remote_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/group/exit_cleanup.h"
#include "engine/group/mpi_job_dir.h"
#include "engine/group/mpi_launch.h"
#include "engine/version.h"

extern char** environ;

namespace collviz {
namespace {

using Clock = std::chrono::steady_clock;

std::string tail(const std::string& s, std::size_t n) { return s.size() > n ? s.substr(s.size() - n) : s; }

// The first sentence of mpirun's log that says something (not a rule of
// dashes), its wrapped lines joined, at most 300 characters.
std::string firstWords(const std::string& log) {
  std::string words;
  std::size_t at = 0;
  while (at < log.size()) {
    const std::size_t nl = std::min(log.find('\n', at), log.size());
    std::string line = log.substr(at, nl - at);
    at = nl + 1;
    const auto b = line.find_first_not_of(" \t");
    const bool rule = b == std::string::npos || line[b] == '-' || line[b] == '*';
    if (rule && !words.empty()) break;
    if (rule) continue;
    words += (words.empty() ? "" : " ") + line.substr(b);
    if (words.back() == ':' || words.back() == '.' || words.size() >= 300) break;
  }
  return words.substr(0, 300);
}

// mpirun's first words, or that it said nothing.
Text saidBy(const std::string& log) {
  const std::string w = firstWords(log);
  return w.empty() ? say("nothing said") : lit(w);
}

struct Ran {
  int status = -1;
  bool timed_out = false;
  std::string out, log;
  Text failure;  // could not start mpirun at all
};

Ran runMpirun(const std::vector<std::string>& args, int timeout_ms) {
  Ran ran;
  auto files = makeMpiJobFiles();  // mpirun's session folder: ours, removed after
  if (!files) {
    ran.failure = files.error().text;
    return ran;
  }
  std::vector<std::string> added = mpirunEnv(::geteuid() == 0);
  added.push_back("TMPDIR=" + files->session.path());
  // What mpirun starts carries its mark: ended with it (exit_cleanup.h).
  const std::string mark = newJobMark();
  added.push_back(mark);
  std::vector<std::string> env = environWith(added);
  std::vector<std::string> argv_s = args;
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int out[2], log[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return ran.failure = say("{0}: {1}", "pipe", std::strerror(errno)), ran;
  if (::pipe2(log, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    return ran.failure = say("{0}: {1}", "pipe", std::strerror(errno)), ran;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out[0], out[1], log[0], log[1]}) ::close(fd);
    return ran.failure = say("{0}: {1}", "fork", std::strerror(errno)), ran;
  }
  if (pid == 0) {
    // mpirun ends with us by SIGTERM: it then ends its remote daemons.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::signal(SIGPIPE, SIG_IGN);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(log[1], 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  registerMarkedChild(pid, mark);
  ::close(out[1]);
  ::close(log[1]);
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  bool out_open = true, log_open = true;
  char buf[4096];
  while (out_open || log_open) {
    if (Clock::now() >= deadline) {
      ran.timed_out = true;
      break;
    }
    pollfd p[2] = {{out_open ? out[0] : -1, POLLIN, 0}, {log_open ? log[0] : -1, POLLIN, 0}};
    if (::poll(p, 2, 100) <= 0) {
      // mpirun gone and the pipes still open: what it started holds them
      // (an agent); ended, they close.
      siginfo_t info{};
      if (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
        killMarked(mark);
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(p[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        (i == 0 ? out_open : log_open) = false;
        continue;
      }
      std::string& into = i == 0 ? ran.out : ran.log;
      if (into.size() < (std::size_t(1) << 20)) into.append(buf, std::size_t(n));
    }
  }
  bool reaped = false;
  if (ran.timed_out) {
    ::kill(pid, SIGTERM);  // mpirun ends its daemons, then itself
    for (int i = 0; i < 50 && !(reaped = reapJob(pid, &ran.status, false) == pid); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!reaped) ::kill(pid, SIGKILL);
  }
  ::close(out[0]);
  ::close(log[0]);
  if (!reaped) reapJob(pid, &ran.status, true);  // and what it started, ended
  forgetChild(pid);
  return ran;
}

}  // namespace

Text mpirunFailure(const std::string& raw, const std::string& host, const std::string& worker_path,
                   const std::string& agent) {
  // Open MPI wraps its messages: matched as one line.
  std::string log = raw;
  for (char& c : log)
    if (c == '\n') c = ' ';
  if (log.find("could not access or execute an executable") != std::string::npos ||
      log.find("unable to find the specified executable") != std::string::npos)
    return say("no collviz-rank at {0} there (mpirun: {1}); install the same collviz at the same path on every host",
               worker_path, saidBy(raw));
  if (log.find("unable to reliably start one or more daemons") != std::string::npos ||
      log.find("unable to start a daemon") != std::string::npos ||
      log.find("ORTE daemon has unexpectedly failed") != std::string::npos ||
      log.find("lost communication") != std::string::npos)
    return say("cannot be reached: mpirun could not start its daemon on {0} through {1} ({2})", host,
               agent.empty() ? std::string("ssh") : agent, saidBy(raw));
  return {};
}

HostProbe readHostProbe(const std::string& host, const std::string& text) {
  HostProbe h;
  h.host = host;
  // The JSON is the last line (mpirun may pass on a library's words before it).
  std::string line = text;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (const auto nl = line.rfind('\n'); nl != std::string::npos) line = line.substr(nl + 1);
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    h.problem = say("its collviz-rank --probe did not answer with the probe's JSON (it printed: {0})",
                    line.empty() ? say("nothing said") : lit(tail(line, 200)));
    return h;
  }
  h.hostname = j.value("host", "");
  h.version = j.value("collviz", "");
  h.commit = j.value("commit", "");
  auto rep = parseProbe(line);
  if (rep) h.report = std::move(*rep);
  if (h.version != collvizVersion())
    h.problem = say("runs collviz-rank {0} and this collviz is {1}; install the same version on every host",
                    h.version.empty() ? std::string("(unknown)") : h.version, collvizVersion());
  else if (!rep)
    h.problem = say("its probe's answer cannot be read: {0}", rep.error().text);
  return h;
}

std::vector<HostProbe> probeHosts(const HostSpec& hosts, const std::string& worker_path, int timeout_ms) {
  std::vector<HostProbe> out(hosts.hosts.size());
  auto mpirun = findMpirun();
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < hosts.hosts.size(); ++i) {
    out[i].host = hosts.hosts[i].name;
    if (!mpirun) {
      out[i].problem = mpirun.error().text;
      continue;
    }
    pool.emplace_back([&, i] {
      HostSpec one = hosts;
      one.hosts = {{hosts.hosts[i].name, 1}};
      one.map_by = MapBy::slot;
      const Ran ran = runMpirun(mpirunArgs(*mpirun, 1, one, {}, {worker_path, "--probe"}), timeout_ms);
      HostProbe& h = out[i];
      if (!ran.failure.empty()) {
        h.problem = ran.failure;
        return;
      }
      const std::string name = h.host;
      if (ran.timed_out) {
        h.problem = say("no answer within {0} ms (mpirun: {1})", timeout_ms, saidBy(ran.log));
      } else if (WIFEXITED(ran.status) && WEXITSTATUS(ran.status) == 0) {
        h = readHostProbe(name, ran.out);
      } else if (Text why = mpirunFailure(ran.log, name, worker_path, hosts.agent); !why.empty()) {
        h.problem = why;
      } else {
        h.problem = say("mpirun ended with status {0} ({1})", WIFEXITED(ran.status) ? WEXITSTATUS(ran.status) : -1,
                        saidBy(ran.log));
      }
      h.host = name;
      h.log = tail(ran.log, 4096);
    });
  }
  for (auto& t : pool) t.join();
  return out;
}

DeviceReport combineHostReports(const std::vector<HostProbe>& probes) {
  BackendStatus nccl;
  nccl.kind = BackendKind::nccl;
  nccl.info.name = "nccl";
  nccl.reason = say("no host to run on").english();
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const HostProbe& p = probes[i];
    const BackendStatus* b = p.report ? p.report->find(BackendKind::nccl) : nullptr;
    Text why;
    if (!p.ok()) why = p.problem;
    else if (!b) why = say("its collviz-rank has no NCCL backend");
    else if (!b->available) why = lit(b->reason);
    if (!why.empty()) {
      nccl.available = false;
      nccl.reason = say("on host {0}: {1}", p.host, why).english();
      break;
    }
    if (i == 0) nccl = *b;
  }
  DeviceReport rep;
  rep.backends.push_back(std::move(nccl));
  return rep;
}

}  // namespace collviz
