// collviz watch's job: the capture folder made, the launcher started in a
// process group of its own (so the job can be ended whole, and a Ctrl-C at
// the terminal reaches collviz, which ends it in order), the folder read
// every 50 ms while it runs, a hang's verdict said once per hang, and the
// job ended cleanly on Ctrl-C, SIGTERM or --kill-on-hang: SIGTERM to the
// group (mpirun ends its ranks and removes its session files), SIGKILL
// after kTermBoundMs for whatever is left; then, for the NCCL tap given
// through the environment, the same to the job's processes that left the
// group (torchrun's ranks, each in a session of its own).
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/cli/cli_watch.h"
#include "app/lang/lang.h"
#include "engine/group/program_files.h"

namespace collviz {

namespace fs = std::filesystem;

std::uint64_t realtimeNs() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return std::uint64_t(t.tv_sec) * 1000000000ull + std::uint64_t(t.tv_nsec);
}

namespace {

constexpr int kPollMs = 50;
constexpr double kProgressEveryS = 5;

std::atomic<int> g_watchSignal{0};

extern "C" void onWatchSignal(int sig) {
  int none = 0;
  g_watchSignal.compare_exchange_strong(none, sig);
  g_interrupted = true;
}

// Ctrl-C and SIGTERM end the job in order here (the shared handler's
// watchdog would kill it outright within 150 ms, leaving mpirun's files).
void takeSignals() {
  struct sigaction sa {};
  sa.sa_handler = onWatchSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: the poll's sleep ends at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::string dateName() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "collviz-watch-%Y%m%d-%H%M%S", &tm);
  return buf;
}

// --out made absolute and created; by default a new folder named by the
// date and time in the current folder. A folder that already holds a
// capture is refused: two jobs' files would be read as one.
Result<std::string> makeOut(const std::string& given) {
  std::error_code ec;
  fs::path out;
  if (given.empty()) {
    const std::string base = dateName();
    out = fs::absolute(base, ec);
    for (int i = 2; fs::exists(out, ec) && i < 1000; ++i) out = fs::absolute(base + "-" + std::to_string(i), ec);
  } else {
    out = fs::absolute(given, ec);
  }
  if (ec) return Error(say("--out {0}: {1}", printable(given), ec.message()));
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    return Error(say("--out {0} is not a folder", printable(out.string())));
  fs::create_directories(out, ec);
  if (ec) return Error(say("cannot make the capture folder {0}: {1}", printable(out.string()), ec.message()));
  for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == tap::kFileSuffix)
      return Error(say("--out {0} already holds a capture ({1}); give a new or empty folder", printable(out.string()),
                       printable(it->path().filename().string())));
  if (::access(out.c_str(), W_OK) != 0) return Error(say("cannot write in the capture folder {0}", printable(out.string())));
  return out.string();
}

pid_t startJob(const WatchOptions& o) {
  const std::vector<std::string> args = launchArgs(o);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The environment, made before fork (nothing allocates in the child): collviz's
  // own, with the NCCL tap's variables set where it goes that way.
  const auto set = launchEnv(o, std::getenv("LD_PRELOAD"));
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string v = *e;
    bool replaced = false;
    for (const auto& [name, value] : set) replaced = replaced || v.compare(0, name.size() + 1, name + "=") == 0;
    if (!replaced) env.push_back(v);
  }
  for (const auto& [name, value] : set) env.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) {
    if (pid > 0) ::setpgid(pid, pid);  // also in the child: whichever runs first
    return pid;
  }
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // collviz killed outright: mpirun ends the job
  if (::getppid() != parent) ::_exit(127);
  if (o.json) ::dup2(2, 1);  // stdout is collviz's JSON lines
  // In a process group of its own, mpirun reading a terminal would stop
  // (SIGTTIN): a terminal's input is not the program's. A file or a pipe is.
  if (::isatty(0)) {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(o.launcher.c_str(), argv.data(), envp.data());
  ::_exit(127);
}

int exitStatus(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return kExitFailed;
}

// SIGTERM to the job's process group, SIGKILL after the bound; its wait status.
int endJob(pid_t pid) {
  ::kill(-pid, SIGTERM);
  int st = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTermBoundMs);
  for (;;) {
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= until) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // A rank left in the group after mpirun ended (its group id cannot be
  // reused while a member lives, so this reaches only the job's own).
  ::kill(-pid, SIGKILL);
  return st;
}

// Ended, or only waiting for its parent to reap it (state Z): /proc/PID/stat.
bool gone(pid_t p) {
  std::ifstream f("/proc/" + std::to_string(p) + "/stat");
  std::string stat;
  if (!std::getline(f, stat)) return true;
  const std::size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z';
}

// The job's processes outside its process group: torchrun starts each rank
// in a session of its own, which the group's signals do not reach. They
// are the processes (this one aside) whose environment, as they were
// started, holds this capture's COLLVIZ_TAP_OUT, which only the job's
// processes inherit (the NCCL tap given through the environment).
std::vector<pid_t> escaped(const std::string& out) {
  const std::string mark = "COLLVIZ_TAP_OUT=" + out;
  std::vector<pid_t> v;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t p = pid_t(std::stol(name));
    if (p == ::getpid() || gone(p)) continue;
    std::ifstream f(it->path() / "environ", std::ios::binary);
    for (std::string var; std::getline(f, var, '\0');)
      if (var == mark) {
        v.push_back(p);
        break;
      }
  }
  return v;
}

