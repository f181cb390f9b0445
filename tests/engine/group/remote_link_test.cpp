// The engine's TCP link to remote ranks (engine/group/remote_link.h), on
// 127.0.0.1: a rank with the secret joins; a peer without it, with a wrong
// HMAC, replaying a recorded hello, sending an oversized first frame or no
// hello is refused; strangers that say nothing keep no rank out; a fake
// engine is refused by the rank; a buffer's frames arrive whole and a byte
// flipped on the wire is caught.
#include "engine/group/remote_link.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace collviz {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

Channel dial(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return Channel(fd);
}

// Accept one connection on `l` (waiting for it).
Result<RemotePeer> acceptOne(TcpListener& l, const std::string& secret) {
  pollfd p{l.fd(), POLLIN, 0};
  ::poll(&p, 1, 5000);
  return l.accept(secret, 4, milliseconds(1000));
}

std::string challengeOf(Channel& c) {
  auto m = c.recv(milliseconds(2000));
  EXPECT_TRUE(m);
  return m ? json::parse(m->body).value("challenge", "") : "";
}

TEST(RemoteLink, SecretHmacAndCrc) {
  auto s = makeSecret();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->size(), 64u);
  EXPECT_NE(*s, *makeSecret());
  // RFC 4231 test case 2: key "Jefe".
  EXPECT_EQ(hmacHex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_TRUE(sameMac("ab", "ab"));
  EXPECT_FALSE(sameMac("ab", "ac"));
  EXPECT_FALSE(sameMac("", ""));
  // Lengths differ: a prefix of the right MAC (one character, all but the
  // last) or the MAC with more after it is not the MAC.
  const std::string mac = hmacHex("Jefe", "what do ya want for nothing?");
  for (const std::string& other : {mac.substr(0, 1), mac.substr(0, mac.size() - 1), mac + "0", std::string()}) {
    EXPECT_FALSE(sameMac(other, mac)) << other.size() << " characters";
    EXPECT_FALSE(sameMac(mac, other)) << other.size() << " characters";
  }
  EXPECT_TRUE(sameMac(mac, std::string(mac)));
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);  // the CRC32C check value
  std::vector<char> big(1000003);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = char(i * 7);
  EXPECT_EQ(crc32c(big.data(), big.size()), crc32c(big.data() + 5, big.size() - 5, crc32c(big.data(), 5)));
  // Folded (64 bytes and more, where the CPU multiplies carry-less) and
  // bitwise give one CRC at every length and start, alone and continued.
  std::vector<char> rnd(70000);
  uint32_t seed = 12345;
  for (char& c : rnd) c = char((seed = seed * 1103515245u + 12345u) >> 16);
  auto bitwise = [](const char* p, std::size_t n, uint32_t crc) {
    crc = ~crc;
    for (std::size_t i = 0; i < n; ++i) {
      crc ^= static_cast<unsigned char>(p[i]);
      for (int k = 0; k < 8; ++k) crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
  };
  for (std::size_t n : {0, 1, 15, 16, 63, 64, 65, 79, 80, 127, 128, 129, 255, 256, 1000, 4097, 65536, 69990})
    for (std::size_t start : {0, 1, 7}) {
      EXPECT_EQ(crc32c(rnd.data() + start, n), bitwise(rnd.data() + start, n, 0)) << n << " from " << start;
      EXPECT_EQ(crc32c(rnd.data() + start, n, 0xdeadbeef), bitwise(rnd.data() + start, n, 0xdeadbeef)) << n;
    }
}

