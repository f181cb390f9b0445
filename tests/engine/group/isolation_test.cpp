// Another local user cannot break a Gloo run: while an attacker (as nobody
// when we are root) connects to every new listening port on 127.0.0.1 as
// soon as it appears, runs of N = 4 and 16 all verify. A control run without
// the private network (COLLVIZ_NO_NETNS) shows that the attacker does reach
// the ports there, and the notice says the run is not isolated.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/app/cli/cli_process.h"

namespace {

using namespace std::chrono_literals;
using namespace collviz::test;

struct Cli : collviz::test::Cli {
  explicit Cli(std::vector<std::string> args)
      : collviz::test::Cli("collviz_isolation_", std::move(args), 120s) {}
};

// Listening TCP ports on 127.0.0.1 in our network namespace.
std::set<int> loopbackListeners() {
  std::set<int> ports;
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string slot, local, remote, state;
    f >> slot >> local >> remote >> state;
    if (state == "0A" && local.rfind("0100007F:", 0) == 0)
      ports.insert(std::stoi(local.substr(9), nullptr, 16));
  }
  return ports;
}

// Connects to every new listener and keeps the connection; reports how many
// ports it took on stdout (a pipe) when told to stop with SIGTERM.
class Attacker {
 public:
  Attacker() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
                               ::setresuid(65534, 65534, 65534) != 0))
        ::_exit(3);
      static volatile sig_atomic_t stop = 0;
      ::signal(SIGTERM, [](int) { stop = 1; });
      std::set<int> seen = loopbackListeners();  // not those that were there before
      int taken = 0;
      while (!stop) {
        for (int port : loopbackListeners()) {
          if (!seen.insert(port).second) continue;
          const int s = ::socket(AF_INET, SOCK_STREAM, 0);
          sockaddr_in a{};
          a.sin_family = AF_INET;
          a.sin_port = htons(uint16_t(port));
          a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
          if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) ++taken;
        }
      }
      [[maybe_unused]] ssize_t n = ::write(fds[1], &taken, sizeof taken);
      ::_exit(0);
    }
    ::close(fds[1]);
    out_ = fds[0];
  }
  int stop() {  // ports it connected to
    ::kill(pid_, SIGTERM);
    int taken = -1;
    [[maybe_unused]] ssize_t n = ::read(out_, &taken, sizeof taken);
    ::waitpid(pid_, nullptr, 0);
    ::close(out_);
    return taken;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

class Isolation : public SubreaperTest {};

TEST_F(Isolation, RunsVerifyWhileAnAttackerConnectsToEveryNewPort) {
  {
    Cli d({"devices"});
    ASSERT_EQ(d.wait(), 0);
    if (d.out.find("isolation: NONE") != std::string::npos)
      GTEST_SKIP() << "this system refuses private network namespaces: " << d.out;
  }
  Attacker attacker;
  int verified = 0;
  for (int ranks : {4, 16, 4, 16, 4}) {
    Cli c({"run", "--backend", "gloo", "--ranks", std::to_string(ranks), "--op", "all_to_all"});
    EXPECT_EQ(c.wait(), 0) << "N = " << ranks << ": " << c.err;
    EXPECT_NE(c.out.find("\nverified"), std::string::npos) << c.out.substr(0, 400);
    verified += c.code == 0 && c.out.find("\nverified") != std::string::npos;
  }
  const int taken = attacker.stop();
  std::printf("%d of 5 runs verified; the attacker reached %d of the groups' ports\n", verified,
              taken);
  EXPECT_EQ(taken, 0) << "the attacker reached a rank's port";
}

// Without the private network the same attacker does reach the ports (so
// the test above is not passing vacuously), and the run says it is exposed.
TEST_F(Isolation, WithoutThePrivateNetworkTheAttackerReachesThePorts) {
  ::setenv("COLLVIZ_NO_NETNS", "1", 1);
  Attacker attacker;
  int verified = 0;
  std::string said;
  for (int i = 0; i < 3; ++i) {
    Cli c({"run", "--backend", "gloo", "--ranks", "4"});
    verified += c.wait() == 0;
    said += c.out.substr(0, 400) + c.err;
  }
  const int taken = attacker.stop();
  ::unsetenv("COLLVIZ_NO_NETNS");
  std::printf("exposed: %d of 3 runs verified; the attacker reached %d ports\n", verified, taken);
  EXPECT_GT(taken, 0) << "the attacker never reached a port: it tests nothing";
  EXPECT_NE(said.find("NOT isolated"), std::string::npos) << said;
}

}  // namespace
