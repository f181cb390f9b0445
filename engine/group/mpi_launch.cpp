#include "engine/group/mpi_launch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>

#include <nlohmann/json.hpp>

#include "engine/group/proc_file.h"

extern char** environ;

namespace collviz {
namespace {

Result<sockaddr_un> abstractAddress(const std::string& name, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof a.sun_path) return Error{say("socket name too long: {0}", name)};
  a.sun_path[0] = '\0';
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  *len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

std::string randomName() {
  std::random_device rd;
  char hex[33];
  for (int i = 0; i < 4; ++i) std::snprintf(hex + 8 * i, 9, "%08x", unsigned(rd()));
  return "collviz-mpi-" + std::to_string(::getpid()) + "-" + hex;
}

bool executable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

Result<std::string> findMpirun() {
  if (const char* set = std::getenv("COLLVIZ_MPIRUN"); set && *set) {
    if (executable(set)) return std::string(set);
    return Error{say("COLLVIZ_MPIRUN={0} is not an executable file", set)};
  }
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= rest.size();) {
    const std::size_t colon = std::min(rest.find(':', at), rest.size());
    const std::string dir = rest.substr(at, colon - at);
    const std::string cand = (dir.empty() ? "." : dir) + "/mpirun";
    if (executable(cand)) return cand;
    at = colon + 1;
  }
  return Error{say("mpirun not found on PATH (install Open MPI: {0})", "apt-get install openmpi-bin libopenmpi-dev")};
}

Result<std::string> mpiBinding(const char* value) {
  const std::string v = value ? value : "";
  if (v.empty()) return std::string(kDefaultMpiBinding);
  if (v == "none") return std::string("none");
  for (const char* ok : {"core", "hwthread", "l3cache", "numa", "socket"})
    if (v == ok) return v + ":overload-allowed";
  return Error{say("COLLVIZ_MPI_BIND='{0}' is not a binding; allowed: none, core, hwthread, l3cache, numa, socket (mpirun's --bind-to)",
                   v)};
}

std::vector<std::string> mpirunArgs(const std::string& mpirun, int ranks,
                                    const std::vector<std::string>& worker_argv, const std::string& bind_to) {
  std::vector<std::string> a = {mpirun,       "--oversubscribe", "--bind-to", bind_to,
                                "--mca",      "btl",             "self,vader", "--stdin",
                                "none",       "-np",             std::to_string(ranks)};
  a.insert(a.end(), worker_argv.begin(), worker_argv.end());
  return a;
}

std::vector<std::string> mpirunArgs(const std::string& mpirun, int ranks, const HostSpec& hosts,
                                    const std::vector<std::string>& pass_env,
                                    const std::vector<std::string>& worker_argv) {
  std::vector<std::string> a = {mpirun, "--bind-to", "none", "--mca", "btl", "self,vader,tcp", "--stdin", "none",
                                "-np", std::to_string(ranks), "-H", hosts.hostList(), "--map-by",
                                hosts.map_by == MapBy::node ? "node" : "slot"};
  if (!hosts.iface.empty())
    for (const char* k : {"btl_tcp_if_include", "oob_tcp_if_include"}) a.insert(a.end(), {"--mca", k, hosts.iface});
  if (!hosts.agent.empty()) a.insert(a.end(), {"--mca", "plm_rsh_agent", hosts.agent});
  // A host lost mid-run (its link down) ends its daemon within seconds, and
  // the daemon its ranks: nothing is left waiting there.
  a.insert(a.end(), {"--mca", "oob_tcp_keepalive_time", "2", "--mca", "oob_tcp_keepalive_intvl", "1", "--mca",
                     "oob_tcp_keepalive_probes", "3"});
  for (const auto& v : pass_env) a.insert(a.end(), {"-x", v});
  a.insert(a.end(), worker_argv.begin(), worker_argv.end());
  return a;
}

std::vector<std::string> mpirunEnv(bool root) {
  if (!root) return {};
  return {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
}

MpiListener& MpiListener::operator=(MpiListener&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    owner_ = o.owner_;
    name_ = std::move(o.name_);
    o.fd_ = -1;
  }
  return *this;
}

MpiListener::~MpiListener() {
  if (fd_ >= 0) ::close(fd_);
}

Result<MpiListener> MpiListener::open(uid_t owner) {
  MpiListener l;
  l.owner_ = owner;
  l.fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (l.fd_ < 0) return Error{say("{0}: {1}", "socket", std::strerror(errno))};
  l.name_ = randomName();
  socklen_t len = 0;
  auto addr = abstractAddress(l.name_, &len);
  if (!addr) return addr.error();
  if (::bind(l.fd_, reinterpret_cast<const sockaddr*>(&*addr), len) != 0)
    return Error{say("bind of the MPI ranks' socket: {0}", std::strerror(errno))};
  if (::listen(l.fd_, 64) != 0) return Error{say("{0}: {1}", "listen", std::strerror(errno))};
  return l;
}

Result<MpiPeer> MpiListener::accept() {
  const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return Error{say("{0}: {1}", "accept", std::strerror(errno))};
  MpiPeer peer{Channel(fd)};
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != owner_)
    return Error{say("refused a connection from uid {0} (pid {1})", cred.uid, cred.pid)};
  peer.pid = cred.pid;
  peer.uid = cred.uid;
  return peer;
}

