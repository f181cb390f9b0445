// The NCCL tap's benchmark loop (tests/bench/nccl_tap_bench.sh): N rank
// processes (forked, one NCCL_HOSTID each) on the stand-in CUDA runtime and
// NCCL (a test double on host memory, not a GPU) call ncclAllReduce of 8
// bytes in 50 batches of 1000 calls; rank 0 prints the median over the
// batches of its microseconds a call, of the clock and of its thread's own
// CPU time (which leaves out the time the thread waited for a CPU: on a
// loaded machine the clock's figure is mostly that):
//   enqueue: the calls alone (a synchronisation after each batch, not
//            counted): what a call costs the program's thread
//   sync:    each call followed by cudaStreamSynchronize: the op's whole
//            time (the tap's copies and event included)
//   usage: nccl_tap_bench_loop enqueue|sync N
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double threadCpuUs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e6 + double(t.tv_nsec) / 1e3;
}

int rankMain(bool sync, int rank, int n, const ncclUniqueId& id) {
  ::setenv("NCCL_HOSTID", ("nccl-tap-bench-r" + std::to_string(rank)).c_str(), 1);
  float* d = nullptr;
  cudaStream_t s = nullptr;
  ncclComm_t comm = nullptr;
  if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(reinterpret_cast<void**>(&d), 16) != cudaSuccess ||
      cudaStreamCreate(&s) != cudaSuccess || ncclCommInitRank(&comm, n, id, rank) != ncclSuccess)
    return std::fprintf(stderr, "nccl_tap_bench_loop: rank %d: set-up failed\n", rank), 1;
  constexpr int kBatches = 50, kCalls = 1000;
  std::vector<double> us, cpu;
  for (int b = 0; b < kBatches + 1; ++b) {  // the first batch warms up
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = threadCpuUs();
    for (int i = 0; i < kCalls; ++i) {
      if (ncclAllReduce(d, d + 2, 2, ncclFloat32, ncclSum, comm, s) != ncclSuccess) return 1;
      if (sync && cudaStreamSynchronize(s) != cudaSuccess) return 1;
    }
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = threadCpuUs();
    if (!sync && cudaStreamSynchronize(s) != cudaSuccess) return 1;
    if (b > 0) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kCalls);
    if (b > 0) cpu.push_back((c1 - c0) / kCalls);
  }
  std::sort(us.begin(), us.end());
  std::sort(cpu.begin(), cpu.end());
  if (rank == 0)
    std::printf("nccl_tap_bench_loop %s N=%d: median %.3f us a call, cpu %.3f us\n", sync ? "sync" : "enqueue", n,
                us[us.size() / 2], cpu[cpu.size() / 2]);
  ncclCommDestroy(comm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: nccl_tap_bench_loop enqueue|sync N\n"), 2;
  const bool sync = std::string(argv[1]) == "sync";
  const int n = std::atoi(argv[2]);
  ncclUniqueId id;
  if (n < 1 || n > 8 || ncclGetUniqueId(&id) != ncclSuccess) return 2;
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const pid_t p = ::fork();
    if (p == 0) std::exit(rankMain(sync, r, n, id));
    pids.push_back(p);
  }
  int bad = 0;
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
  }
  return bad;
}
