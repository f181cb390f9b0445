// Figures, not a test: reading a generated NCCL log (1 GiB by default) with
// the reader (engine/job/nccl_log), next to `grep -c 'NCCL INFO'` over the
// same file in the same run. Aim: >= 200 MB/s on one core, >= 0.3x grep.
//   nccl_log_bench [MiB] [dir]   (the file is written to dir, default /tmp, and removed)
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "engine/job/nccl_log/nccl_log.h"

namespace {

long rssKiB() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

// One process of a 16-rank, 2-node run, printed over and over as a long job
// would: init, rings, trees, transports, then tuning and call lines.
std::string block(int k) {
  std::string p = "[2025-03-18 09:54:41] nid007368:43817:" + std::to_string(43892 + k % 4) + " [0] NCCL INFO ";
  std::string s;
  s += p + "comm 0x2cbdc060 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n";
  for (int c = 0; c < 8; ++c) s += p + "Channel " + (c < 10 ? "0" : "") + std::to_string(c) + "/24 :  0  3  2  1  4  7  6  5  8 11 10  9 12 15 14 13\n";
  s += p + "Trees [0] 1/8/-1->0->-1 [1] -1/-1/-1->0->3 [2] 1/-1/-1->0->3 [3] 1/-1/-1->0->3\n";
  for (int c = 0; c < 8; ++c) s += p + "Channel 0" + std::to_string(c) + "/0 : 0[0] -> 1[1] via P2P/CUMEM\n";
  for (int c = 0; c < 4; ++c) s += p + "Channel 0" + std::to_string(c) + "/0 : 8[0] -> 0[0] [receive] via NET/AWS Libfabric/1/GDRDMA(PCI)\n";
  s += p + "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 2 p2p channels per peer\n";
  s += p + "Bootstrap timings total 0.055293 (create 0.000029, send 0.000096, recv 0.000076, ring 0.000757, delay 0.000001)\n";
  for (int i = 0; i < 30; ++i) {
    s += p + "AllReduce: " + std::to_string(1 << (10 + i % 20)) + " Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}\n";
    s += p + "AllReduce: opCount " + std::to_string(i) + " sendbuff 0x720000000 recvbuff 0x920000000 count 4194304 datatype 7 op 0 root 0 comm 0x2cbdc060 [nranks=16] stream 0x55b6a98daaf0\n";
  }
  s += "#  out-of-place in-place  size  count  type  redop  root  time  algbw  busbw\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::atol(argv[1]) : 1024;
  const std::string dir = argc > 2 ? argv[2] : "/tmp";
  const std::string path = dir + "/collviz_nccl_log_bench_" + std::to_string(::getpid()) + ".log";
  {
    std::ofstream out(path, std::ios::binary);
    std::string chunk;
    for (int k = 0; chunk.size() < (4u << 20); ++k) chunk += block(k);
    for (long written = 0; written < mib << 20; written += long(chunk.size())) out.write(chunk.data(), std::streamsize(chunk.size()));
  }
  // Written back before either reads it: the disk's writeback of the fresh
  // file would otherwise run during the first reader's time only.
  if (int fd = ::open(path.c_str(), O_RDONLY); fd >= 0) ::fsync(fd), ::close(fd);
  const double bytes = double(std::filesystem::file_size(path));
  // Once to warm the page cache, for both.
  std::string grep = "grep -c 'NCCL INFO' '" + path + "' > /dev/null";
  if (std::system(grep.c_str()) != 0) std::fprintf(stderr, "grep failed\n");
  // Three rounds, the reader then grep in each: the best of each (a shared
  // 2-core machine's noise only ever adds time), every round printed.
  std::optional<collviz::Result<collviz::nccl_log::Log>> log;
  long long grepCount = -1;
  double rs = 1e30, gs = 1e30;
  for (int round = 1; round <= 3; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    log.emplace(collviz::nccl_log::read({path}));
    auto t1 = std::chrono::steady_clock::now();
    FILE* g = ::popen(("grep -c 'NCCL INFO' '" + path + "'").c_str(), "r");
    if (g) {
      if (std::fscanf(g, "%lld", &grepCount) != 1) grepCount = -1;
      ::pclose(g);
    }
    auto t2 = std::chrono::steady_clock::now();
    const double r = std::chrono::duration<double>(t1 - t0).count(), gr = std::chrono::duration<double>(t2 - t1).count();
    std::printf("round %d: nccl_log::read %.2f s (%.0f MB/s), grep -c %.2f s (%.0f MB/s): %.2fx\n", round, r,
                bytes / 1e6 / r, gr, bytes / 1e6 / gr, gr / r);
    rs = std::min(rs, r), gs = std::min(gs, gr);
    if (!log->ok()) break;
  }
  std::filesystem::remove(path);
  if (!log->ok()) {
    std::fprintf(stderr, "read failed: %s\n", log->error().message.c_str());
    return 1;
  }
  const double mbR = bytes / 1e6 / rs, mbG = bytes / 1e6 / gs;
  const auto& counts = (*log)->counts;
  std::printf("file: %.0f MB, %lld lines, %lld NCCL INFO (grep -c: %lld)\n", bytes / 1e6, static_cast<long long>(counts.lines),
              static_cast<long long>(counts.info), grepCount);
  std::printf("nccl_log::read, best of 3: %.2f s, %.0f MB/s\n", rs, mbR);
  std::printf("grep -c 'NCCL INFO', best of 3: %.2f s, %.0f MB/s\n", gs, mbG);
  std::printf("reader / grep: %.2fx   (aim: >= 200 MB/s, >= 0.3x)\n", mbR / mbG);
  std::printf("peak resident memory: %ld MiB\n", rssKiB() / 1024);
  return counts.info == grepCount ? 0 : 2;
}