std::vector<std::string> environWith(const std::vector<std::string>& added) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    bool overridden = false;
    for (const auto& a : added)
      if (std::strncmp(*e, a.c_str(), a.find('=') + 1) == 0) overridden = true;
    if (!overridden) env.emplace_back(*e);
  }
  env.insert(env.end(), added.begin(), added.end());
  return env;
}

Text exitText(int status) {
  if (WIFSIGNALED(status))
    return say("was killed by signal {0} ({1})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return say("exited with code {0}", WEXITSTATUS(status));
}

std::pair<pid_t, char> parentAndState(pid_t pid) {
  const std::string text = readProcFile(pid, "stat");
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 4 >= text.size()) return {-1, 0};
  const char state = text[close + 2];
  return {pid_t(std::atol(text.c_str() + close + 4)), state};
}

Result<int> checkHello(const std::string& body, pid_t peer_pid, pid_t job, int ranks) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("type", "") != "hello")
    return Error{say("refused a connection from pid {0}: its first message is not a hello", peer_pid)};
  const int r = j.contains("rank") && j["rank"].is_number_integer() ? j["rank"].get<int>() : -1;
  const long said = j.contains("pid") && j["pid"].is_number_integer() ? j["pid"].get<long>() : -1;
  if (said != long(peer_pid))
    return Error{say("refused a hello from pid {0}: it says pid {1} (a hello names its own process)", peer_pid,
                     said)};
  if (parentAndState(peer_pid).first != job)
    return Error{say("refused a hello from pid {0}: not a process of this job (mpirun is pid {1})", peer_pid, job)};
  if (r < 0 || r >= ranks)
    return Error{say("refused a hello from pid {0}: rank {1} is not one of the job's (0 to {2})", peer_pid, r,
                     ranks - 1)};
  return r;
}

void MpiLog::start(int read_fd) {
  fd_ = read_fd;
  if (::pipe2(stop_, O_CLOEXEC) != 0) stop_[0] = stop_[1] = -1;
  thread_ = std::thread([this] {
    char buf[4096];
    bool stopping = false;
    int left = 256;  // reads once stopping: 1 MiB, for a writer that never stops
    for (;;) {
      if (stopping && --left < 0) break;
      pollfd p[2] = {{fd_, POLLIN, 0}, {stopping ? -1 : stop_[0], POLLIN, 0}};
      // Once stopping: only what is already in the pipe (poll without waiting).
      const int pr = ::poll(p, 2, stopping ? 0 : -1);
      if (pr < 0 && errno == EINTR) continue;
      if (pr < 0) break;
      if (p[1].revents) {
        stopping = true;
        continue;
      }
      if (pr == 0) break;  // stopping and nothing left to read
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      ssize_t off = 0;
      while (off < n) {
        const ssize_t w = ::write(STDERR_FILENO, buf + off, std::size_t(n - off));
        if (w <= 0 && errno != EINTR) break;
        if (w > 0) off += w;
      }
      std::lock_guard<std::mutex> lock(mu_);
      tail_.append(buf, std::size_t(n));
      if (tail_.size() > 16384) tail_.erase(0, tail_.size() - 16384);
    }
  });
}

void MpiLog::stop() {
  if (thread_.joinable()) {
    if (stop_[1] >= 0 && ::write(stop_[1], "x", 1) < 0) {}  // else: it reads until the pipe's end
    thread_.join();
  }
  for (int* fd : {&fd_, &stop_[0], &stop_[1]}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

std::string MpiLog::tail() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tail_;
}

std::optional<MpiDeath> parseMpiDeath(const std::string& log) {
  // Open MPI 4: "mpirun noticed that process rank 1 with PID 123 on node
  // h exited on signal 9 (Killed)." (the line may be wrapped).
  static const std::regex re(
      R"(noticed\s+that\s+process\s+rank\s+(\d+)\s+with\s+PID\s+(\d+)\s+on\s+node\s+\S+\s+(exited\s+on\s+signal\s+\d+(?:\s+\([^)]*\))?|exited\s+with\s+(?:status|code)\s+\d+))");
  std::smatch m;
  std::string flat = log;
  for (char& c : flat)
    if (c == '\n') c = ' ';
  if (!std::regex_search(flat, m, re)) return std::nullopt;
  return MpiDeath{std::stoi(m[1]), pid_t(std::stol(m[2])), m[3]};
}

Result<Channel> connectBack(const std::string& name) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{say("{0}: {1}", "socket", std::strerror(errno))};
  Channel ch(fd);
  socklen_t len = 0;
  auto addr = abstractAddress(name, &len);
  if (!addr) return addr.error();
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&*addr), len) != 0)
    return Error{say("connecting to collviz's socket @{0}: {1}", name, std::strerror(errno))};
  return ch;
}

}  // namespace collviz
