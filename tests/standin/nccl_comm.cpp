#include "tests/standin/nccl_comm.h"

#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "tests/standin/internal.h"

namespace collviz::standin {

const char* opName(OpKind k) {
  switch (k) {
    case OpKind::all_reduce: return "ncclAllReduce";
    case OpKind::broadcast: return "ncclBroadcast";
    case OpKind::reduce: return "ncclReduce";
    case OpKind::all_gather: return "ncclAllGather";
    case OpKind::reduce_scatter: return "ncclReduceScatter";
    case OpKind::all_to_all: return "ncclAlltoAll";
    case OpKind::gather: return "ncclGather";
    case OpKind::scatter: return "ncclScatter";
    case OpKind::send: return "ncclSend";
    case OpKind::recv: return "ncclRecv";
  }
  return "?";
}

namespace {

std::mutex g_last_mu;
char g_last[1024] = "";

bool writeAll(int fd, const void* a, std::size_t an, const void* b, std::size_t bn) {
  iovec v[2] = {{const_cast<void*>(a), an}, {const_cast<void*>(b), bn}};
  int cnt = bn ? 2 : 1;
  iovec* p = v;
  while (cnt > 0) {
    msghdr m{};
    m.msg_iov = p;
    m.msg_iovlen = std::size_t(cnt);
    const ssize_t w = ::sendmsg(fd, &m, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    std::size_t left = std::size_t(w);
    while (cnt > 0 && left >= p->iov_len) left -= p->iov_len, ++p, --cnt;
    if (cnt > 0) {
      p->iov_base = static_cast<char*>(p->iov_base) + left;
      p->iov_len -= left;
    }
  }
  return true;
}

// Reads n bytes; before `deadline` when one is given (else blocking).
bool readAll(int fd, void* buf, std::size_t n, const std::chrono::steady_clock::time_point* deadline = nullptr) {
  char* c = static_cast<char*>(buf);
  while (n > 0) {
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, int(std::min<long long>(left.count(), 1000))) <= 0) continue;
    }
    const ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= std::size_t(r);
  }
  return true;
}

}  // namespace

void setLastError(const std::string& text) {
  {
    std::lock_guard<std::mutex> lock(g_last_mu);
    std::snprintf(g_last, sizeof g_last, "%s", text.c_str());
  }
  say(text);
}

const char* lastError() {
  std::lock_guard<std::mutex> lock(g_last_mu);
  return g_last;
}

Comm::~Comm() { abort(); }

void Comm::start() {
  for (int p = 0; p < nranks; ++p)
    if (peers[std::size_t(p)]->fd >= 0) peers[std::size_t(p)]->reader = std::thread([this, p] { read(p); });
}

void Comm::read(int p) {
  Peer& peer = *peers[std::size_t(p)];
  for (;;) {
    Message m;
    bool ok = readAll(peer.fd, &m.h, sizeof m.h) && m.h.magic == kMagic;
    if (ok && m.h.type == kData) {
      m.data.resize(m.h.bytes);
      ok = readAll(peer.fd, m.data.data(), m.data.size());
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!ok) {
      peer.closed = true;
      cv_.notify_all();
      return;
    }
    if (m.h.type == kAck) ++peer.acks;
    else peer.inbox.push_back(std::move(m));
    cv_.notify_all();
  }
}

bool Comm::send(int p, const Header& h, const void* data) {
  Peer& peer = *peers[std::size_t(p)];
  bool ok;
  {
    std::lock_guard<std::mutex> lock(peer.send_mu);
    ok = writeAll(peer.fd, &h, sizeof h, data, h.type == kData ? h.bytes : 0);
  }
  if (ok || aborted()) return ok;
  setAsync(ncclRemoteError, "stand-in NCCL: rank " + std::to_string(rank) + " cannot send to rank " +
                                std::to_string(p) + " (pid " + std::to_string(peer.pid) + "): " +
                                std::strerror(errno) + "; the peer process ended or aborted its communicator");
  return false;
}

bool Comm::receive(int p, Message* m) {
  Peer& peer = *peers[std::size_t(p)];
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return aborted_ || !peer.inbox.empty() || peer.closed; });
  if (aborted_) return false;
  if (!peer.inbox.empty()) {
    *m = std::move(peer.inbox.front());
    peer.inbox.pop_front();
    return true;
  }
  lock.unlock();
  setAsync(ncclRemoteError, "stand-in NCCL: rank " + std::to_string(rank) + " waits for data from rank " +
                                std::to_string(p) + " (pid " + std::to_string(peer.pid) +
                                "), whose connection closed: the peer process ended or aborted its communicator");
  return hangUntilAbort();
}

