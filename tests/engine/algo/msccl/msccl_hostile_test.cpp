// Hostile MSCCL files at the reader: each is refused with FILE:LINE and its
// reason before anything is sized by it (bounded time), a non-regular file
// is refused without waiting, every message is printable UTF-8, the
// dependency check is linear, and nop steps are ordering edges.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "engine/algo/msccl/msccl.h"
#include "engine/algo/reference.h"
#include "engine/group/memory_budget.h"
#include "tests/engine/algo/msccl/msccl_hostile.h"

namespace collviz::test {
namespace {

namespace fs = std::filesystem;

// `read` in a child under a 2 GiB address space and a 10 s alarm: what it
// said (the error, or "ok"), or how it died.
template <typename Read>
std::string inChild(Read read) {
  int fd[2];
  if (::pipe(fd) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fd[0]);
    rlimit as{rlim_t(2) << 30, rlim_t(2) << 30};
    ::setrlimit(RLIMIT_AS, &as);
    ::alarm(10);
    const std::string said = read();
    (void)!::write(fd[1], said.data(), said.size());
    ::_exit(0);
  }
  ::close(fd[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd[0], buf, sizeof buf)) > 0;) said.append(buf, std::size_t(n));
  ::close(fd[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) return "killed by signal " + std::to_string(WTERMSIG(st));
  return said;
}

std::string readSays(const std::string& path, std::int64_t max_chunks = algo::kMscclMaxChunks) {
  return inChild([&] {
    auto a = algo::readMscclFile(path, 0, 0, max_chunks);
    return a ? std::string("ok") : a.error().message;
  });
}

TEST(MscclHostile, EveryBreakIsRefusedWithFileLine) {
  TempDir t;
  int k = 0;
  for (const Hostile& h : hostileFiles()) {
    SCOPED_TRACE(h.name);
    const std::string path = t.write("h" + std::to_string(k++) + ".xml", h.text);
    const auto start = std::chrono::steady_clock::now();
    const std::string said = readSays(path);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(said.rfind(path + ":" + std::to_string(h.line) + ": ", 0), 0u) << said;
    EXPECT_NE(said.find(h.words), std::string::npos) << said;
    EXPECT_TRUE(printableUtf8(said)) << said;
    EXPECT_LT(s, 2.0) << said;
  }
}

TEST(MscclHostile, ChunkCapComesFromTheBudget) {
  TempDir t;
  const std::string p = t.write("s1e7.xml", changed(ringText(), R"(s_chunks="0")", R"(s_chunks="10000000")"));
  const std::string said = readSays(p, 1000000);
  EXPECT_EQ(said.rfind(p + ":2: gpu 0: i_chunks + o_chunks + s_chunks = 10000008; allowed: up to 1000000", 0), 0u)
      << said;
  EXPECT_EQ(readSays(goodFixture("ring_allreduce_4_1ch.xml"), 8), "ok");
}

TEST(MscclHostile, FilesThatAreNotRegularAreRefusedAtOnce) {
  TempDir t;
  const std::string fifo = (t.dir / "fifo.xml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string zero = (t.dir / "zero.xml").string();
  fs::create_symlink("/dev/zero", zero);
  const std::string empty = t.write("empty.xml", "");
  const std::string big = t.write("big.xml", "");
  fs::resize_file(big, (std::uintmax_t(64) << 20) + 1);  // sparse: never read
  const std::pair<std::string, std::string> cases[] = {
      {fifo, fifo + ": is not a regular file"},
      {zero, zero + ": is not a regular file"},
      {t.dir.string(), t.dir.string() + ": is a directory"},
      {"", "the algorithm file's path is empty"},
      {empty, empty + ": is empty"},
      {big, big + ": the algorithm file is 67108865 bytes; allowed: up to 64 MiB"},
  };
  for (const auto& [path, words] : cases) {
    SCOPED_TRACE(path);
    const auto start = std::chrono::steady_clock::now();
    const std::string said = readSays(path);
    EXPECT_EQ(said.rfind(words, 0), 0u) << said;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  }
}

TEST(MscclHostile, PathsAreShownPrintable) {
  TempDir t;
  const std::string p = (t.dir / "x\xff\x1b[2J.xml").string();
  const std::string said = readSays(p);
  EXPECT_TRUE(printableUtf8(said)) << said;
  EXPECT_NE(said.find("x\\xff\\x1b[2J.xml: cannot open"), std::string::npos) << said;
}

TEST(MscclHostile, InPlaceAllGatherMayOmitTheOutput) {
  auto a = algo::readMscclFile(goodFixture("ring_allgather_4_inplace.xml"));
  ASSERT_TRUE(a) << a.error().message;
  auto sch = algo::lowerMscclFile(*a, fixtureSpec(*a, 1));
  ASSERT_TRUE(sch) << sch.error().message;
  EXPECT_TRUE(algo::matchesOracle(*sch, algo::simulate(*sch)));
}

TEST(MscclHostile, DependencyCheckIsLinear) {
  TempDir t;
  const std::string p = t.write("chain.xml", chainFile(100000));
  // CPU time: the figure that grows with the work (wall time on a shared
  // machine also counts the others' builds).
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu = std::clock();
  auto a = algo::readMscclFile(p);
  const double c = double(std::clock() - cpu) / CLOCKS_PER_SEC;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(a) << a.error().message;
  std::printf("a chain of 100000 nop steps across threadblocks: read and checked in %.3f s CPU (%.3f s wall)\n", c, s);
  EXPECT_LT(c, 1.0);
}

TEST(MscclHostile, NopsAreOrderingEdges) {
  // An LL, 2-channel file with cnt="0" nops, as the runtime writes them, reads.
  auto a = algo::readMscclFile(goodFixture("ring_allreduce_4_ll_nop.xml"));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->proto, "LL");
  EXPECT_EQ(a->nchannels, 2);
  EXPECT_EQ(a->nchunksperloop, 32);
  // A nop is an edge: one that waits on a step waiting on it is a cycle.
  std::string ring = ringText();
  const std::string first = R"(<step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1")";
  ring = changed(ring, first, R"(<step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="1" deps="0")");
  ring = changed(ring, "  </gpu>",
                 "    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\"><step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" depid=\"0\" deps=\"0\" hasdep=\"1\"/></tb>\n  </gpu>");
  TempDir t;
  const std::string p = t.write("nop_cycle.xml", ring);
  auto c = algo::readMscclFile(p);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("dependency cycle"), std::string::npos) << c.error().message;
}

