#include "engine/group/remote_link.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <cerrno>
#include <thread>
#include <vector>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/group/hosts.h"
#include "engine/group/protocol.h"

namespace collviz {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string hex(const unsigned char* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += d[p[i] >> 4];
    out += d[p[i] & 15];
  }
  return out;
}

std::string peerName(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  char ip[INET_ADDRSTRLEN] = "?";
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) ::inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(a.sin_port));
}

// No Nagle delay for the small messages; a peer whose host is lost (its
// link down: nothing closes the connection) is noticed within seconds:
// keepalive probes after 2 s idle, 1 s apart, 3 missed, and unacknowledged
// data given up after 8 s.
void tune(int fd) {
  int one = 1, idle = 2, intvl = 1, count = 3;
  unsigned user_timeout_ms = 8000;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
}

}  // namespace

Result<std::string> makeSecret() {
  unsigned char b[kSecretBytes];
  if (RAND_bytes(b, int(sizeof b)) != 1) return Error{say("no random bytes for the run's secret (OpenSSL RAND_bytes failed)")};
  return hex(b, sizeof b);
}

std::string randomHex(std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  if (RAND_bytes(b.data(), int(b.size())) != 1) return {};
  return hex(b.data(), b.size());
}

std::string hmacHex(const std::string& secret, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), int(secret.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return hex(mac, len);
}

bool sameMac(const std::string& a, const std::string& b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string helloData(const std::string& challenge, int rank, long pid, const std::string& host,
                      const std::string& their_challenge) {
  return "collviz-hello\n" + challenge + "\n" + std::to_string(rank) + "\n" + std::to_string(pid) + "\n" + host +
         "\n" + their_challenge;
}

std::string welcomeData(const std::string& their_challenge) { return "collviz-welcome\n" + their_challenge; }

Result<int> parseWireFault(const char* value, int ranks) {
  if (!value || !*value) return -2;
  const std::string v = value;
  if (v == "corrupt") return -1;
  if (v.rfind("corrupt:", 0) == 0 && v.size() > 8 && v.size() < 14 &&
      v.find_first_not_of("0123456789", 8) == std::string::npos) {
    const int r = std::stoi(v.substr(8));
    if (r < ranks) return r;
  }
  return Error{say("{0}={1} is not a wire fault; allowed: corrupt, or corrupt:R with R a rank (0 to {2})", kWireFaultEnv,
                   v, ranks - 1)};
}

std::string interfaceOf(int fd) {
  sockaddr_in me{};
  socklen_t len = sizeof me;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) != 0 || me.sin_family != AF_INET) return "";
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string name;
  for (ifaddrs* a = all; a && name.empty(); a = a->ifa_next)
    if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET &&
        reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr == me.sin_addr.s_addr)
      name = a->ifa_name;
  ::freeifaddrs(all);
  return name;
}

Result<std::string> listenAddress(const std::string& iface, const std::string& host) {
  if (!iface.empty()) {
    ifaddrs* all = nullptr;
    if (::getifaddrs(&all) != 0) return Error{say("{0}: {1}", "getifaddrs", std::strerror(errno))};
    std::string found, names;
    for (ifaddrs* a = all; a; a = a->ifa_next) {
      if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
      if (names.find(std::string(a->ifa_name) + ",") == std::string::npos) names += std::string(a->ifa_name) + ",";
      if (iface != a->ifa_name || !found.empty()) continue;
      char ip[INET_ADDRSTRLEN];
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, ip, sizeof ip);
      found = ip;
    }
    ::freeifaddrs(all);
    if (!names.empty()) names.pop_back();
    if (found.empty())
      return Error{say("--iface {0} has no IPv4 address on this machine; interfaces with one: {1}", iface, names)};
    return found;
  }
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  if (const int rc = ::getaddrinfo(host.c_str(), "9", &hints, &res); rc != 0)
    return Error{say("host {0} cannot be resolved: {1}", host, gai_strerror(rc))};
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in me{};
  socklen_t len = sizeof me;
  const bool ok = fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(res);
  if (!ok) return Error{say("no route from this machine to host {0}: {1}", host, std::strerror(err))};
  char ip[INET_ADDRSTRLEN];
  ::inet_ntop(AF_INET, &me.sin_addr, ip, sizeof ip);
  return std::string(ip);
}

