// Figures, not a test: a 64-rank job's Flight Recorder dumps (20 000
// entries a rank, pickled as PyTorch writes them: tests/engine/job/
// fr_writer.h) read and analysed by engine/job, in a fresh child process a
// round so each round's peak RSS is its own. Aim: <= 2 s, memory bounded
// (a little over the calls kept: ~100 B an entry, the files read a few at a
// time, never all at once).
//   job_bench [ranks] [entries] [rounds] [dir]   (64 20000 3 /tmp; the dumps are written to a folder there and removed)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/job/job.h"
#include "tests/bench/job_dumps.h"

namespace {

using namespace collviz;
namespace fs = std::filesystem;

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::atoi(argv[1]) : 64;
  const int entries = argc > 2 ? std::atoi(argv[2]) : 20000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  const fs::path dir = fs::path(argc > 4 ? argv[4] : "/tmp") / ("collviz_job_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::int64_t bytes = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < ranks; ++r) {
    const std::string p = test::pickleDump(test::benchDump(r, ranks, entries));
    bytes += std::int64_t(p.size());
    std::ofstream(dir / ("_dump_" + std::to_string(r)), std::ios::binary) << p;
  }
  std::printf("wrote %d dumps x %d entries: %.1f MB in %.1f s (%s)\n", ranks, entries, double(bytes) / 1e6, seconds(t0), dir.c_str());
  double best = 1e9;
  for (int round = 1; round <= rounds; ++round) {
    int fd[2];
    if (::pipe(fd) != 0) return 1;
    const pid_t child = ::fork();
    if (child == 0) {  // read and analyse; the time through the pipe
      ::close(fd[0]);
      const auto t = std::chrono::steady_clock::now();
      auto job = job::read({dir.string()});
      if (!job) {
        std::fprintf(stderr, "read: %s\n", job.error().message.c_str());
        std::_Exit(1);
      }
      const double readS = seconds(t);
      const job::Analysis a = job::analyse(*job);
      const double totalS = seconds(t);
      char line[1024];
      const int n = std::snprintf(line, sizeof line, "%.3f %.3f %zu %zu|%s", readS, totalS, job->calls.size(), a.findings.size(),
                                  std::string(a.verdict).c_str());
      if (::write(fd[1], line, std::size_t(n)) != n) std::_Exit(1);
      std::_Exit(0);
    }
    ::close(fd[1]);
    char buf[1024] = {0};
    const ssize_t got = ::read(fd[0], buf, sizeof buf - 1);
    ::close(fd[0]);
    int status = 0;
    rusage ru{};
    ::wait4(child, &status, 0, &ru);
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "round %d failed\n", round);
      fs::remove_all(dir);
      return 1;
    }
    double readS = 0, totalS = 0;
    std::size_t calls = 0, findings = 0;
    std::sscanf(buf, "%lf %lf %zu %zu", &readS, &totalS, &calls, &findings);
    best = std::min(best, totalS);
    std::printf("round %d: read %.3f s, analysed %.3f s, total %.3f s (%.0f MB/s); %zu calls, %zu findings; peak RSS %.0f MB\n", round, readS,
                totalS - readS, totalS, double(bytes) / 1e6 / totalS, calls, findings, double(ru.ru_maxrss) / 1024.0);
    if (round == 1) std::printf("  verdict: %s\n", std::strchr(buf, '|') ? std::strchr(buf, '|') + 1 : "?");
  }
  if (std::getenv("COLLVIZ_JOB_BENCH_KEEP")) std::printf("kept %s (COLLVIZ_JOB_BENCH_KEEP)\n", dir.c_str());
  else fs::remove_all(dir);
  std::printf("best of %d: %.3f s for %d ranks x %d entries (aim: <= 2 s)\n", rounds, best, ranks, entries);
  return 0;
}
