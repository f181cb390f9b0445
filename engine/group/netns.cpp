#include "engine/group/netns.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

namespace collviz {

namespace {

bool writeFile(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::write(fd, text, std::strlen(text));
  ::close(fd);
  return n == ssize_t(std::strlen(text));
}

// In the child: the namespaces, the uid/gid maps, lo up. Returns 0 or an
// error step (1..) with errno set. Async-signal-safe.
int setUp(bool user, const char* uid_map, const char* gid_map) {
  if (::unshare(CLONE_NEWNET | (user ? CLONE_NEWUSER : 0)) != 0) return 1;
  if (user && (!writeFile("/proc/self/setgroups", "deny") ||
               !writeFile("/proc/self/uid_map", uid_map) ||
               !writeFile("/proc/self/gid_map", gid_map)))
    return 2;
  const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return 3;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(s, SIOCGIFFLAGS, &ifr) != 0) return 3;
  ifr.ifr_flags = short(ifr.ifr_flags | IFF_UP);
  if (::ioctl(s, SIOCSIFFLAGS, &ifr) != 0) return 3;
  ::close(s);
  return 0;
}

}  // namespace

PrivateNetwork::~PrivateNetwork() {
  if (user_fd_ >= 0) ::close(user_fd_);
  if (net_fd_ >= 0) ::close(net_fd_);
}

PrivateNetwork::PrivateNetwork(PrivateNetwork&& o) noexcept
    : user_fd_(std::exchange(o.user_fd_, -1)), net_fd_(std::exchange(o.net_fd_, -1)) {}

PrivateNetwork& PrivateNetwork::operator=(PrivateNetwork&& o) noexcept {
  if (this != &o) {
    this->~PrivateNetwork();
    user_fd_ = std::exchange(o.user_fd_, -1);
    net_fd_ = std::exchange(o.net_fd_, -1);
  }
  return *this;
}

Result<PrivateNetwork> PrivateNetwork::create() {
  if (const char* off = std::getenv("COLLVIZ_NO_NETNS"); off && *off)
    return Error{say("turned off by COLLVIZ_NO_NETNS")};
  const bool user = ::geteuid() != 0;
  const std::string uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1";
  const std::string gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1";
  int status_pipe[2], hold_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) return Error{say("{0}: {1}", "pipe", std::strerror(errno))};
  if (::pipe2(hold_pipe, O_CLOEXEC) != 0) {
    ::close(status_pipe[0]);
    ::close(status_pipe[1]);
    return Error{say("{0}: {1}", "pipe", std::strerror(errno))};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::close(status_pipe[0]);
    ::close(hold_pipe[1]);  // else our own copy keeps the hold open forever
    int report[2] = {setUp(user, uid_map.c_str(), gid_map.c_str()), errno};
    [[maybe_unused]] ssize_t n = ::write(status_pipe[1], report, sizeof report);
    char c;
    n = ::read(hold_pipe[0], &c, 1);  // until the engine has opened our namespaces
    ::_exit(0);
  }
  ::close(status_pipe[1]);
  ::close(hold_pipe[0]);
  int report[2] = {-1, 0};
  const bool got = pid > 0 && ::read(status_pipe[0], report, sizeof report) == ssize_t(sizeof report);
  ::close(status_pipe[0]);
  PrivateNetwork net;
  Text why;
  if (!got) {
    why = pid < 0 ? say("{0}: {1}", "fork", std::strerror(errno)) : say("the namespace helper died");
  } else if (report[0] != 0) {
    const Text step[] = {lit(""), lit("unshare"), say("writing the uid/gid map"), say("bringing lo up")};
    why = say("{0}: {1}", step[report[0] < 4 ? report[0] : 0], std::strerror(report[1]));
  } else {
    const std::string base = "/proc/" + std::to_string(pid) + "/ns/";
    if (user) net.user_fd_ = ::open((base + "user").c_str(), O_RDONLY | O_CLOEXEC);
    net.net_fd_ = ::open((base + "net").c_str(), O_RDONLY | O_CLOEXEC);
    if (net.net_fd_ < 0 || (user && net.user_fd_ < 0))
      why = say("opening the namespace: {0}", std::strerror(errno));
  }
  ::close(hold_pipe[1]);  // the helper exits; the namespaces live on in our descriptors
  if (pid > 0)
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
  if (!why.empty()) return Error{why};
  return net;
}

bool PrivateNetwork::enter() const {
  if (user_fd_ >= 0 && ::setns(user_fd_, CLONE_NEWUSER) != 0) return false;
  return net_fd_ < 0 || ::setns(net_fd_, CLONE_NEWNET) == 0;
}

Text PrivateNetwork::kind() const {
  return user_fd_ >= 0 ? say("a user and network namespace") : say("a network namespace");
}

const Isolation& isolation() {
  static Isolation iso;
  static std::once_flag once;
  std::call_once(once, [] {
    auto net = PrivateNetwork::create();
    iso.available = bool(net);
    if (net)
      iso.how = say("Gloo ranks share a private loopback in {0} of their own: no other local process can reach their ports",
                    net->kind());
    else
      iso.why_not = net.error().text;
  });
  return iso;
}

}  // namespace collviz