TcpListener& TcpListener::operator=(TcpListener&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    port_ = o.port_;
    address_ = std::move(o.address_);
    o.fd_ = -1;
  }
  return *this;
}

TcpListener::~TcpListener() { close(); }

void TcpListener::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<TcpListener> TcpListener::open(const std::string& address) {
  TcpListener l;
  l.fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (l.fd_ < 0) return Error{say("{0}: {1}", "socket", std::strerror(errno))};
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (::inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1)
    return Error{say("{0} is not an IPv4 address", address)};
  if (::bind(l.fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(l.fd_, 256) != 0)
    return Error{say("listening on {0} for the remote ranks: {1}", address, std::strerror(errno))};
  socklen_t len = sizeof a;
  ::getsockname(l.fd_, reinterpret_cast<sockaddr*>(&a), &len);
  l.port_ = ntohs(a.sin_port);
  l.address_ = address;
  return l;
}

namespace {

// The handshake on an accepted connection `ch` from `who`: the rank it
// proved to be (its channel still in `ch`).
Result<RemotePeer> greet(Channel& ch, const std::string& who, const std::string& secret, int ranks,
                         std::chrono::milliseconds timeout) {
  RemotePeer p;
  const std::string challenge = randomHex(32);
  if (challenge.empty() || !ch.send(json{{"type", "challenge"}, {"challenge", challenge}}.dump()))
    return Error{say("refused a connection from {0}: {1}", who, "send")};
  auto m = ch.recv(timeout, kMaxHelloBytes);
  // Its own timer ran out (the owner may not have cut it yet): said as the owner says it.
  if (!m && m.error().message == "timeout")
    return Error{say("refused a connection from {0}: {1}", who, say("no hello within {0} ms", timeout.count()))};
  if (!m) return Error{say("refused a connection from {0}: {1}", who, m.error().text)};
  const json j = json::parse(m->body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("type", "") != "hello" || !j["rank"].is_number_integer() ||
      !j["pid"].is_number_integer() || !j["host"].is_string() || !j["mac"].is_string() || !j["challenge"].is_string())
    return Error{say("refused a connection from {0}: {1}", who, say("its first message is not a hello"))};
  p.rank = j["rank"].get<int>();
  p.pid = j["pid"].get<long>();
  p.host = j["host"].get<std::string>();
  p.version = j.value("version", "");
  const std::string theirs = j["challenge"].get<std::string>();
  if (!sameMac(j["mac"].get<std::string>(), hmacHex(secret, helloData(challenge, p.rank, p.pid, p.host, theirs))))
    return Error{say("refused a connection from {0}: {1}", who, say("its hello does not prove the run's secret (wrong HMAC)"))};
  if (p.rank < 0 || p.rank >= ranks)
    return Error{say("refused a connection from {0}: {1}", who, say("rank {0} is not one of the job's (0 to {1})", p.rank, ranks - 1))};
  p.host = hostShown(p.host);  // named in messages: no control character reaches the terminal
  p.version = hostShown(p.version);
  if (!ch.send(json{{"type", "welcome"}, {"mac", hmacHex(secret, welcomeData(theirs))}}.dump()))
    return Error{say("refused a connection from {0}: {1}", who, "send")};
  return p;
}

}  // namespace

Result<RemotePeer> TcpListener::accept(const std::string& secret, int ranks, std::chrono::milliseconds timeout) {
  const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return Error{say("{0}: {1}", "accept", std::strerror(errno))};
  Channel ch(fd);
  tune(fd);
  auto p = greet(ch, peerName(fd), secret, ranks, timeout);
  if (p) p->ch = std::move(ch);
  return p;
}

struct Handshakes::Shake {
  Channel ch;
  std::string who;
  std::chrono::steady_clock::time_point until;
  bool cut = false;  // past its time: shut down by the owner
  std::atomic<bool> done{false};
  Result<RemotePeer> out = Error{say("closed")};
  std::thread thread;
};

Handshakes::Handshakes(std::string secret, int ranks, std::chrono::milliseconds each)
    : secret_(std::move(secret)), ranks_(ranks), each_(each) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;  // then polled every 50 ms
}

