// A plain NCCL all_reduce bandwidth loop, the yardstick for the engine in
// tests/gpu/device_check.sh: the same ranks, GPUs and environment as collviz
// (engine/group/placement.h), no shared memory, no copies, no verification. Host
// code only (no kernels), so the C++ compiler builds it, not nvcc.
//
//   nccl-allreduce-loop --ranks N [-b 1M] [-e 1G] [-f 4] [-w 5] [-n 20]
//                       [--gpu-sharing host-id|multi-rank] [--json]
//
// The JSON goes to the original stdout; the ranks' stdout is joined to stderr
// first, so NCCL's own lines (NCCL_DEBUG) never mix into it.
//
// Sizes are the all_reduce buffer per rank (as nccl-tests counts them);
// busbw = bytes / time * 2(N-1)/N. One forked process per rank; the parent
// never initialises CUDA (a CUDA context does not survive fork).
#include <cuda_runtime.h>
#include <nccl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/group/placement.h"

namespace {

#define CUDACHECK(cmd)                                                            \
  do {                                                                            \
    cudaError_t e_ = (cmd);                                                       \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "rank %d: %s failed at %s:%d: %s\n", rank, #cmd,      \
                   __FILE__, __LINE__, cudaGetErrorString(e_));                   \
      return 1;                                                                   \
    }                                                                             \
  } while (0)
#define NCCLCHECK(cmd)                                                            \
  do {                                                                            \
    ncclResult_t r_ = (cmd);                                                      \
    if (r_ != ncclSuccess) {                                                      \
      std::fprintf(stderr, "rank %d: %s failed at %s:%d: %s\n", rank, #cmd,      \
                   __FILE__, __LINE__, ncclGetErrorString(r_));                   \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

struct Args {
  int ranks = 4;
  size_t begin = size_t(1) << 20, end = size_t(1) << 30;
  int factor = 4, warmup = 5, iters = 20, timeout_s = 300;
  bool json = false;
  collviz::GpuSharing sharing = collviz::GpuSharing::host_id;
};

size_t parseSize(const char* s) {
  char* e = nullptr;
  double v = std::strtod(s, &e);
  switch (e && *e ? *e : ' ') {
    case 'K': case 'k': v *= 1024; break;
    case 'M': case 'm': v *= 1024 * 1024; break;
    case 'G': case 'g': v *= 1024.0 * 1024 * 1024; break;
  }
  return size_t(v);
}

bool parseArgs(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (k == "--json") { a.json = true; continue; }
    if (!(v = next())) return false;
    if (k == "--ranks" || k == "-N") a.ranks = std::atoi(v);
    else if (k == "-b") a.begin = parseSize(v);
    else if (k == "-e") a.end = parseSize(v);
    else if (k == "-f") a.factor = std::atoi(v);
    else if (k == "--warmup" || k == "-w") a.warmup = std::atoi(v);
    else if (k == "--iters" || k == "-n") a.iters = std::atoi(v);
    else if (k == "--timeout-s") a.timeout_s = std::atoi(v);
    else if (k == "--gpu-sharing" && std::string(v) == "host-id") a.sharing = collviz::GpuSharing::host_id;
    else if (k == "--gpu-sharing" && std::string(v) == "multi-rank") a.sharing = collviz::GpuSharing::multi_rank_gpu;
    else return false;
  }
  return a.ranks >= 1 && a.begin >= 4 && a.end >= a.begin && a.factor >= 2 && a.iters >= 1;
}

// Fewer iterations for big buffers keeps the whole sweep short.
int itersFor(size_t bytes, int iters) {
  return std::clamp(int((size_t(4) << 30) / bytes), 3, iters);
}

int runRank(int rank, const Args& a, int gpu, const std::vector<int>& id_pipes, int id_in,
            FILE* out) {
  CUDACHECK(cudaSetDevice(gpu));
  ncclUniqueId id;
  if (rank == 0) {
    NCCLCHECK(ncclGetUniqueId(&id));
    for (int fd : id_pipes)
      if (write(fd, &id, sizeof id) != ssize_t(sizeof id)) return 1;
  } else if (read(id_in, &id, sizeof id) != ssize_t(sizeof id)) {
    std::fprintf(stderr, "rank %d: no ncclUniqueId from rank 0\n", rank);
    return 1;
  }
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, a.ranks, id, rank));
  float *send = nullptr, *recv = nullptr;
  double* t_dev = nullptr;
  CUDACHECK(cudaMalloc(&send, a.end));
  CUDACHECK(cudaMalloc(&recv, a.end));
  CUDACHECK(cudaMalloc(&t_dev, sizeof(double)));
  CUDACHECK(cudaMemset(send, 0, a.end));
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CUDACHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDACHECK(cudaEventCreate(&start));
  CUDACHECK(cudaEventCreate(&stop));
  const double factor = 2.0 * (a.ranks - 1) / a.ranks;
  if (rank == 0 && a.json) std::fprintf(out, "{\"tool\":\"nccl-allreduce-loop\",\"ranks\":%d,\"rows\":[", a.ranks);
  if (rank == 0)
    std::fprintf(stderr, "%12s %10s %6s %12s %10s %10s\n", "bytes", "count", "iters", "time_us",
                 "algbw GB/s", "busbw GB/s");
  bool first = true;
  for (size_t bytes = a.begin; bytes <= a.end; bytes *= size_t(a.factor)) {
    const size_t count = bytes / sizeof(float);
    const int iters = itersFor(bytes, a.iters), warmup = std::min(a.warmup, iters);
    for (int i = 0; i < warmup; ++i)
      NCCLCHECK(ncclAllReduce(send, recv, count, ncclFloat32, ncclSum, comm, stream));
    CUDACHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < iters; ++i)
      NCCLCHECK(ncclAllReduce(send, recv, count, ncclFloat32, ncclSum, comm, stream));
    CUDACHECK(cudaEventRecord(stop, stream));
    CUDACHECK(cudaStreamSynchronize(stream));
    float ms = 0;
    CUDACHECK(cudaEventElapsedTime(&ms, start, stop));
    // The slowest rank's time, as the collective is only as fast as it.
    // Everything on the NCCL stream: the legacy stream would not order with it.
    double t_us = 1000.0 * ms / iters;
    CUDACHECK(cudaMemcpyAsync(t_dev, &t_us, sizeof t_us, cudaMemcpyHostToDevice, stream));
    NCCLCHECK(ncclAllReduce(t_dev, t_dev, 1, ncclFloat64, ncclMax, comm, stream));
    CUDACHECK(cudaMemcpyAsync(&t_us, t_dev, sizeof t_us, cudaMemcpyDeviceToHost, stream));
    CUDACHECK(cudaStreamSynchronize(stream));
    const double algbw = double(bytes) / t_us / 1e3;  // GB/s
    if (rank == 0) {
      std::fprintf(stderr, "%12zu %10zu %6d %12.1f %10.2f %10.2f\n", bytes, count, iters, t_us,
                   algbw, algbw * factor);
      if (a.json)
        std::fprintf(out, "%s{\"bytes\":%zu,\"count\":%zu,\"iters\":%d,\"time_us\":%.2f,"
                    "\"algbw_gbps\":%.3f,\"busbw_gbps\":%.3f}",
                    first ? "" : ",", bytes, count, iters, t_us, algbw, algbw * factor);
      first = false;
    }
  }
  if (rank == 0 && a.json) std::fprintf(out, "]}\n");
  if (out) std::fflush(out);
  CUDACHECK(cudaFree(send));
  CUDACHECK(cudaFree(recv));
  CUDACHECK(cudaFree(t_dev));
  CUDACHECK(cudaEventDestroy(start));
  CUDACHECK(cudaEventDestroy(stop));
  NCCLCHECK(ncclCommDestroy(comm));
  CUDACHECK(cudaStreamDestroy(stream));
  return 0;
}