TEST(RemoteLink, ARankWithTheSecretJoinsAndBothSidesProveIt) {
  auto l = TcpListener::open("127.0.0.1");
  ASSERT_TRUE(l) << l.error().message;
  const std::string secret = *makeSecret();
  Result<Channel> rank = Error{say("closed")};
  std::thread t([&] {
    rank = connectRemote("127.0.0.1:" + std::to_string(l->port()), secret, 2, "node7", "0.1.0", milliseconds(3000));
  });
  auto p = acceptOne(*l, secret);
  t.join();
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_TRUE(rank) << rank.error().message;
  EXPECT_EQ(p->rank, 2);
  EXPECT_EQ(p->host, "node7");
  EXPECT_EQ(p->version, "0.1.0");
  EXPECT_EQ(p->pid, long(::getpid()));
}

TEST(RemoteLink, PeersWithoutTheSecretAreRefused) {
  auto l = TcpListener::open("127.0.0.1");
  ASSERT_TRUE(l);
  const std::string secret = *makeSecret();
  auto refused = [&](const std::function<void(Channel&)>& speak) {
    Channel c = dial(l->port());
    std::thread t([&] { speak(c); });
    auto p = acceptOne(*l, secret);
    t.join();
    return p ? std::string("ACCEPTED") : p.error().message;
  };
  auto hello = [](const std::string& key, const std::string& challenge, int rank) {
    return json{{"type", "hello"}, {"rank", rank}, {"pid", 1}, {"host", "x"}, {"challenge", "c"},
                {"mac", hmacHex(key, helloData(challenge, rank, 1, "x", "c"))}};
  };
  // No secret at all: a hello with a made-up MAC.
  EXPECT_NE(refused([&](Channel& c) {
              challengeOf(c);
              c.send(json{{"type", "hello"}, {"rank", 0}, {"pid", 1}, {"host", "x"}, {"challenge", "c"}, {"mac", "00"}}.dump());
            }).find("wrong HMAC"),
            std::string::npos);
  // The wrong secret.
  EXPECT_NE(refused([&](Channel& c) { c.send(hello(*makeSecret(), challengeOf(c), 0).dump()); }).find("wrong HMAC"),
            std::string::npos);
  // Replay: a hello that was right for another connection's challenge.
  std::string recorded;
  EXPECT_EQ(refused([&](Channel& c) {
              recorded = hello(secret, challengeOf(c), 1).dump();
              c.send(recorded);
              c.recv(milliseconds(2000));
            }),
            "ACCEPTED");
  EXPECT_NE(refused([&](Channel& c) {
              challengeOf(c);
              c.send(recorded);
            }).find("wrong HMAC"),
            std::string::npos);
  // An oversized first frame: refused before it is read.
  EXPECT_NE(refused([&](Channel& c) {
              challengeOf(c);
              c.send(std::string(kMaxHelloBytes + 1, 'x'));
            }).find("message too large"),
            std::string::npos);
  // Not a hello; a rank outside the job; silence.
  EXPECT_NE(refused([&](Channel& c) { challengeOf(c); c.send("{\"type\":\"ready\"}"); }).find("not a hello"),
            std::string::npos);
  EXPECT_NE(refused([&](Channel& c) { c.send(hello(secret, challengeOf(c), 9).dump()); }).find("rank 9 is not one of"),
            std::string::npos);
  EXPECT_NE(refused([&](Channel& c) { challengeOf(c); }).find("no hello within"), std::string::npos);
  // Closed: nobody connects any more.
  const int port = l->port();
  l->close();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  EXPECT_NE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::close(fd);
}

