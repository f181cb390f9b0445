#include "engine/group/exit_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "engine/group/proc_file.h"

namespace collviz {

namespace {
std::mutex& mu() {
  static std::mutex m;
  return m;
}
std::set<pid_t>& children() {
  static std::set<pid_t> s;
  return s;
}
std::map<pid_t, std::string>& marks() {
  static std::map<pid_t, std::string> m;
  return m;
}
std::set<std::string>& temps() {
  static std::set<std::string> s;
  return s;
}
std::set<std::string>& dirs() {
  static std::set<std::string> s;
  return s;
}
std::set<std::string>& trees() {
  static std::set<std::string> s;
  return s;
}

constexpr int kMaxDepth = 32;  // Open MPI's tree is 4 deep

// `name` in `dirfd` and all under it, no link followed.
bool removeAt(int dirfd, const char* name, int depth) {
  struct stat st {};
  if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
  if (!S_ISDIR(st.st_mode)) return ::unlinkat(dirfd, name, 0) == 0 || errno == ENOENT;
  if (depth < kMaxDepth) {
    const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      if (DIR* d = ::fdopendir(fd)) {
        while (dirent* e = ::readdir(d)) {
          if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
          removeAt(::dirfd(d), e->d_name, depth + 1);
        }
        ::closedir(d);
      } else {
        ::close(fd);
      }
    }
  }
  return ::unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}
}  // namespace

bool removeTree(const std::string& path) {
  if (path.empty()) return true;
  const auto slash = path.rfind('/');
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const int pfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0) return errno == ENOENT;
  // A process dying beside us may still add a file: try again a few times.
  bool gone = false;
  for (int i = 0; i < 20 && !(gone = removeAt(pfd, name.c_str(), 0)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::close(pfd);
  return gone;
}

void registerTempTree(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu());
  trees().insert(path);
}

void forgetTempTree(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu());
  trees().erase(path);
}

void registerTempDir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu());
  dirs().insert(path);
}

void forgetTempDir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu());
  dirs().erase(path);
}

void registerChild(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu());
  children().insert(pid);
}

void registerMarkedChild(pid_t pid, const std::string& mark) {
  std::lock_guard<std::mutex> lock(mu());
  children().insert(pid);
  marks()[pid] = mark;
}

void forgetChild(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu());
  children().erase(pid);
  marks().erase(pid);
}

std::string newJobMark() {
  std::random_device rd;
  char hex[33];
  for (int i = 0; i < 4; ++i) std::snprintf(hex + 8 * i, 9, "%08x", unsigned(rd()));
  return std::string("COLLVIZ_JOB_MARK=") + hex;
}

int killMarked(const std::string& mark) {
  if (mark.empty()) return 0;
  const std::string entry = std::string(1, '\0') + mark + std::string(1, '\0');
  // Only processes of our session (mpirun's, and what it starts: Open MPI
  // moves an agent to a group of its own, not a session), read from stat
  // first: reading a process's environment waits for its memory map, which
  // a stranger's big allocation can hold for seconds.
  const pid_t session = ::getsid(0);
  auto inSession = [&](pid_t pid) {
    const std::string stat = readProcFile(pid, "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return false;
    long ppid = 0, pgrp = 0, sid = 0;  // after the state
    return std::sscanf(stat.c_str() + close + 1, " %*c %ld %ld %ld", &ppid, &pgrp, &sid) == 3 && pid_t(sid) == session;
  };
  int killed = 0;
  // Twice: a process that forked between the look and the kill leaves a
  // child with the mark (the second look finds it).
  for (int pass = 0; pass < 2; ++pass) {
    DIR* d = ::opendir("/proc");
    if (!d) return killed;
    while (dirent* e = ::readdir(d)) {
      const pid_t pid = pid_t(std::atol(e->d_name));
      if (pid <= 0 || pid == ::getpid() || !inSession(pid)) continue;
      const std::string env = std::string(1, '\0') + readProcFile(pid, "environ");
      if (env.find(entry) == std::string::npos) continue;
      if (::kill(pid, SIGKILL) == 0) ++killed;
    }
    ::closedir(d);
  }
  return killed;
}

pid_t reapJob(pid_t pid, int* status, bool block) {
  siginfo_t info{};
  int rc;
  while ((rc = ::waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG))) < 0 && errno == EINTR) {}
  if (rc < 0) return -1;
  if (info.si_pid == 0) return 0;  // still running
  std::string mark;
  {
    std::lock_guard<std::mutex> lock(mu());
    if (auto it = marks().find(pid); it != marks().end()) mark = it->second;
  }
  killMarked(mark);  // what it started and left behind: an agent, the agent's children
  pid_t got;
  while ((got = ::waitpid(pid, status, 0)) < 0 && errno == EINTR) {}
  return got;
}

void registerTempFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu());
  temps().insert(path);
}

void forgetTempFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu());
  temps().erase(path);
}

void cleanupNow() {
  std::set<pid_t> kids;
  std::set<std::string> trees_now;
  {
    std::lock_guard<std::mutex> lock(mu());
    kids = children();
    for (const std::string& t : temps()) ::unlink(t.c_str());
    temps().clear();
    // Deepest first: "a/b" sorts after "a".
    for (auto it = dirs().rbegin(); it != dirs().rend(); ++it) ::rmdir(it->c_str());
    dirs().clear();
    trees_now = trees();
  }
  std::map<pid_t, std::string> marked;
  {
    std::lock_guard<std::mutex> lock(mu());
    marked = marks();
  }
  for (pid_t p : kids) ::kill(p, SIGKILL);
  // Then what they started (it may have been left to PID 1 already).
  for (const auto& [p, mark] : marked) killMarked(mark);
  // Reap; the owner may reap first (ECHILD), which is as good.
  for (pid_t p : kids)
    while (::waitpid(p, nullptr, 0) < 0 && errno == EINTR) {}
  // After the children: an MPI job's files go once mpirun is reaped (its
  // ranks die with it and make no new file).
  for (const std::string& t : trees_now) removeTree(t);
}

}  // namespace collviz
