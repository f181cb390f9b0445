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
#include <set>
#include <thread>

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

void forgetChild(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu());
  children().erase(pid);
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
  for (pid_t p : kids) ::kill(p, SIGKILL);
  // Reap; the owner may reap first (ECHILD), which is as good.
  for (pid_t p : kids)
    while (::waitpid(p, nullptr, 0) < 0 && errno == EINTR) {}
  // After the children: an MPI job's files go once mpirun is reaped (its
  // ranks die with it and make no new file).
  for (const std::string& t : trees_now) removeTree(t);
}

}  // namespace collviz