// Issue 55: strangers that connect first and say nothing (one of them half a
// frame, then nothing) keep no rank out: every handshake runs at once, each
// under its own timer. The four ranks join while all 64 strangers still
// wait; a stranger is refused when its own time is up.
TEST(RemoteLink, SilentPeersConnectedFirstKeepNoRankOut) {
  auto l = TcpListener::open("127.0.0.1");
  ASSERT_TRUE(l) << l.error().message;
  const std::string secret = *makeSecret();
  std::vector<Channel> silent;
  for (int i = 0; i < 64; ++i) silent.push_back(dial(l->port()));
  ASSERT_EQ(::send(silent[0].fd(), "\x10\x00", 2, MSG_NOSIGNAL), 2);  // half a length, then nothing
  Handshakes shakes(secret, 4, milliseconds(5000));
  for (int i = 0; i < 1000 && shakes.running() < 64; ++i) ASSERT_FALSE(shakes.next(*l, milliseconds(10)));
  ASSERT_EQ(shakes.running(), 64) << "the strangers were not all taken in";
  std::vector<Result<Channel>> ranks;
  ranks.reserve(4);
  for (int r = 0; r < 4; ++r) ranks.emplace_back(Error{say("closed")});
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r)
    threads.emplace_back([&, r] {
      ranks[std::size_t(r)] = connectRemote("127.0.0.1:" + std::to_string(l->port()), secret, r, "node1", "v",
                                            milliseconds(20000));
    });
  std::vector<int> joined;
  std::vector<std::string> refused;
  for (int i = 0; i < 1200 && joined.size() < 4; ++i)  // a bound for a failure (60 s), not a measure
    if (auto got = shakes.next(*l, milliseconds(50)))
      *got ? joined.push_back((*got)->rank) : refused.push_back(got->error().message);
  for (auto& t : threads) t.join();
  EXPECT_EQ(joined.size(), 4u) << "ranks joined: " << joined.size();
  for (const auto& r : ranks) EXPECT_TRUE(r) << r.error().message;
  EXPECT_TRUE(refused.empty()) << "a stranger was refused before the ranks joined (one after another?): "
                               << refused.front();
  EXPECT_EQ(shakes.running(), 64) << "the strangers wait, each on its own timer";

  // Their time up: each refused, the half frame too (its read cut, not left blocked).
  Handshakes brief(secret, 4, milliseconds(200));
  std::vector<Channel> more;
  for (int i = 0; i < 8; ++i) more.push_back(dial(l->port()));
  ASSERT_EQ(::send(more[0].fd(), "\x10\x00", 2, MSG_NOSIGNAL), 2);
  refused.clear();
  for (int i = 0; i < 1200 && refused.size() < 8; ++i)
    if (auto got = brief.next(*l, milliseconds(50))) {
      ASSERT_FALSE(*got) << "a stranger joined as rank " << (*got)->rank;
      refused.push_back(got->error().message);
    }
  ASSERT_EQ(refused.size(), 8u);
  for (const auto& m : refused) EXPECT_NE(m.find("no hello within 200 ms"), std::string::npos) << m;
}

TEST(RemoteLink, ARankRefusesAnEngineWithoutTheSecret) {
  auto l = TcpListener::open("127.0.0.1");
  ASSERT_TRUE(l);
  Result<Channel> rank = Error{say("closed")};
  std::thread t([&] {
    rank = connectRemote("127.0.0.1:" + std::to_string(l->port()), *makeSecret(), 0, "x", "v", milliseconds(3000));
  });
  auto p = acceptOne(*l, *makeSecret());  // another secret: the rank's hello fails here too
  t.join();
  EXPECT_FALSE(p);
  ASSERT_FALSE(rank);
}