// GPU count and NCCL version, asked in a child so the parent stays CUDA-free.
bool probe(int& gpus, int& version) {
  int p[2];
  if (pipe(p) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    int v[2] = {0, 0};
    if (cudaGetDeviceCount(&v[0]) != cudaSuccess) v[0] = 0;
    ncclGetVersion(&v[1]);
    _exit(write(p[1], v, sizeof v) == ssize_t(sizeof v) ? 0 : 1);
  }
  close(p[1]);
  int v[2] = {0, 0};
  const bool ok = read(p[0], v, sizeof v) == ssize_t(sizeof v);
  close(p[0]);
  waitpid(pid, nullptr, 0);
  gpus = v[0];
  version = v[1];
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parseArgs(argc, argv, a)) {
    std::fprintf(stderr, "usage: %s --ranks N [-b 1M] [-e 1G] [-f 4] [--warmup W] [--iters I] "
                 "[--timeout-s S] [--gpu-sharing host-id|multi-rank] [--json]\n", argv[0]);
    return 2;
  }
  int gpus = 0, version = 0;
  if (!probe(gpus, version) || gpus == 0) {
    std::fprintf(stderr, "nccl-allreduce-loop: no CUDA device\n");
    return 3;
  }
  const collviz::PlacementOptions popts{a.sharing};
  const auto place = collviz::placeRanks(a.ranks, collviz::BackendKind::nccl, gpus, version, popts);
  std::fprintf(stderr, "NCCL %s, %d GPU(s), %s\n", collviz::ncclVersionString(version).c_str(),
               gpus,
               collviz::describeTransport(a.ranks, gpus, collviz::effectiveSharing(version, popts))
                   .c_str());
  std::fflush(stdout);
  const int json_fd = dup(STDOUT_FILENO);
  if (json_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return 1;
  std::vector<int> id_read(a.ranks, -1), id_write;
  for (int r = 1; r < a.ranks; ++r) {
    int p[2];
    if (pipe(p) != 0) return 1;
    id_read[r] = p[0];
    id_write.push_back(p[1]);
  }
  std::fflush(stdout);
  std::vector<pid_t> pids;
  for (int r = 0; r < a.ranks; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (const auto& [k, v] : place[r].env) setenv(k.c_str(), v.c_str(), 1);
      FILE* out = r == 0 ? fdopen(json_fd, "w") : nullptr;
      _exit(runRank(r, a, place[r].gpu, r == 0 ? id_write : std::vector<int>{}, id_read[r], out));
    }
    pids.push_back(pid);
  }
  int failed = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(a.timeout_s);
  for (size_t done = 0; done < pids.size();) {
    for (pid_t& pid : pids) {
      int status = 0;
      if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
        pid = -1;
        ++done;
      }
    }
    if (std::chrono::steady_clock::now() > end) {
      std::fprintf(stderr, "nccl-allreduce-loop: timed out after %d s\n", a.timeout_s);
      for (pid_t pid : pids) if (pid > 0) kill(pid, SIGKILL);
      return 4;
    }
    poll(nullptr, 0, 20);
  }
  return failed ? 1 : 0;
}