// The job's processes that left its group: SIGTERM, SIGKILL after the bound.
void endEscaped(const std::string& out) {
  std::vector<pid_t> left = escaped(out);
  for (pid_t p : left) ::kill(p, SIGTERM);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTermBoundMs);
  while (!left.empty()) {
    left.erase(std::remove_if(left.begin(), left.end(), gone), left.end());
    if (left.empty()) break;
    if (std::chrono::steady_clock::now() >= until) {
      for (pid_t p : left) ::kill(p, SIGKILL);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int runWatch(WatchOptions& o) {
  auto out = makeOut(o.out);
  if (!out) return fail("watch", out.error(), kExitFailed);
  o.out = *out;
  takeSignals();
  job::LiveCapture live(o.out, o.json);
  const std::uint64_t startNs = realtimeNs();
  if (!o.json)
    std::fprintf(stderr, "%s\n", ("collviz watch: " + trf("capture in {0}; a hang is {1} s without any call returning", {printable(o.out), formatNumber(o.hangAfterS)})).c_str());
  const pid_t pid = startJob(o);
  if (pid < 0) return fail("watch", say("cannot start {0} (fork failed)", printable(o.launcher)), kExitFailed);
  o.launcherPid = pid;
  const int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));  // -1 before Linux 5.3: the loop sleeps instead

  std::vector<job::LiveCall> returned, entered;
  bool exited = false, interrupted = false, killedOnHang = false;
  int st = 0;
  bool hangSaid = false;
  std::uint64_t saidAtExit = 0;  // lastExitNs when the verdict was said: a new return re-arms it
  WatchVerdict lastVerdict;
  bool haveVerdict = false;
  double lastProgressS = 0;
  std::int64_t lastProgressCalls = -1;
  const std::uint64_t hangNs = std::uint64_t(o.hangAfterS * 1e9);
  for (;;) {
    returned.clear();
    live.poll(&returned);
    if (o.json) {
      for (const job::LiveCall& c : returned) printCallLine(live, c, true);
      std::fflush(stdout);
    }
    const std::uint64_t now = realtimeNs();
    if (hangSaid && live.lastExitNs() != saidAtExit) hangSaid = false;
    // A hang: for S seconds no call returned and some rank waited (from
    // its entry: ranks still starting are not a hang of the first to arrive).
    const std::uint64_t quietFrom = std::max({live.lastExitNs(), live.oldestInFlightNs(), startNs});
    if (!hangSaid && live.inFlightCount() > 0 && now > quietFrom && now - quietFrom >= hangNs) {
      lastVerdict = verdictNow(o.out, now, live.lastExitNs());
      lastVerdict.quietS = double(now - quietFrom) / 1e9;
      haveVerdict = true;
      printVerdict(lastVerdict, o.json);
      hangSaid = true;
      saidAtExit = live.lastExitNs();
      if (o.killOnHang) {
        st = endJob(pid);
        if (!o.mpirun) endEscaped(o.out);  // mpirun ends its own ranks
        exited = killedOnHang = true;
      }
    }
    if (!exited && ::waitpid(pid, &st, WNOHANG) == pid) exited = true;
    if (!exited && g_watchSignal.load() != 0) {
      st = endJob(pid);
      if (!o.mpirun) endEscaped(o.out);
      exited = interrupted = true;
    }
    if (exited) break;
    const double secs = double(now - startNs) / 1e9;
    if (!o.json && secs - lastProgressS >= kProgressEveryS && live.returned() != lastProgressCalls) {
      printProgress(live, secs);
      lastProgressS = secs;
      lastProgressCalls = live.returned();
    }
    // The next poll in 50 ms, or at once when the launcher ends (its pidfd).
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, kPollMs);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  // What the files gained while the job ended.
  returned.clear();
  live.poll(&returned);
  if (o.json) {
    for (const job::LiveCall& c : returned) printCallLine(live, c, true);
    for (const job::LiveCall& c : live.inFlight()) printCallLine(live, c, false);  // never returned
    std::fflush(stdout);
  }
  const int status = exitStatus(st);
  const std::uint64_t endNs = realtimeNs();
  if (interrupted) g_interrupted = false;  // said below; collviz's own checks after the command go on
  writeCaptureJson(o, startNs, endNs, status, haveVerdict ? &lastVerdict : nullptr, live, interrupted);
  if (live.entered() == 0) printNothingSeen(live, o);
  if (!o.json) printSummary(live, o, status);
  if (killedOnHang && !o.json)
    std::fprintf(stderr, "%s\n", (std::string("collviz watch: ") + tr("the job was ended after the hang (--kill-on-hang)")).c_str());
  if (interrupted) {
    if (!o.json) std::fprintf(stderr, "%s\n", (std::string("collviz watch: ") + tr("interrupted; the job was ended and the capture closed")).c_str());
    return 128 + g_watchSignal.load();
  }
  return status;
}

}  // namespace collviz