// A fake engine that knows no secret: it sends a challenge, takes the
// rank's hello and answers a welcome whose MAC it made up (a MAC of the
// wrong secret, a prefix of a MAC, none, the rank's own hello MAC sent
// back). The rank refuses each. The same fake with the secret is
// accepted: the refusals are the welcome's.
TEST(RemoteLink, ARankRefusesAForgedWelcome) {
  const std::string secret = *makeSecret();
  auto answer = [&](const std::function<std::string(const json& hello)>& welcomeMac) {
    auto l = TcpListener::open("127.0.0.1");
    EXPECT_TRUE(l);
    if (!l) return std::string("no listener");
    Result<Channel> rank = Error{say("closed")};
    std::thread t([&] {
      rank = connectRemote("127.0.0.1:" + std::to_string(l->port()), secret, 1, "x", "v", milliseconds(3000));
    });
    pollfd p{l->fd(), POLLIN, 0};
    ::poll(&p, 1, 5000);
    Channel engine(::accept4(l->fd(), nullptr, nullptr, SOCK_CLOEXEC));
    engine.send(json{{"type", "challenge"}, {"challenge", "c0ffee"}}.dump());
    auto m = engine.recv(milliseconds(3000));
    EXPECT_TRUE(m);
    const json hello = m ? json::parse(m->body, nullptr, false) : json();
    engine.send(json{{"type", "welcome"}, {"mac", welcomeMac(hello)}}.dump());
    t.join();
    return rank ? std::string("ACCEPTED") : rank.error().message;
  };
  const auto theirs = [](const json& h) { return h.value("challenge", ""); };
  EXPECT_EQ(answer([&](const json& h) { return hmacHex(secret, welcomeData(theirs(h))); }), "ACCEPTED");
  const std::string refused = "the engine did not prove the run's secret";
  EXPECT_NE(answer([&](const json& h) { return hmacHex(*makeSecret(), welcomeData(theirs(h))); }).find(refused), std::string::npos);
  EXPECT_NE(answer([&](const json& h) { return hmacHex(secret, welcomeData(theirs(h))).substr(0, 1); }).find(refused), std::string::npos);
  EXPECT_NE(answer([&](const json&) { return std::string(); }).find(refused), std::string::npos);
  EXPECT_NE(answer([&](const json& h) { return h.value("mac", ""); }).find(refused), std::string::npos);
  EXPECT_NE(answer([&](const json& h) { return hmacHex(secret, welcomeData(theirs(h) + "0")); }).find(refused), std::string::npos);
}

TEST(RemoteLink, BuffersArriveWholeAndACorruptByteIsCaught) {
  auto pair = Channel::pair();
  ASSERT_TRUE(pair);
  std::vector<char> src(kFrameBytes * 2 + 12345), dst(src.size() + 4096, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = char(i * 31 + 7);
  std::thread t([&] { ASSERT_TRUE(sendBuffer(pair->first, "put", 4096, src.data(), src.size())); });
  auto st = recvBuffer(pair->second, "put", dst.data(), dst.size(), milliseconds(5000));
  t.join();
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(std::memcmp(dst.data() + 4096, src.data(), src.size()), 0);
  std::thread u([&] { sendBuffer(pair->first, "buffer", 0, src.data(), 1000, true); });
  st = recvBuffer(pair->second, "buffer", dst.data(), dst.size(), milliseconds(5000));
  u.join();
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("a buffer of 1000 bytes at offset 0 arrived corrupt"), std::string::npos)
      << st.error().message;
  // The link stays in step after a corrupt frame: the next buffer arrives whole.
  std::thread v([&] { sendBuffer(pair->first, "buffer", 0, src.data(), src.size()); });
  st = recvBuffer(pair->second, "buffer", dst.data(), dst.size(), milliseconds(5000));
  v.join();
  EXPECT_TRUE(st) << st.error().message;
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), src.size()), 0);
  // A header that claims more than the memory holds is refused before any frame.
  pair->first.send(json{{"type", "buffer"}, {"offset", 10}, {"bytes", dst.size()}}.dump());
  st = recvBuffer(pair->second, "buffer", dst.data(), dst.size(), milliseconds(1000));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("does not fit"), std::string::npos);
}

TEST(RemoteLink, WireFaultValues) {
  EXPECT_EQ(*parseWireFault(nullptr, 4), -2);
  EXPECT_EQ(*parseWireFault("corrupt", 4), -1);
  EXPECT_EQ(*parseWireFault("corrupt:3", 4), 3);
  EXPECT_FALSE(parseWireFault("corrupt:4", 4));
  EXPECT_NE(parseWireFault("flip", 4).error().message.find("allowed: corrupt, or corrupt:R"), std::string::npos);
}

}  // namespace
}  // namespace collviz
