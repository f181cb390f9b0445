// The engine's link to ranks on other hosts (issue 33): TCP, authenticated,
// and carrying the buffers that shared memory carries on one host.
//
// Joining: the engine listens on the address of the interface the hosts
// reach and the ranks connect to it. The engine sends a challenge (32
// random bytes); the rank answers with a hello that carries an HMAC-SHA256,
// keyed with the run's secret, over the challenge, its rank, pid, host and
// its own challenge; the engine answers with its HMAC over the rank's
// challenge, so each side knows the other holds the secret. The secret (32
// random bytes, hex) travels only in mpirun's environment (COLLVIZ_SECRET,
// passed on with -x), never on a command line nor in a log. A fresh challenge
// per connection makes a recorded hello useless (replay); before it is
// authenticated a peer may send one small message (kMaxHelloBytes); anything
// else is refused, logged and closed.
//
// Buffers: a buffer travels as a header ({"type":"put"|"buffer","offset",
// "bytes"}) and then frames of at most kFrameBytes, each led by its CRC32C
// and checked on arrival while it is still in the cache it was just copied
// through (the sender's too: it reads a frame for its checksum just before
// sending it). The bytes are not encrypted (docs/hosts.md).
#pragma once

#include <netinet/in.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>

#include "engine/group/channel.h"
#include "engine/text.h"

namespace collviz {

inline constexpr std::size_t kSecretBytes = 32;
inline constexpr std::size_t kMaxHelloBytes = 4096;
inline constexpr std::size_t kFrameBytes = std::size_t(1) << 20;
inline constexpr const char* kSecretEnv = "COLLVIZ_SECRET";

// 32 random bytes from the system, as 64 hex digits.
Result<std::string> makeSecret();
// HMAC-SHA256 of `data` keyed with the secret's hex text, as hex.
std::string hmacHex(const std::string& secret, const std::string& data);
// Constant-time equality of two hex MACs.
bool sameMac(const std::string& a, const std::string& b);
// CRC32C (Castagnoli) of `n` bytes, continuing from `crc` (0 to start):
// folded with carry-less multiplication where the CPU has it.
uint32_t crc32c(const void* p, std::size_t n, uint32_t crc = 0);
// 16 random bytes as hex: a challenge.
std::string randomHex(std::size_t bytes);

// What the hello's MAC covers, on both sides.
std::string helloData(const std::string& challenge, int rank, long pid, const std::string& host,
                      const std::string& their_challenge);
std::string welcomeData(const std::string& their_challenge);

// COLLVIZ_WIRE_FAULT (a test's fault): "corrupt" (every remote rank) or
// "corrupt:R" (rank R) flips one byte of each output buffer the rank sends
// back, after its checksum. The rank it hits (-1: all), or -2 when unset.
inline constexpr const char* kWireFaultEnv = "COLLVIZ_WIRE_FAULT";
Result<int> parseWireFault(const char* value, int ranks);

// The IPv4 address of interface `iface`, or the address this machine
// reaches `host` from (the interface toward it) when `iface` is empty.
Result<std::string> listenAddress(const std::string& iface, const std::string& host);

// The name of the interface that holds socket `fd`'s own IPv4 address (a
// remote rank's NCCL sockets go where its link to the engine goes); empty
// when none does.
std::string interfaceOf(int fd);

// A joined rank as the engine accepted it.
struct RemotePeer {
  Channel ch;
  int rank = -1;
  long pid = -1;  // on its host
  std::string host, version;
};

class TcpListener {
 public:
  static Result<TcpListener> open(const std::string& address);
  TcpListener() = default;
  TcpListener(TcpListener&& o) noexcept : fd_(o.fd_), port_(o.port_), address_(std::move(o.address_)) { o.fd_ = -1; }
  TcpListener& operator=(TcpListener&& o) noexcept;
  ~TcpListener();
  int fd() const { return fd_; }
  int port() const { return port_; }
  const std::string& address() const { return address_; }
  void close();
  // Accept one waiting connection and authenticate it within `timeout`:
  // the rank it proved to be (of 0..ranks-1), or why it was refused (the
  // caller logs it; the peer's address is in the message).
  Result<RemotePeer> accept(const std::string& secret, int ranks, std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
  int port_ = 0;
  std::string address_;
};

// The handshakes of a listener's connections, all at once (issue 55): each
// in a thread of its own under its own timer, so silent or slow peers (up to
// kMaxHandshakes at a time; more wait in the listen queue) never hold an
// authentic rank back. A handshake past its time is cut (its socket shut
// down) and refused; the ones still running when this ends are cut too.
inline constexpr int kMaxHandshakes = 128;
class Handshakes {
 public:
  // `each`: one connection's time from its accept to its hello.
  Handshakes(std::string secret, int ranks, std::chrono::milliseconds each);
  Handshakes(const Handshakes&) = delete;
  Handshakes& operator=(const Handshakes&) = delete;
  ~Handshakes();
  // Accepts what waits on `l`, then waits up to `wait` for a handshake to
  // end: the rank it proved to be, or why it was refused (the caller logs
  // it); nothing when none ended.
  std::optional<Result<RemotePeer>> next(TcpListener& l, std::chrono::milliseconds wait);
  // Handshakes under way.
  int running() const { return int(shakes_.size()); }

 private:
  struct Shake;
  void start(int fd);
  std::optional<Result<RemotePeer>> takeDone();
  std::string secret_;
  int ranks_;
  std::chrono::milliseconds each_;
  int wake_[2] = {-1, -1};  // a handshake that ends writes a byte
  std::list<std::unique_ptr<Shake>> shakes_;
};

// The rank's side: connect to "ADDRESS:PORT", answer the challenge with the
// secret, check the engine's answer.
Result<Channel> connectRemote(const std::string& where, const std::string& secret, int rank,
                              const std::string& host, const std::string& version,
                              std::chrono::milliseconds timeout);

// Send `n` bytes at `p` (a header of `type` with `offset`, then frames),
// flipping one byte after the checksum when `corrupt` (a test's fault).
Status sendBuffer(Channel& ch, const char* type, std::size_t offset, const char* p, std::size_t n,
                  bool corrupt = false);
// Receive a buffer sent by sendBuffer into `base` (of `size` bytes) at its
// offset; the header must be of `type`, its span inside `size`, its
// checksum right.
Status recvBuffer(Channel& ch, const char* type, char* base, std::size_t size,
                  std::chrono::milliseconds timeout);
// The same with the header already read (its JSON text).
Status recvBufferAfter(Channel& ch, const std::string& header, const char* type, char* base, std::size_t size,
                       std::chrono::milliseconds timeout);

}  // namespace collviz
