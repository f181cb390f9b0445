// Helpers shared by the CLI tests (cli_test, bench_cli_test): run the collviz
// binary as a user would and check that no collviz-rank outlives it. The CLI
// runs in its own process group (like a shell job) and the test is a child
// subreaper (PR_SET_CHILD_SUBREAPER), so a worker that outlived the CLI is
// re-parented to the test, where expectNoOrphans() sees it.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#ifndef COLLVIZ_CLI
#error "COLLVIZ_CLI (the collviz binary) must be defined by the build"
#endif

namespace collviz::test {

using namespace std::chrono_literals;

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The collviz binary with `args`, in its own process group, stdout and stderr
// to files in a fresh temp dir named `<prefix><our pid>_<n>`. The destructor
// kills the group if it was never waited for, and removes the dir.
struct Cli {
  pid_t pid = -1;
  std::filesystem::path dir;
  int code = -1;
  std::string out, err;
  std::chrono::milliseconds default_wait;
  // When wait() saw the exit: before out and err are read back, which takes
  // most of a second for a run that printed hundreds of MB.
  std::chrono::steady_clock::time_point exited_at{};

  // `env`: NAME=value pairs set in the child only (e.g. COLLVIZ_FAULT);
  // "ULIMIT_V_KIB=N" sets its address space instead (ulimit -v N).
  Cli(const std::string& prefix, std::vector<std::string> args,
      std::chrono::milliseconds default_wait_limit = 60s, std::vector<std::string> env = {})
      : default_wait(default_wait_limit) {
    static int counter = 0;
    dir = std::filesystem::temp_directory_path() /
          (prefix + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    args.insert(args.begin(), COLLVIZ_CLI);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string o = (dir / "out").string(), e = (dir / "err").string();
    pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);  // its own group, like a shell job
      const int fo = ::open(o.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int fe = ::open(e.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fo, 1);
      ::dup2(fe, 2);
      for (auto& kv : env) {
        if (kv.rfind("ULIMIT_V_KIB=", 0) == 0) {  // not an environment variable: ulimit -v
          const rlim_t v = rlim_t(std::stoull(kv.substr(13))) << 10;
          rlimit as{v, v};
          ::setrlimit(RLIMIT_AS, &as);
        } else {
          ::putenv(kv.data());
        }
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // no race with the child's own call
  }
  Cli(const Cli&) = delete;
  Cli& operator=(const Cli&) = delete;
  ~Cli() {
    if (code == -1 && pid > 0) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  // What the CLI has written to stdout so far (it is still running).
  std::string stdoutSoFar() const { return slurp(dir / "out"); }

  // Wait for the exit (code, out and err are then set); -2 on timeout.
  int wait() { return wait(default_wait); }
  int wait(std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int st = 0;
    while (::waitpid(pid, &st, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > end) return -2;
      std::this_thread::sleep_for(5ms);
    }
    exited_at = std::chrono::steady_clock::now();
    code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    out = slurp(dir / "out");
    err = slurp(dir / "err");
    return code;
  }
};

// /proc/<pid>/<file>.
inline std::string procField(pid_t pid, const char* file) {
  return slurp("/proc/" + std::to_string(pid) + "/" + file);
}

// Rank workers (collviz-rank --rank ...; not `collviz-rank --probe`, the
// device probe) in process group `pgid`, or with parent `parent` if > 0.
inline std::vector<pid_t> workersInGroup(pid_t pgid, pid_t parent = -1) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string n = d.path().filename();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t p = std::stoi(n);
    const std::string stat = procField(p, "stat");
    const auto rp = stat.rfind(')');
    if (rp == std::string::npos) continue;
    std::istringstream rest(stat.substr(rp + 2));
    char state;
    int ppid, pgrp;
    rest >> state >> ppid >> pgrp;
    if (procField(p, "comm") != "collviz-rank\n") continue;
    if (procField(p, "cmdline").find("--rank") == std::string::npos) continue;
    if (pgrp == pgid || (parent > 0 && ppid == parent)) out.push_back(p);
  }
  return out;
}

// After the CLI has exited: no worker in its group, and none re-parented to
// us (we are a subreaper), alive or zombie.
inline void expectNoOrphans(const Cli& c) {
  EXPECT_TRUE(workersInGroup(c.pid, ::getpid()).empty()) << "collviz-rank survived the CLI";
  int st = 0;
  const pid_t extra = ::waitpid(-1, &st, WNOHANG);
  EXPECT_TRUE(extra == -1 && errno == ECHILD) << "an orphan of the CLI: pid " << extra;
}

// Base of the CLI test suites: makes the test process a child subreaper, so
// a worker that outlived the CLI is re-parented here and seen.
class SubreaperTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
};

}  // namespace collviz::test