Handshakes::~Handshakes() {
  for (auto& s : shakes_) ::shutdown(s->ch.fd(), SHUT_RDWR);  // a blocked read returns at once
  for (auto& s : shakes_) s->thread.join();
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

void Handshakes::start(int fd) {
  auto s = std::make_unique<Shake>();
  s->ch = Channel(fd);
  tune(fd);
  s->who = peerName(fd);
  s->until = std::chrono::steady_clock::now() + each_;
  Shake* me = s.get();
  // The thread reads nothing of this object but its own Shake.
  s->thread = std::thread([me, secret = secret_, ranks = ranks_, each = each_, wake = wake_[1]] {
    me->out = greet(me->ch, me->who, secret, ranks, each);
    me->done.store(true, std::memory_order_release);
    if (wake >= 0 && ::write(wake, "x", 1) < 0) {}  // full: the owner looks anyway
  });
  shakes_.push_back(std::move(s));
}

std::optional<Result<RemotePeer>> Handshakes::takeDone() {
  for (auto it = shakes_.begin(); it != shakes_.end(); ++it) {
    Shake& s = **it;
    if (!s.done.load(std::memory_order_acquire)) continue;
    s.thread.join();
    Result<RemotePeer> out = std::move(s.out);
    if (out) out->ch = std::move(s.ch);
    else if (s.cut)
      out = Error{say("refused a connection from {0}: {1}", s.who,
                      say("no hello within {0} ms", each_.count()))};
    shakes_.erase(it);
    return out;
  }
  return std::nullopt;
}

std::optional<Result<RemotePeer>> Handshakes::next(TcpListener& l, std::chrono::milliseconds wait) {
  using Clock = std::chrono::steady_clock;
  if (auto done = takeDone()) return done;
  // Wake for a new connection, a handshake's end, or the first one's time.
  auto now = Clock::now();
  auto until = now + wait;
  for (const auto& s : shakes_)
    if (!s->cut) until = std::min(until, s->until);
  const bool room = running() < kMaxHandshakes;
  pollfd p[2] = {{wake_[0], POLLIN, 0}, {room ? l.fd() : -1, POLLIN, 0}};
  long long ms = std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
  if (wake_[0] < 0) ms = std::min<long long>(ms, 50);  // no wake pipe: look every 50 ms
  ::poll(p, 2, int(ms));
  char drain[64];
  while (wake_[0] >= 0 && ::read(wake_[0], drain, sizeof drain) > 0) {}
  // Every connection waiting is taken now: none waits behind another.
  while (l.fd() >= 0 && running() < kMaxHandshakes) {
    const int fd = ::accept4(l.fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) break;
      return Result<RemotePeer>(Error{say("{0}: {1}", "accept", std::strerror(errno))});
    }
    start(fd);
  }
  now = Clock::now();
  for (auto& s : shakes_)
    if (!s->cut && now >= s->until) {
      s->cut = true;
      ::shutdown(s->ch.fd(), SHUT_RDWR);
    }
  return takeDone();
}

