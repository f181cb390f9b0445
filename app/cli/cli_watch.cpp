// collviz watch's options and the launcher's checks, and collviz tap-path.
// Under mpirun the tap goes to the ranks only: `-x LD_PRELOAD=<tap>` and the
// capture's settings are inserted after the launcher's name, so mpirun
// exports them to each rank it starts (on every host) and runs itself
// without them. Any other command (torchrun, python, the program itself)
// gets the NCCL tap in its own environment, which launchers pass on to the
// processes they start: the launcher itself then carries the tap too, which
// records nothing in a process that makes no NCCL call.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "app/cli/cli.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/cli/cli_watch.h"
#include "app/lang/lang.h"
#include "engine/group/program_files.h"

namespace collviz {
namespace {

namespace fs = std::filesystem;

// The launcher names Open MPI installs (Debian's alternatives add the
// .openmpi ones).
bool launcherName(const std::string& base) {
  for (const char* n : {"mpirun", "mpiexec", "orterun", "mpirun.openmpi", "mpiexec.openmpi"})
    if (base == n) return true;
  return false;
}

std::string findInPath(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= dirs.size()) {
    std::size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > at ? dirs.substr(at, end - at) : ".";
    const std::string full = dir + "/" + name;
    std::error_code ec;
    if (::access(full.c_str(), X_OK) == 0 && fs::is_regular_file(full, ec)) return full;
    at = end + 1;
  }
  return "";
}

// `launcher --version`'s output (stdout and stderr), within a bound: a
// launcher that does not answer in 10 s is killed and said.
Result<std::string> versionOf(const std::string& launcher) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error(say("cannot run {0} --version (no pipe)", launcher));
  const pid_t pid = ::fork();
  if (pid < 0) return Error(say("cannot run {0} --version (fork failed)", launcher));
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    const char* args[] = {launcher.c_str(), "--version", nullptr};
    ::execv(launcher.c_str(), const_cast<char* const*>(args));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool timedOut = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, int(left)) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    if (out.size() < 65536) out.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  if (timedOut) ::kill(pid, SIGKILL);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (timedOut) return Error(say("{0} --version did not answer within 10 s", launcher));
  return out;
}

std::string firstLine(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  return shown(l, 100);
}

}  // namespace

Result<bool> checkLauncher(WatchOptions& o) {
  const std::string& name = o.command.front();
  const std::string base = fs::path(name).filename().string();
  o.mpirun = launcherName(base);
  // auto: what the launcher says; an NCCL program under mpirun needs --tap nccl.
  o.tapKind = o.tapOption != "auto" ? o.tapOption : o.mpirun ? "mpi" : "nccl";
  if (o.tapKind == "mpi" && !o.mpirun)
    return Error(say("{0} is not a launcher: the program is started through Open MPI's mpirun or mpiexec "
                     "(collviz watch -- mpirun -n 4 ./app)",
                     shown(name)));
  o.launcher = findInPath(name);
  if (o.launcher.empty() && !o.mpirun)
    return Error(name.find('/') != std::string::npos ? say("the program {0} was not found (no such program)", shown(name))
                                                     : say("the program {0} was not found in PATH", shown(name)));
  if (o.launcher.empty())
    return Error(name.find('/') != std::string::npos ? say("the launcher {0} was not found (no such program)", shown(name))
                                                     : say("the launcher {0} was not found in PATH", shown(name)));
  if (!o.mpirun) return true;  // any program: its --version is not asked (it might not know the option)
  auto v = versionOf(o.launcher);
  if (!v) return v.error();
  if (v->find("Open MPI") == std::string::npos && v->find("OpenRTE") == std::string::npos)
    return Error(o.tapKind == "mpi"
                     ? say("{0} is not Open MPI's launcher ({0} --version says: {1}); collviz watch runs Open MPI programs "
                           "(the tap wraps Open MPI's library)",
                           shown(name), v->empty() ? std::string("''") : firstLine(*v))
                     : say("{0} is not Open MPI's launcher ({0} --version says: {1}); collviz gives the NCCL tap to the ranks "
                           "with Open MPI's -x option: start the program without mpirun, or with Open MPI's",
                           shown(name), v->empty() ? std::string("''") : firstLine(*v)));
  o.launcherVersion = firstLine(*v);
  return true;
}

std::vector<std::string> launchArgs(const WatchOptions& o) {
  if (!o.mpirun) return o.command;
  std::vector<std::string> a{o.command.front(), "-x", "LD_PRELOAD=" + o.tap, "-x", "COLLVIZ_TAP_OUT=" + o.out, "-x",
                             "COLLVIZ_TAP_BYTES=" + std::to_string(o.bytes)};
  a.insert(a.end(), o.command.begin() + 1, o.command.end());
  return a;
}

std::vector<std::pair<std::string, std::string>> launchEnv(const WatchOptions& o, const char* ldPreload) {
  if (o.mpirun) return {};
  // Appended, never replacing: a program that needs its own preload keeps it.
  std::string pre = ldPreload ? ldPreload : "";
  if (pre.find(o.tap) == std::string::npos) pre += (pre.empty() ? "" : ":") + o.tap;
  return {{"LD_PRELOAD", pre}, {"COLLVIZ_TAP_OUT", o.out}, {"COLLVIZ_TAP_BYTES", std::to_string(o.bytes)}};
}

