// A seeded mutation fuzzer over the good MSCCL fixtures: 2000 mutants (an
// attribute set to a hostile value or dropped, a line dropped, doubled or
// swapped, a byte flipped or inserted, the file cut short), each read,
// lowered and simulated in a child under a 2 GiB address space and a 10 s
// alarm. Every mutant must end as accepted (0) or refused with a printable
// message naming the file (2), never by a signal, and all in under 60 s.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "engine/algo/msccl/msccl.h"
#include "engine/algo/reference.h"
#include "tests/engine/algo/msccl/msccl_hostile.h"

namespace collviz::test {
namespace {

const char* const kValues[] = {"-1", "0", "1", "2", "3", "7", "16", "17", "-2147483648", "2147483647",
                               "2147483648", "99999999999", "", "x", "1e3", " 1", "0x10", "&#27;",
                               "&#10;", "\xff", "s", "i", "o", "nop", "rrcs", "LL", "custom"};

std::string mutate(std::string text, std::mt19937& rng) {
  auto pick = [&](std::size_t n) { return std::size_t(rng() % std::max<std::size_t>(1, n)); };
  // Attribute values: the spans between ="...".
  std::vector<std::pair<std::size_t, std::size_t>> values;
  for (std::size_t at = text.find("=\""); at != std::string::npos; at = text.find("=\"", at + 2)) {
    const std::size_t end = text.find('"', at + 2);
    if (end == std::string::npos) break;
    values.push_back({at + 2, end});
  }
  std::vector<std::size_t> lines{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') lines.push_back(i + 1);
  const int edits = 1 + int(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 8) {
      case 0:
      case 1:
      case 2: {  // a hostile value
        if (values.empty()) break;
        const auto [b, en] = values[pick(values.size())];
        if (en > text.size()) break;
        text.replace(b, en - b, kValues[pick(std::size(kValues))]);
        return text;  // offsets are stale now
      }
      case 3: {  // drop an attribute
        if (values.empty()) break;
        const auto [b, en] = values[pick(values.size())];
        std::size_t start = text.rfind(' ', b);
        if (start == std::string::npos || en >= text.size()) break;
        text.erase(start, en + 1 - start);
        return text;
      }
      case 4: {  // drop or double a line
        const std::size_t l = pick(lines.size() - 1);
        const std::string line = text.substr(lines[l], lines[l + 1] - lines[l]);
        if (rng() % 2) text.erase(lines[l], line.size());
        else text.insert(lines[l], line);
        return text;
      }
      case 5: {  // swap two lines
        const std::size_t a = pick(lines.size() - 1), b = pick(lines.size() - 1);
        if (a == b) break;
        const std::size_t x = std::min(a, b), y = std::max(a, b);
        const std::string lx = text.substr(lines[x], lines[x + 1] - lines[x]);
        const std::string ly = text.substr(lines[y], lines[y + 1] - lines[y]);
        text = text.substr(0, lines[x]) + ly + text.substr(lines[x + 1], lines[y] - lines[x + 1]) + lx +
               text.substr(lines[y + 1]);
        return text;
      }
      case 6: {  // flip or insert a byte
        const std::size_t i = pick(text.size());
        if (rng() % 2) text[i] = char(rng() % 256);
        else text.insert(i, 1, "\xff\x00\x1b<>&\"'"[pick(8)]);
        break;
      }
      case 7:  // cut short
        text.resize(pick(text.size()));
        return text;
    }
  }
  return text;
}

enum Outcome { accepted = 0, refused = 2, bad_message = 3 };

TEST(MscclFuzz, TwoThousandMutantsEndAcceptedOrRefused) {
  std::vector<std::string> seeds;
  for (const std::string& p : goodFixtures()) seeds.push_back(readAll(p));
  ASSERT_FALSE(seeds.empty());
  // COLLVIZ_FUZZ_MUTANTS / COLLVIZ_FUZZ_SEED run a longer campaign by hand.
  const char* n_env = std::getenv("COLLVIZ_FUZZ_MUTANTS");
  const char* seed_env = std::getenv("COLLVIZ_FUZZ_SEED");
  const int kMutants = n_env ? std::atoi(n_env) : 2000;
  const unsigned seed = seed_env ? unsigned(std::atoi(seed_env)) : 38;
  std::mt19937 rng(seed);
  int counts[4] = {0, 0, 0, 0}, signals = 0, others = 0;
  std::vector<std::string> found;
  const auto start = std::chrono::steady_clock::now();
  for (int m = 0; m < kMutants; ++m) {
    const std::string text = mutate(seeds[std::size_t(m) % seeds.size()], rng);
    const std::string path = "mutant" + std::to_string(m) + ".xml";
    const pid_t pid = ::fork();
    if (pid == 0) {
      rlimit as{rlim_t(2) << 30, rlim_t(2) << 30};
      ::setrlimit(RLIMIT_AS, &as);
      ::alarm(10);
      auto a = algo::parseMscclText(path, text);
      if (!a) {
        const std::string& msg = a.error().message;
        const bool named = msg.rfind(path + ":", 0) == 0;
        ::_exit(named && printableUtf8(msg) ? refused : bad_message);
      }
      auto sch = algo::lowerMscclFile(*a, fixtureSpec(*a, a->parts * 2));
      if (!sch) ::_exit(bad_message);
      ::_exit(algo::matchesOracle(*sch, algo::simulate(*sch)) ? accepted : bad_message);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) {
      ++signals;
      if (found.size() < 5) found.push_back("mutant " + std::to_string(m) + ": signal " + std::to_string(WTERMSIG(st)));
    } else if (WEXITSTATUS(st) <= 3) {
      ++counts[WEXITSTATUS(st)];
      if (WEXITSTATUS(st) == bad_message && found.size() < 5) found.push_back("mutant " + std::to_string(m) + ": bad message");
    } else {
      ++others;
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d mutants (seed %u) in %.1f s: %d accepted, %d refused with FILE:LINE, %d bad messages, %d signals\n",
              kMutants, seed, s, counts[accepted], counts[refused], counts[bad_message], signals);
  for (const std::string& f : found) std::printf("  %s\n", f.c_str());
  EXPECT_EQ(signals, 0);
  EXPECT_EQ(counts[bad_message], 0);
  EXPECT_EQ(others, 0);
  if (!n_env) EXPECT_LT(s, 60.0);
}

}  // namespace
}  // namespace collviz::test