// A suggestion the file takes: a multiple of its chunks per block that
// fits, tried before it is printed, or none at all.
TEST(MscclHostile, MemorySuggestionIsAMultipleOfTheChunksPerBlock) {
  const std::string said = inChild([] {
    OpSpec s;
    s.op = Op::all_reduce;
    s.ranks = 4;
    s.elems = 250000LL * 4000;
    std::string out;
    for (int parts : {250000, 1 << 28}) {
      Status st = checkRoundsMemory(s, 8, false, false, parts);
      if (st) return std::string("fits");
      out += st.error().message + "\n";
      const std::size_t at = st.error().message.find("the largest that fits is --elems ");
      if (at != std::string::npos) {
        OpSpec t = s;
        t.elems = std::stoll(st.error().message.substr(at + 33));
        out += t.elems % parts == 0 && checkRoundsMemory(t, 8, false, false, parts) ? "suggestion fits\n"
                                                                                     : "suggestion refused\n";
      }
    }
    return out;
  });
  EXPECT_NE(said.find("suggestion fits"), std::string::npos) << said;
  EXPECT_EQ(said.find("suggestion refused"), std::string::npos) << said;
  EXPECT_NE(said.find("not even --elems 268435456 (the algorithm's 268435456 chunks per block) fits"), std::string::npos)
      << said;
}

}  // namespace
}  // namespace collviz::test