namespace {

Error tapMissing(const std::string& kind, const std::vector<std::string>& looked) {
  std::string where;
  for (const std::string& l : looked) where += (where.empty() ? "" : ", ") + l;
  if (kind == "nccl")
    return Error(say("the NCCL tap {0} was not found (looked at {1}); build the target collviz-tap-nccl (built where CMake "
                     "finds NCCL's headers: -DCOLLVIZ_NCCL=ON) or reinstall collviz",
                     kTapNcclFile, where));
  return Error(say("the tap {0} was not found (looked at {1}); build the target collviz-tap-mpi or reinstall collviz",
                   kTapMpiFile, where));
}

// --tap's value: mpi or nccl (tap-path), or auto too (watch).
Result<bool> checkTap(const std::string& v, bool withAuto) {
  if (v == "mpi" || v == "nccl" || (withAuto && v == "auto")) return true;
  return Error(withAuto ? say("--tap {0} is not a tap; allowed: mpi, nccl, auto", shown(v))
                        : say("--tap {0} is not a tap; allowed: mpi, nccl", shown(v)));
}

}  // namespace

void addTapPathCommand(CLI::App& app, std::function<int()>& action) {
  auto kind = std::make_shared<std::string>("mpi");
  CLI::App* cmd = app.add_subcommand("tap-path", "Print the path of the MPI tap (or with --tap nccl the NCCL tap), to preload "
                                                  "into a job started by hand: "
                                                  "mpirun -x LD_PRELOAD=$(collviz tap-path) -x COLLVIZ_TAP_OUT=DIR ./app");
  cmd->add_option("--tap", *kind, "Which tap: mpi (default) or nccl");
  cmd->callback([&action, kind] {
    action = [kind]() -> int {
      if (auto ok = checkTap(*kind, false); !ok) return fail("tap-path", ok.error(), kExitUsage);
      std::vector<std::string> looked;
      const std::string tap = *kind == "nccl" ? tapNcclPath(&looked) : tapMpiPath(&looked);
      if (tap.empty()) return fail("tap-path", tapMissing(*kind, looked), kExitFailed);
      std::printf("%s\n", tap.c_str());
      return kExitOk;
    };
  });
}

void addWatchCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window) {
  auto o = std::make_shared<WatchOptions>();
  auto inWindow = std::make_shared<bool>(false);
  auto hangAfter = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("watch", "Run an Open MPI or NCCL program with collviz's tap in its ranks: every collective "
                                              "captured live, a hang's verdict said at once (collviz watch [options] -- mpirun -n 4 ./app, "
                                              "-- torchrun ..., -- python ...)");
  cmd->add_option("--out", o->out, "The capture folder (default: a new folder named by the date and time, here)");
  addWholeOption(cmd, "--bytes", o->bytes, "Bytes kept of each buffer at entry and exit, 0 to 1048576 (default 256)");
  cmd->add_flag("--json", o->json, "One JSON line per call and per verdict on stdout (the program's own output goes to stderr)");
  cmd->add_option("--hang-after", *hangAfter, "Seconds without any call returning, while a rank waits in a collective "
                                              "(NCCL: its kernel has not finished), that make a hang (default 10)");
  cmd->add_flag("--kill-on-hang", o->killOnHang, "End the job once a hang's verdict is printed (else it is left running)");
  cmd->add_option("--tap", o->tapOption, "Which tap: mpi, nccl, or auto (default: mpi under Open MPI's mpirun, mpiexec or "
                                          "orterun, nccl under any other command: torchrun, python, the program itself)");
  cmd->add_option("command", o->command, "The launcher and its arguments, after --: mpirun -n 4 ./app");
  cmd->add_flag("--window", *inWindow, "Watch in the window: the calls as lanes, live, a call's bytes, the hang's verdict (docs/watch.md)");
  cmd->callback([&action, o, hangAfter, inWindow, window] {
    action = [o, hangAfter, inWindow, window]() -> int {
      if (o->command.empty())
        return fail("watch", say("the command to run is missing after --: collviz watch [options] -- mpirun -n 4 ./app"),
                    kExitUsage);
      if (auto ok = checkTap(o->tapOption, true); !ok) return fail("watch", ok.error(), kExitUsage);
      if (o->bytes < 0 || o->bytes > 1048576)
        return fail("watch", say("--bytes {0} is out of range; allowed: 0 to 1048576", o->bytes), kExitUsage);
      if (!hangAfter->empty()) {
        auto s = parseDecimal("--hang-after", *hangAfter);
        if (!s) return fail("watch", s.error(), kExitUsage);
        if (!(*s >= 0.1 && *s <= 86400))
          return fail("watch", say("--hang-after {0} is out of range; allowed: 0.1 to 86400 seconds", shown(*hangAfter)), kExitUsage);
        o->hangAfterS = *s;
      }
      if (auto ok = checkLauncher(*o); !ok) return fail("watch", ok.error(), kExitUsage);
      std::vector<std::string> looked;
      o->tap = o->tapKind == "nccl" ? tapNcclPath(&looked) : tapMpiPath(&looked);
      if (o->tap.empty()) return fail("watch", tapMissing(o->tapKind, looked), kExitFailed);
      if (*inWindow && window) {  // the window runs it (runWatch on a thread) and draws its capture
        window->open = true;
        window->watch = o;
        return kExitOk;
      }
      return runWatch(*o);
    };
  });
}

}  // namespace collviz
