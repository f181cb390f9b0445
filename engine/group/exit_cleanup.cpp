#include "engine/group/exit_cleanup.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <set>

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
}  // namespace

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
  {
    std::lock_guard<std::mutex> lock(mu());
    kids = children();
    for (const std::string& t : temps()) ::unlink(t.c_str());
    temps().clear();
    // Deepest first: "a/b" sorts after "a".
    for (auto it = dirs().rbegin(); it != dirs().rend(); ++it) ::rmdir(it->c_str());
    dirs().clear();
  }
  for (pid_t p : kids) ::kill(p, SIGKILL);
  // Reap; the owner may reap first (ECHILD), which is as good.
  for (pid_t p : kids)
    while (::waitpid(p, nullptr, 0) < 0 && errno == EINTR) {}
}

}  // namespace collviz
