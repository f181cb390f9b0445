// The MPI listener's peer check (engine/group/mpi_launch.h), without MPI:
// the socket's name is readable in the ranks' argv, so a connection is
// accepted only from our uid (SO_PEERCRED), and a hello is trusted only when
// the pid it names is the peer's own, per the kernel, and a process of this
// job. Issue 39: removing the uid check passed every MPI test, and the
// hello's pid was trusted as sent.
#include <gmock/gmock.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/group/mpi_launch.h"

namespace collviz {
namespace {

using ::testing::HasSubstr;

std::string hello(int rank, long pid) {
  return nlohmann::json{{"type", "hello"}, {"rank", rank}, {"pid", pid}}.dump();
}

// The connection waiting on `l`, accepted (within 2 s).
Result<MpiPeer> acceptOne(MpiListener& l) {
  pollfd p{l.fd(), POLLIN, 0};
  if (::poll(&p, 1, 2000) != 1) return Error{say("nothing connected")};
  return l.accept();
}

TEST(MpiPeer, OurOwnUidIsAcceptedWithTheKernelsPid) {
  auto l = MpiListener::open();
  ASSERT_TRUE(l) << l.error().message;
  auto ch = connectBack(l->name());
  ASSERT_TRUE(ch) << ch.error().message;
  auto peer = acceptOne(*l);
  ASSERT_TRUE(peer) << peer.error().message;
  EXPECT_EQ(peer->pid, ::getpid());
  EXPECT_EQ(peer->uid, ::getuid());
}

// A listener that accepts only another uid sees us as a stranger: the uid
// check refuses without a second user.
TEST(MpiPeer, AnotherUidIsRefused) {
  auto l = MpiListener::open(::getuid() + 1);
  ASSERT_TRUE(l) << l.error().message;
  auto ch = connectBack(l->name());
  ASSERT_TRUE(ch) << ch.error().message;
  auto peer = acceptOne(*l);
  ASSERT_FALSE(peer) << "a connection of uid " << ::getuid() << " was accepted by a listener for uid "
                     << ::getuid() + 1;
  EXPECT_EQ(peer.error().message, "refused a connection from uid " + std::to_string(::getuid()) + " (pid " +
                                      std::to_string(::getpid()) + ")");
}

// As root, a real second user: a child that drops to nobody and connects.
TEST(MpiPeer, AnotherUsersConnectionIsRefused) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to connect as another user";
  auto l = MpiListener::open();
  ASSERT_TRUE(l) << l.error().message;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    auto ch = connectBack(l->name());
    if (!ch) ::_exit(4);
    ch->send(hello(0, ::getpid()));
    ::pause();  // until killed: the connection stays open
    ::_exit(0);
  }
  auto peer = acceptOne(*l);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_FALSE(peer) << "nobody's connection was accepted";
  EXPECT_THAT(peer.error().message, HasSubstr("refused a connection from uid 65534 (pid " + std::to_string(child)));
}

TEST(MpiPeer, AHelloIsTrustedOnlyFromItsOwnProcessInTheJob) {
  const pid_t me = ::getpid(), job = ::getppid();  // this test is its parent's child, as a rank is mpirun's
  auto ok = checkHello(hello(2, me), me, job, 4);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok, 2);
  // A pid that is not the peer's own: refused, whatever it names.
  auto forged = checkHello(hello(2, me + 1), me, job, 4);
  ASSERT_FALSE(forged) << "a hello naming pid " << me + 1 << " from pid " << me << " was trusted";
  EXPECT_EQ(forged.error().message, "refused a hello from pid " + std::to_string(me) + ": it says pid " +
                                        std::to_string(me + 1) + " (a hello names its own process)");
  auto nameless = checkHello(R"({"type": "hello", "rank": 2})", me, job, 4);
  ASSERT_FALSE(nameless);
  EXPECT_THAT(nameless.error().message, HasSubstr("it says pid -1"));
  // Its own pid, but not a process of this job.
  auto stranger = checkHello(hello(2, me), me, job + 100000, 4);
  ASSERT_FALSE(stranger);
  EXPECT_THAT(stranger.error().message, HasSubstr("not a process of this job (mpirun is pid "));
  auto rank = checkHello(hello(4, me), me, job, 4);
  ASSERT_FALSE(rank);
  EXPECT_THAT(rank.error().message, HasSubstr("rank 4 is not one of the job's (0 to 3)"));
  auto junk = checkHello("{\"type\": \"exit\"}", me, job, 4);
  ASSERT_FALSE(junk);
  EXPECT_THAT(junk.error().message, HasSubstr("its first message is not a hello"));
}

// Through the socket: the pid a hello says is compared with the one the
// kernel gives the listener.
TEST(MpiPeer, AForgedPidThroughTheSocketIsRefused) {
  auto l = MpiListener::open();
  ASSERT_TRUE(l) << l.error().message;
  auto ch = connectBack(l->name());
  ASSERT_TRUE(ch) << ch.error().message;
  ASSERT_TRUE(ch->send(hello(0, 1)));  // claims to be init
  auto peer = acceptOne(*l);
  ASSERT_TRUE(peer) << peer.error().message;
  auto msg = peer->ch.recv(std::chrono::milliseconds(2000));
  ASSERT_TRUE(msg) << msg.error().message;
  auto r = checkHello(msg->body, peer->pid, ::getppid(), 4);
  ASSERT_FALSE(r) << "the hello's pid 1 was trusted over the peer's " << peer->pid;
  EXPECT_THAT(r.error().message, HasSubstr("it says pid 1 (a hello names its own process)"));
}

}  // namespace
}  // namespace collviz
