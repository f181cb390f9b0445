// An NCCL program of our own for `collviz watch` (issue 59): the ranks of
// tests/gpu/watch_torch.py's job without PyTorch. Each step an all_reduce of
// --count float32 (in place) and an all_gather of --gather float32 a rank,
// with the values watch_torch.py computes (value, gather_value there), so
// its `check` reads either program's capture. Host code only.
//
//   nccl-watch-ranks --rank R --ranks N DIR [options]   one rank (a launcher starts N)
//   nccl-watch-ranks --ranks N DIR [options]            forks the N ranks itself
// options: --steps S (45), --count C (1048576), --gather G (262144),
//          --skip R:K  rank R leaves out its all_reduce of step K and then
//                      waits, outside NCCL, until it is killed (a hang)
// DIR: rank 0 writes the ncclUniqueId there (nccl-id), the others read it
// (within 60 s). All ranks on device 0: each needs its own NCCL_HOSTID
// (the forking form sets it to "nccl-watch-R"). Prints a line a rank,
// {"rank": R, "step_s": the median step time}, and exits 0 when every
// all_reduce's first element is the sum it should be. On a GPU it is a
// real NCCL program; in the tests it runs on the stand-in (tests/standin).
#include <cuda_runtime.h>
#include <nccl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Args {
  int rank = -1, ranks = 2, steps = 45, skipRank = -1, skipStep = -1;
  size_t count = size_t(1) << 20, gather = size_t(1) << 18;
  std::string dir;
};

float value(int rank, int step, size_t i) { return float((i % 97) + 1000 * size_t(rank) + size_t(step)); }
float gatherValue(int rank, int step, size_t i) { return float((i % 89) + 100000 * size_t(rank) + 7 * size_t(step)); }

#define CHECK(call, ok, what)                                                              \
  do {                                                                                     \
    auto r_ = (call);                                                                      \
    if (!(ok)) {                                                                           \
      std::fprintf(stderr, "rank %d: %s failed: %s\n", a.rank, #call, what(r_));           \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)
#define CUDA(call) CHECK(call, r_ == cudaSuccess, cudaGetErrorString)
#define NCCL(call) CHECK(call, r_ == ncclSuccess, ncclGetErrorString)

// The unique id: rank 0 writes it (whole, then renamed), the others wait for it.
bool uniqueId(const Args& a, ncclUniqueId* id) {
  const std::string path = a.dir + "/nccl-id";
  if (a.rank == 0) {
    if (ncclGetUniqueId(id) != ncclSuccess) return false;
    std::ofstream(path + ".tmp", std::ios::binary).write(id->internal, sizeof id->internal);
    return std::rename((path + ".tmp").c_str(), path.c_str()) == 0;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream f(path, std::ios::binary);
    if (f.read(id->internal, sizeof id->internal)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling for a file rank 0 writes
  }
  return false;
}

int runRank(const Args& a) {
  ncclUniqueId id;
  if (!uniqueId(a, &id)) {
    std::fprintf(stderr, "rank %d: no ncclUniqueId in %s/nccl-id\n", a.rank, a.dir.c_str());
    return 1;
  }
  CUDA(cudaSetDevice(0));
  cudaStream_t s;
  CUDA(cudaStreamCreate(&s));
  ncclComm_t comm;
  NCCL(ncclCommInitRank(&comm, a.ranks, id, a.rank));
  float *x, *g, *out;
  CUDA(cudaMalloc(&x, a.count * 4));
  CUDA(cudaMalloc(&g, a.gather * 4));
  CUDA(cudaMalloc(&out, a.gather * 4 * size_t(a.ranks)));
  std::vector<float> hx(a.count), hg(a.gather);
  std::vector<double> times;
  for (int step = 0; step < a.steps; ++step) {
    for (size_t i = 0; i < a.count; ++i) hx[i] = value(a.rank, step, i);
    for (size_t i = 0; i < a.gather; ++i) hg[i] = gatherValue(a.rank, step, i);
    CUDA(cudaMemcpy(x, hx.data(), a.count * 4, cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(g, hg.data(), a.gather * 4, cudaMemcpyHostToDevice));
    if (a.rank == a.skipRank && step == a.skipStep) {
      std::printf("nccl-watch-ranks: rank %d leaves out its all_reduce of step %d and waits\n", a.rank, step);
      std::fflush(stdout);
      for (;;) ::pause();  // until killed: the others wait in the all_reduce
    }
    const auto t = std::chrono::steady_clock::now();
    NCCL(ncclAllReduce(x, x, a.count, ncclFloat32, ncclSum, comm, s));
    NCCL(ncclAllGather(g, out, a.gather, ncclFloat32, comm, s));
    CUDA(cudaStreamSynchronize(s));
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    float first = 0;
    CUDA(cudaMemcpy(&first, x, 4, cudaMemcpyDeviceToHost));
    float want = 0;
    for (int r = 0; r < a.ranks; ++r) want += value(r, step, 0);
    if (first != want) {
      std::fprintf(stderr, "rank %d step %d: all_reduce gave %g, want %g\n", a.rank, step, double(first), double(want));
      return 1;
    }
  }
  NCCL(ncclCommDestroy(comm));
  std::sort(times.begin(), times.end());
  std::printf("{\"rank\": %d, \"step_s\": %.9f, \"steps\": %d}\n", a.rank, times.empty() ? 0.0 : times[times.size() / 2], a.steps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string o = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (o == "--rank" && v) a.rank = std::atoi(v), ++i;
    else if (o == "--ranks" && v) a.ranks = std::atoi(v), ++i;
    else if (o == "--steps" && v) a.steps = std::atoi(v), ++i;
    else if (o == "--count" && v) a.count = std::strtoull(v, nullptr, 10), ++i;
    else if (o == "--gather" && v) a.gather = std::strtoull(v, nullptr, 10), ++i;
    else if (o == "--skip" && v && std::sscanf(v, "%d:%d", &a.skipRank, &a.skipStep) == 2) ++i;
    else if (o[0] != '-' && a.dir.empty()) a.dir = o;
    else {
      std::fprintf(stderr, "nccl-watch-ranks: unknown argument %s; usage: [--rank R] --ranks N DIR [--steps S] "
                           "[--count C] [--gather G] [--skip R:K]\n", o.c_str());
      return 2;
    }
  }
  if (a.dir.empty() || a.ranks < 1 || a.count < 1 || a.gather < 1) {
    std::fprintf(stderr, "nccl-watch-ranks: give DIR, --ranks >= 1, --count and --gather >= 1\n");
    return 2;
  }
  if (a.rank >= 0) return runRank(a);
  // The ranks as forked children (this process never touches CUDA: a context does not survive fork).
  std::vector<pid_t> kids;
  for (int r = 0; r < a.ranks; ++r) {
    const pid_t p = ::fork();
    if (p == 0) {
      a.rank = r;
      const std::string host = "nccl-watch-" + std::to_string(r);
      ::setenv("NCCL_HOSTID", host.c_str(), 1);
      const int rc = runRank(a);
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(rc);
    }
    if (p < 0) return 1;
    kids.push_back(p);
  }
  int rc = 0;
  for (pid_t p : kids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) rc = 1;
  }
  return rc;
}