bool Comm::waitAcks(int p, std::uint64_t n) {
  Peer& peer = *peers[std::size_t(p)];
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return aborted_ || peer.acks >= n || peer.closed; });
  if (aborted_) return false;
  if (peer.acks >= n) return true;
  lock.unlock();
  setAsync(ncclRemoteError, "stand-in NCCL: rank " + std::to_string(rank) + " waits for rank " + std::to_string(p) +
                                " to receive what it sent, but its connection closed");
  return hangUntilAbort();
}

void Comm::setAsync(ncclResult_t r, const std::string& text) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_ || async_ != ncclSuccess) return;
    async_ = r;
  }
  setLastError(text);
}

ncclResult_t Comm::asyncError() {
  std::lock_guard<std::mutex> lock(mu_);
  return async_;
}

bool Comm::hangUntilAbort() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return aborted_; });
  return false;
}

bool Comm::aborted() {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

void Comm::abort() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_) return;
    aborted_ = true;
    cv_.notify_all();
  }
  for (auto& p : peers)
    if (p && p->fd >= 0) ::shutdown(p->fd, SHUT_RDWR);
  for (auto& p : peers)
    if (p && p->reader.joinable()) p->reader.join();
  for (auto& p : peers)
    if (p && p->fd >= 0) ::close(p->fd), p->fd = -1;
}

std::uint64_t Comm::issue(std::uint64_t collectives, std::uint64_t* first_index) {
  std::lock_guard<std::mutex> lock(mu_);
  *first_index = collectives_ + 1;
  collectives_ += collectives;
  return ++groups_;
}

bool Comm::waitTurn(std::uint64_t group) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return aborted_ || finished_ + 1 >= group; });
  return !aborted_;
}

void Comm::finish(std::uint64_t group) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = std::max(finished_, group);
  cv_.notify_all();
}

void Comm::drain() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return aborted_ || finished_ >= groups_; });
}

// ---- the bootstrap ------------------------------------------------------------

namespace {

constexpr char kIdMagic[16] = "collviz-standin";

struct IdBody {
  char magic[16];
  std::uint64_t key;
  std::int32_t pid;
};

struct Hello {
  std::uint32_t magic = kMagic;
  std::uint32_t type = 3;
  std::uint64_t key = 0;
  std::int32_t rank = 0, nranks = 0, version = 0, device = 0, pid = 0;
  char host[120] = {};
};

// The host's identity as NCCL makes it: NCCL_HOSTID when set, else the
// host name and the boot id.
std::string hostIdentity() {
  if (const char* h = std::getenv("NCCL_HOSTID")) return h;
  char name[256] = "";
  ::gethostname(name, sizeof name - 1);
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  return std::string(name) + boot;
}

sockaddr_un address(std::uint64_t key, int rank, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  char name[96];
  const int n = std::snprintf(name, sizeof name, "collviz-stand-in/%016llx/%d", (unsigned long long)key, rank);
  std::memcpy(a.sun_path + 1, name, std::size_t(n));  // sun_path[0] = 0: the abstract namespace
  *len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + std::size_t(n));
  return a;
}

ncclResult_t refuse(ncclResult_t r, const std::string& text) {
  setLastError(text);
  return r;
}

}  // namespace

void makeUniqueId(ncclUniqueId* id) {
  std::memset(id, 0, sizeof *id);
  IdBody b{};
  std::memcpy(b.magic, kIdMagic, sizeof kIdMagic);
  if (::getrandom(&b.key, sizeof b.key, 0) != sizeof b.key)
    b.key = std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ std::uint64_t(::getpid());
  b.pid = ::getpid();
  std::memcpy(id->internal, &b, sizeof b);
}