Result<Channel> connectRemote(const std::string& where, const std::string& secret, int rank,
                              const std::string& host, const std::string& version,
                              std::chrono::milliseconds timeout) {
  const auto colon = where.rfind(':');
  if (colon == std::string::npos) return Error{say("{0} is not ADDRESS:PORT", where)};
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(std::atoi(where.c_str() + colon + 1)));
  if (::inet_pton(AF_INET, where.substr(0, colon).c_str(), &a.sin_addr) != 1)
    return Error{say("{0} is not ADDRESS:PORT", where)};
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{say("{0}: {1}", "socket", std::strerror(errno))};
  Channel ch(fd);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    return Error{say("connecting to collviz at {0}: {1}", where, std::strerror(errno))};
  tune(fd);
  auto c = ch.recv(timeout, kMaxHelloBytes);
  if (!c) return Error{say("connecting to collviz at {0}: {1}", where, c.error().text)};
  const json j = json::parse(c->body, nullptr, false);
  if (j.is_discarded() || j.value("type", "") != "challenge")
    return Error{say("connecting to collviz at {0}: {1}", where, say("no challenge"))};
  const std::string mine = randomHex(32);
  const long pid = long(::getpid());
  const json hello = {{"type", "hello"},  {"rank", rank},       {"pid", pid}, {"host", host},
                      {"version", version}, {"challenge", mine},
                      {"mac", hmacHex(secret, helloData(j.value("challenge", ""), rank, pid, host, mine))}};
  if (Status st = ch.send(hello.dump()); !st) return st.error();
  auto w = ch.recv(timeout, kMaxHelloBytes);
  if (!w) return Error{say("connecting to collviz at {0}: {1}", where, w.error().text)};
  const json wj = json::parse(w->body, nullptr, false);
  if (wj.is_discarded() || wj.value("type", "") != "welcome" ||
      !sameMac(wj.value("mac", ""), hmacHex(secret, welcomeData(mine))))
    return Error{say("connecting to collviz at {0}: {1}", where, say("the engine did not prove the run's secret"))};
  return ch;
}

Status sendBuffer(Channel& ch, const char* type, std::size_t offset, const char* p, std::size_t n, bool corrupt) {
  if (Status st = ch.send(json{{"type", type}, {"offset", offset}, {"bytes", n}}.dump()); !st) return st;
  std::string flipped;
  for (std::size_t at = 0; at < n; at += kFrameBytes) {
    const std::size_t k = std::min(kFrameBytes, n - at);
    const char* src = p + at;
    const uint32_t crc = crc32c(src, k);  // read now, sent from the cache just after
    if (corrupt && at == 0) {  // the fault: one byte changed after the checksum
      flipped.assign(src, k);
      flipped[k / 2] = char(flipped[k / 2] ^ 0x01);
      src = flipped.data();
    }
    if (Status st = ch.send(reinterpret_cast<const char*>(&crc), sizeof crc, src, k); !st) return st;
  }
  return {};
}

Status recvBufferAfter(Channel& ch, const std::string& header, const char* type, char* base, std::size_t size,
                       std::chrono::milliseconds timeout) {
  const json h = json::parse(header, nullptr, false);
  if (h.is_discarded() || h.value("type", "") != type || !h["offset"].is_number_unsigned() ||
      !h["bytes"].is_number_unsigned())
    return Error{say("expected a buffer ({0}), got: {1}", type, header.substr(0, 200))};
  const std::size_t off = h["offset"].get<std::size_t>(), n = h["bytes"].get<std::size_t>();
  if (off > size || n > size - off)
    return Error{say("a buffer of {0} bytes at offset {1} does not fit in {2} bytes", n, off, size)};
  // Every frame is read even after a corrupt one: the link stays in step.
  std::optional<Error> corrupt;
  for (std::size_t at = 0; at < n;) {
    uint32_t want = 0;
    char* dst = base + off + at;
    auto got = ch.recvInto(reinterpret_cast<char*>(&want), sizeof want, dst, std::min(kFrameBytes, n - at), timeout);
    if (!got) return got.error();
    const uint32_t crc = crc32c(dst, *got);  // checked while the frame is in the cache
    if (crc != want && !corrupt)
      corrupt = Error{say("a buffer of {0} bytes at offset {1} arrived corrupt: CRC32C {2}, sent as {3}", *got,
                          off + at, crc, want)};
    at += *got;
  }
  if (corrupt) return *corrupt;
  return {};
}

Status recvBuffer(Channel& ch, const char* type, char* base, std::size_t size, std::chrono::milliseconds timeout) {
  auto m = ch.recv(timeout, kMaxHelloBytes);
  if (!m) return m.error();
  return recvBufferAfter(ch, m->body, type, base, size, timeout);
}

}  // namespace collviz
