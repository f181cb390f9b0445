// The processes an MPI group is made of, for the tests that check nothing is
// left: mpirun (orterun, orted) and ranks started with --backend mpi, by
// this test only (its mark in their environment).
#pragma once

#include <dirent.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "engine/group/proc_file.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {

// The mark of this test's own MPI processes (issue 55): set in this
// process's environment at start-up, before any group starts, so mpirun and
// the ranks it starts carry it (environWith passes our environment on).
// Another job's mpirun, orted or ranks on the same machine (a job beside the
// suite) do not carry it and are never counted as ours.
inline const std::string& testMark() {
  static const std::string mark = [] {
    const std::string value = "mpi-test-" + std::to_string(::getpid());
    ::setenv("COLLVIZ_TEST_MARK", value.c_str(), 1);
    return "COLLVIZ_TEST_MARK=" + value;
  }();
  return mark;
}
inline const bool kTestMarked = !testMark().empty();  // before main: before any thread or group

inline bool markedByThisTest(pid_t pid) {
  const std::string env = std::string(1, '\0') + readProcFile(pid, "environ");
  return env.find(std::string(1, '\0') + testMark() + std::string(1, '\0')) != std::string::npos;
}

// This test's MPI processes still running: mpirun, orted and ranks that
// carry its mark.
inline std::vector<pid_t> mpiProcesses() {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == ::getpid()) continue;
    // Read without throwing: a rank can exit between the open and the read.
    const std::string cmd = readProcFile(pid, "cmdline");
    if (cmd.empty() || procState(pid) == 'Z') continue;
    const std::string argv0 = cmd.substr(0, cmd.find('\0'));
    const std::string base = argv0.substr(argv0.rfind('/') + 1);
    if (base == "mpirun" || base == "orterun" || base == "orted" ||
        cmd.find(std::string("--backend\0mpi\0--connect", 23)) != std::string::npos)
      if (markedByThisTest(pid)) out.push_back(pid);
  }
  ::closedir(d);
  return out;
}

// Waits (up to 5 s) until no MPI process is left; returns those left.
inline std::vector<pid_t> mpiLeftOver() {
  for (int i = 0; i < 250; ++i) {
    auto left = mpiProcesses();
    if (left.empty()) return left;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return mpiProcesses();
}

}  // namespace collviz::test