ncclResult_t bootstrap(const ncclUniqueId& id, int nranks, int rank, int device, int physical, int version,
                       std::shared_ptr<Comm>* out) {
  IdBody b;
  std::memcpy(&b, id.internal, sizeof b);
  if (std::memcmp(b.magic, kIdMagic, sizeof kIdMagic) != 0)
    return refuse(ncclInvalidArgument, "stand-in NCCL: ncclCommInitRank: the ncclUniqueId was not made by the "
                                       "stand-in's ncclGetUniqueId (uninitialised, or another library's)");
  const char* env = std::getenv("COLLVIZ_STANDIN_INIT_TIMEOUT_MS");
  const long ms = env ? std::atol(env) : 120000;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms > 0 ? ms : 120000);
  auto comm = std::make_shared<Comm>(rank, nranks, device, version);
  for (int p = 0; p < nranks; ++p) comm->peers.push_back(std::make_unique<Peer>());
  comm->p2p_sent.assign(std::size_t(nranks), 0);
  comm->peers[std::size_t(rank)]->pid = ::getpid();
  Hello me;
  me.key = b.key, me.rank = rank, me.nranks = nranks, me.version = version, me.device = physical, me.pid = ::getpid();
  std::snprintf(me.host, sizeof me.host, "%s", hostIdentity().c_str());
  std::vector<Hello> hello(static_cast<std::size_t>(nranks));
  hello[std::size_t(rank)] = me;
  const std::string who = "stand-in NCCL bootstrap, rank " + std::to_string(rank) + " of " + std::to_string(nranks);

  int lfd = -1;
  if (rank < nranks - 1) {
    lfd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t len;
    sockaddr_un a = address(b.key, rank, &len);
    if (lfd < 0 || ::bind(lfd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(lfd, nranks) != 0) {
      const int err = errno;
      if (lfd >= 0) ::close(lfd);
      if (err == EADDRINUSE)
        return refuse(ncclInvalidUsage, who + ": another process already joined this unique id as rank " +
                                            std::to_string(rank));
      return refuse(ncclSystemError, who + ": cannot listen: " + std::strerror(err));
    }
  }
  auto fail = [&](ncclResult_t r, const std::string& why) {
    if (lfd >= 0) ::close(lfd);
    return refuse(r, who + ": " + why);
  };
  // Connect to every lower rank; every higher rank connects to us.
  for (int p = 0; p < rank; ++p) {
    int fd = -1;
    for (;;) {
      fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      socklen_t len;
      sockaddr_un a = address(b.key, p, &len);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), len) == 0) break;
      ::close(fd);
      fd = -1;
      if (std::chrono::steady_clock::now() > deadline)
        return fail(ncclSystemError, "rank " + std::to_string(p) + " did not join within " + std::to_string(ms) + " ms");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    comm->peers[std::size_t(p)]->fd = fd;
    Hello h;
    if (!writeAll(fd, &me, sizeof me, nullptr, 0) || !readAll(fd, &h, sizeof h, &deadline) || h.rank != p)
      return fail(ncclSystemError, "no answer from rank " + std::to_string(p));
    hello[std::size_t(p)] = h;
  }
  for (int n = rank + 1; n < nranks; ++n) {
    pollfd pl{lfd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || ::poll(&pl, 1, int(left.count())) <= 0) {
      std::string missing;
      for (int p = rank + 1; p < nranks; ++p)
        if (comm->peers[std::size_t(p)]->fd < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(p);
      return fail(ncclSystemError, "rank(s) " + missing + " did not join within " + std::to_string(ms) + " ms");
    }
    const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    Hello h;
    if (fd < 0 || !readAll(fd, &h, sizeof h, &deadline) || h.magic != kMagic || h.key != b.key) {
      if (fd >= 0) ::close(fd);
      return fail(ncclSystemError, "a connection that is not a rank of this unique id");
    }
    if (h.rank <= rank || h.rank >= nranks || comm->peers[std::size_t(h.rank)]->fd >= 0) {
      ::close(fd);
      return fail(ncclInvalidUsage, "two processes joined as rank " + std::to_string(h.rank));
    }
    comm->peers[std::size_t(h.rank)]->fd = fd;
    hello[std::size_t(h.rank)] = h;
    if (!writeAll(fd, &me, sizeof me, nullptr, 0)) return fail(ncclSystemError, "rank " + std::to_string(h.rank) + " left");
  }
  if (lfd >= 0) ::close(lfd);
  lfd = -1;
  for (int p = 0; p < nranks; ++p) {
    const Hello& h = hello[std::size_t(p)];
    comm->peers[std::size_t(p)]->pid = h.pid;
    if (h.nranks != nranks)
      return fail(ncclInvalidUsage, "rank " + std::to_string(p) + " says nranks " + std::to_string(h.nranks) +
                                        ", this rank " + std::to_string(nranks));
    if (h.version != version)
      return fail(ncclInvalidUsage, "Mismatched NCCL version detected : rank " + std::to_string(rank) + " version " +
                                        std::to_string(version) + " rank " + std::to_string(p) + " version " +
                                        std::to_string(h.version));
  }
  // Two ranks of one host on one device: NCCL refuses that (NCCL_HOSTID
  // makes them different hosts; NCCL_MULTI_RANK_GPU_ENABLE allows it from 2.30).
  const char* multi = std::getenv("NCCL_MULTI_RANK_GPU_ENABLE");
  const bool allowed = version >= 23000 && multi && std::atoi(multi) == 1;
  for (int i = 0; i < nranks && !allowed; ++i)
    for (int j = 0; j < i; ++j) {
      const Hello &a = hello[std::size_t(i)], &c = hello[std::size_t(j)];
      if (std::strncmp(a.host, c.host, sizeof a.host) != 0 || a.device != c.device) continue;
      if (version >= 23000)
        return fail(ncclInvalidUsage, "Multiple Ranks are using the same GPU/Partition. Set "
                                      "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.");
      char text[128];
      std::snprintf(text, sizeof text, "Duplicate GPU detected : rank %d and rank %d both on CUDA device %x", j, i,
                    0xC0 + a.device);
      return fail(ncclInvalidUsage, text);
    }
  comm->start();
  *out = std::move(comm);
  return ncclSuccess;
}

}  // namespace collviz::standin
