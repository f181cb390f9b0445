// The processes an MPI group is made of, for the tests that check nothing is
// left: mpirun (orterun, orted) and ranks started with --backend mpi.
#pragma once

#include <dirent.h>

#include <string>
#include <thread>
#include <vector>

#include "engine/group/proc_file.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {

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
      out.push_back(pid);
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
