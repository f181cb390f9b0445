// Out of memory is a message, never an abort: under `ulimit -v`, a size that
// cannot fit is refused before anything starts (exit 2) with the largest
// size that fits, and that size then runs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <regex>
#include <string>

namespace {

struct Ran {
  int code = -1;
  std::string out;
};

// collviz with `args` under `ulimit -v kb`, stdout discarded, stderr kept.
Ran underLimit(long kb, const std::string& args) {
  const std::string cmd = "ulimit -v " + std::to_string(kb) + " && exec '" COLLVIZ_CLI "' " + args +
                          " 2>&1 >/dev/null";
  Ran r;
  FILE* f = ::popen(("sh -c \"" + cmd + "\"").c_str(), "r");
  if (!f) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
  const int st = ::pclose(f);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

constexpr long kLimitKb = 900000;  // about 880 MiB of address space

TEST(Memory, TooBigIsRefusedWithTheLargestThatFits) {
  for (const char* json : {"", " --json"}) {
    const Ran r = underLimit(kLimitKb, std::string("run --backend gloo --elems 20000000") + json);
    ASSERT_EQ(r.code, 2) << r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("the largest that fits is --elems ([0-9]+)")))
        << r.out;
    EXPECT_NE(r.out.find("ulimit -v"), std::string::npos) << r.out;
    const long long fits = std::stoll(m[1]);
    ASSERT_GT(fits, 1000);
    // A little below what it named (the address space in use varies a bit).
    const Ran ok = underLimit(kLimitKb, "run --backend gloo --elems " + std::to_string(fits * 9 / 10) + json);
    EXPECT_EQ(ok.code, 0) << ok.out;
  }
}

TEST(Memory, BenchRefusesASweepThatCannotFit) {
  const Ran r = underLimit(kLimitKb, "bench --backend gloo -b 1G -e 1G -n 1 -w 0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("use a smaller -e"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("bad_alloc"), std::string::npos) << r.out;
}

}  // namespace
