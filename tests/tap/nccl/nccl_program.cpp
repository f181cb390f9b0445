// A program of our own making NCCL calls, for the NCCL tap's tests on the
// stand-in CUDA runtime and NCCL (tests/standin: a test double on host
// memory, not a GPU). It forks N rank processes (one NCCL_HOSTID each, so
// they share the stand-in's one device), which join one communicator by a
// unique id made before the fork.
//
//   nccl_program MODE N OUT
//   ops      ncclCommInitRankConfig, every wrapped op, a group of send/recv,
//            a split (color rank % 2, key -rank) and an all-reduce on it
//   hang     two all-reduces; rank 1 skips the second and exits
//   killed   five all-reduces; the stand-in kills rank 1 in the fourth
//            (COLLVIZ_STANDIN_FAULT=r1/ncclAllReduce#4=kill)
//   copyfail  three all-reduces, the program's own copies by cudaMemcpy
//            (so every cudaMemcpyAsync is the tap's: a fault rule fails one)
//   graph    three all-reduces, the second while its stream "captures" (the
//            stand-in has no graphs: it runs, the stream says it captures)
//   types    an all-reduce of 4 zeros in each datatype ncclInt8 to
//            ncclBfloat16, its reduce op sum, prod, max, min in turn; then a
//            group of an all-reduce and a send NCCL refuses (a peer out of
//            range): ncclGroupEnd fails and nothing of the group runs
//
// Each rank writes OUT/rank-R.txt (what it computed: the same with and
// without the tap) and OUT/rank-R.bin: for each call in order, the bytes
// the tap must have kept (tests/tap/nccl/expect.h). Exit status: 0, or the
// first failing step's line. In hang and killed the parent ends the ranks
// left waiting (SIGKILL) once it saw what it waits for, and exits 0.
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/tap/nccl/expect.h"

namespace {

using collviz::tap::Func;

int g_rank = 0, g_n = 0;
std::string g_out;
FILE* g_txt = nullptr;
FILE* g_bin = nullptr;
int g_report = -1;  // the pipe to the parent

[[noreturn]] void die(const char* what, int line) {
  std::fprintf(stderr, "nccl_program rank %d: %s failed (line %d)\n", g_rank, what, line);
  std::_Exit(10);
}
#define CU(x) (((x) == cudaSuccess) ? void() : die(#x, __LINE__))
#define NC(x) (((x) == ncclSuccess) ? void() : die(#x, __LINE__))

float value(int rank, int op, int i) { return float(rank * 1000 + op * 100 + i); }

struct Buf {
  float* d = nullptr;
  std::size_t n = 0;
};
Buf make(std::size_t n, int op, bool fill, bool plain) {
  Buf b;
  b.n = n;
  CU(cudaMalloc(reinterpret_cast<void**>(&b.d), n * 4 + 4));
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = fill ? value(g_rank, op, int(i)) : -1.0f;
  if (plain) CU(cudaMemcpy(b.d, h.data(), n * 4, cudaMemcpyHostToDevice));
  else CU(cudaMemcpyAsync(b.d, h.data(), n * 4, cudaMemcpyHostToDevice, nullptr)), CU(cudaStreamSynchronize(nullptr));
  return b;
}
std::vector<float> read(const Buf& b, std::size_t n) {
  std::vector<float> h(n);
  CU(cudaMemcpy(h.data(), b.d, n * 4, cudaMemcpyDeviceToHost));
  return h;
}

// One call's expectation: its function and the bytes of its input before
// and output after (empty: none kept).
void expect(Func f, const std::vector<float>& in, const std::vector<float>& out) {
  collviz::tap::nccltest::writeExpected(g_bin, f, in, out);
}
void say(const char* what, const std::vector<float>& v) {
  std::fprintf(g_txt, "%s:", what);
  for (float x : v) std::fprintf(g_txt, " %g", double(x));
  std::fprintf(g_txt, "\n");
}
void report(char c) {
  if (g_report >= 0 && ::write(g_report, &c, 1) != 1) die("write", __LINE__);
}

void ops(ncclComm_t w, cudaStream_t s) {
  const int r = g_rank, n = g_n;
  auto sync = [&] { CU(cudaStreamSynchronize(s)); };
  {  // 0: all-reduce, 100 floats (more than the bytes kept)
    Buf a = make(100, 0, true, false), b = make(100, 0, false, false);
    auto in = read(a, 100);
    NC(ncclAllReduce(a.d, b.d, 100, ncclFloat32, ncclSum, w, s));
    sync();
    auto out = read(b, 100);
    expect(Func::nccl_allreduce, in, out), say("allreduce", out);
  }
  {  // 1: all-reduce in place, max
    Buf a = make(8, 1, true, false);
    auto in = read(a, 8);
    NC(ncclAllReduce(a.d, a.d, 8, ncclFloat32, ncclMax, w, s));
    sync();
    auto out = read(a, 8);
    expect(Func::nccl_allreduce, in, out), say("allreduce-inplace", out);
  }
  {  // 2: broadcast from 1
    Buf a = make(8, 2, true, false), b = make(8, 2, false, false);
    auto in = read(a, 8);
    NC(ncclBroadcast(a.d, b.d, 8, ncclFloat32, 1, w, s));
    sync();
    auto out = read(b, 8);
    expect(Func::nccl_broadcast, r == 1 ? in : std::vector<float>{}, out), say("broadcast", out);
  }
  {  // 3: reduce to 0
    Buf a = make(8, 3, true, false), b = make(8, 3, false, false);
    auto in = read(a, 8);
    NC(ncclReduce(a.d, b.d, 8, ncclFloat32, ncclSum, 0, w, s));
    sync();
    auto out = read(b, 8);
    expect(Func::nccl_reduce, in, r == 0 ? out : std::vector<float>{}), say("reduce", out);
  }
  {  // 4: all-gather, 4 each
    Buf a = make(4, 4, true, false), b = make(4 * std::size_t(n), 4, false, false);
    auto in = read(a, 4);
    NC(ncclAllGather(a.d, b.d, 4, ncclFloat32, w, s));
    sync();
    auto out = read(b, 4 * std::size_t(n));
    expect(Func::nccl_allgather, in, out), say("allgather", out);
  }
  {  // 5: reduce-scatter, 4 each
    Buf a = make(4 * std::size_t(n), 5, true, false), b = make(4, 5, false, false);
    auto in = read(a, 4 * std::size_t(n));
    NC(ncclReduceScatter(a.d, b.d, 4, ncclFloat32, ncclSum, w, s));
    sync();
    auto out = read(b, 4);
    expect(Func::nccl_reducescatter, in, out), say("reducescatter", out);
  }
  {  // 6: all-to-all, 2 a peer
    Buf a = make(2 * std::size_t(n), 6, true, false), b = make(2 * std::size_t(n), 6, false, false);
    auto in = read(a, 2 * std::size_t(n));
    NC(ncclAlltoAll(a.d, b.d, 2, ncclFloat32, w, s));
    sync();
    auto out = read(b, 2 * std::size_t(n));
    expect(Func::nccl_alltoall, in, out), say("alltoall", out);
  }
  {  // 7: gather to 0
    Buf a = make(4, 7, true, false), b = make(4 * std::size_t(n), 7, false, false);
    auto in = read(a, 4);
    NC(ncclGather(a.d, b.d, 4, ncclFloat32, 0, w, s));
    sync();
    auto out = read(b, 4 * std::size_t(n));
    expect(Func::nccl_gather, in, r == 0 ? out : std::vector<float>{}), say("gather", out);
  }
  {  // 8: scatter from 1
    Buf a = make(4 * std::size_t(n), 8, true, false), b = make(4, 8, false, false);
    auto in = read(a, 4 * std::size_t(n));
    NC(ncclScatter(a.d, b.d, 4, ncclFloat32, 1, w, s));
    sync();
    auto out = read(b, 4);
    expect(Func::nccl_scatter, r == 1 ? in : std::vector<float>{}, out), say("scatter", out);
  }
  {  // 9, 10: a ring of send/recv in one group (the output copied after ncclGroupEnd)
    Buf a = make(4, 9, true, false), b = make(4, 9, false, false);
    auto in = read(a, 4);
    NC(ncclGroupStart());
    NC(ncclSend(a.d, 4, ncclFloat32, (r + 1) % n, w, s));
    NC(ncclRecv(b.d, 4, ncclFloat32, (r + n - 1) % n, w, s));
    NC(ncclGroupEnd());
    sync();
    auto out = read(b, 4);
    expect(Func::nccl_send, in, {}), expect(Func::nccl_recv, {}, out), say("sendrecv", out);
  }
  {  // a split: color rank % 2, key -rank; an all-reduce on it
    ncclComm_t half = nullptr;
    NC(ncclCommSplit(w, r % 2, -r, &half, nullptr));
    Buf a = make(4, 11, true, false), b = make(4, 11, false, false);
    auto in = read(a, 4);
    NC(ncclAllReduce(a.d, b.d, 4, ncclFloat32, ncclSum, half, s));
    sync();
    auto out = read(b, 4);
    expect(Func::nccl_allreduce, in, out), say("split-allreduce", out);
    NC(ncclCommDestroy(half));
  }
}

// Plain all-reduces of 8 floats; `skip`: this rank leaves out that one
// (1-based); `captured`: that one is made during a stream capture.
void allreduces(ncclComm_t w, cudaStream_t s, int count, int skip, bool plain, int captured = 0) {
  for (int k = 1; k <= count; ++k) {
    if (k == skip) return report('s');
    Buf a = make(8, k, true, plain), b = make(8, k, false, plain);
    auto in = read(a, 8);
    if (k == captured) {
      CU(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
      NC(ncclAllReduce(a.d, b.d, 8, ncclFloat32, ncclSum, w, s));
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(s, &g);  // the stand-in makes no graph: its error read and cleared here
      cudaGetLastError();
      CU(cudaStreamSynchronize(s));
      auto out = read(b, 8);
      expect(Func::nccl_allreduce, {}, {}), say("allreduce", out);
      continue;
    }
    NC(ncclAllReduce(a.d, b.d, 8, ncclFloat32, ncclSum, w, s));
    if (count == 2 && k == 2) report('e');  // hang: in the one rank 1 skips (the tap's record made)
    if (cudaGetLastError() != cudaSuccess) die("cudaGetLastError after ncclAllReduce (the tap's error passed on?)", __LINE__);
    CU(cudaStreamSynchronize(s));
    auto out = read(b, 8);
    expect(Func::nccl_allreduce, in, out), say("allreduce", out);
    std::fflush(g_txt), std::fflush(g_bin);
  }
}

void types(ncclComm_t w, cudaStream_t s) {
  const std::vector<unsigned char> zero(32, 0);
  for (int t = 0; t <= int(ncclBfloat16); ++t) {
    void *a = nullptr, *b = nullptr;
    CU(cudaMalloc(&a, 32)), CU(cudaMalloc(&b, 32));
    CU(cudaMemcpy(a, zero.data(), 32, cudaMemcpyHostToDevice));
    NC(ncclAllReduce(a, b, 4, ncclDataType_t(t), ncclRedOp_t(t % 4), w, s));
    CU(cudaStreamSynchronize(s));
    std::fprintf(g_txt, "type %d reduced\n", t);
  }
  void *a = nullptr, *b = nullptr;
  CU(cudaMalloc(&a, 16)), CU(cudaMalloc(&b, 16));
  NC(ncclGroupStart());
  NC(ncclAllReduce(a, b, 4, ncclFloat32, ncclSum, w, s));
  const ncclResult_t send = ncclSend(a, 4, ncclFloat32, g_n + 5, w, s);
  const ncclResult_t end = ncclGroupEnd();
  if (send == ncclSuccess || end == ncclSuccess) die("a group with a refused send", __LINE__);
  CU(cudaStreamSynchronize(s));
}

int runRank(const std::string& mode, const ncclUniqueId& id) {
  ::setenv("NCCL_HOSTID", ("nccl-program-r" + std::to_string(g_rank)).c_str(), 1);
  g_txt = std::fopen((g_out + "/rank-" + std::to_string(g_rank) + ".txt").c_str(), "w");
  g_bin = std::fopen((g_out + "/rank-" + std::to_string(g_rank) + ".bin").c_str(), "wb");
  if (!g_txt || !g_bin) die("fopen", __LINE__);
  CU(cudaSetDevice(0));
  cudaStream_t s = nullptr;
  CU(cudaStreamCreate(&s));
  ncclComm_t w = nullptr;
  if (mode == "ops") {  // the Config form here, the plain one in the other modes
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    NC(ncclCommInitRankConfig(&w, g_n, id, g_rank, &config));
  } else {
    NC(ncclCommInitRank(&w, g_n, id, g_rank));
  }
  if (mode == "ops") ops(w, s);
  else if (mode == "hang") allreduces(w, s, 2, g_rank == 1 ? 2 : 0, false);
  else if (mode == "killed") allreduces(w, s, 5, 0, false);
  else if (mode == "copyfail") allreduces(w, s, 3, 0, true);
  else if (mode == "graph") allreduces(w, s, 3, 0, false, 2);
  else if (mode == "types") types(w, s);
  std::fclose(g_txt), std::fclose(g_bin);
  if (mode == "hang" && g_rank == 1) std::exit(0);  // gone without a word: the others wait
  NC(ncclCommDestroy(w));
  if (cudaGetLastError() != cudaSuccess) die("cudaGetLastError at the end", __LINE__);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: nccl_program ops|hang|killed|copyfail|graph|types N OUT\n");
    return 2;
  }
  const std::string mode = argv[1];
  g_n = std::atoi(argv[2]);
  g_out = argv[3];
  if (g_n < 2 || g_n > 8) return std::fprintf(stderr, "nccl_program: N from 2 to 8\n"), 2;
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) return std::fprintf(stderr, "nccl_program: ncclGetUniqueId failed\n"), 3;
  int fds[2];
  if (::pipe(fds) != 0) return 3;
  std::vector<pid_t> pids;
  for (int r = 0; r < g_n; ++r) {
    const pid_t pid = ::fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      ::close(fds[0]);
      g_rank = r, g_report = fds[1];
      std::exit(runRank(mode, id));
    }
    pids.push_back(pid);
  }
  ::close(fds[1]);
  int bad = 0;
  if (mode == "hang") {
    // Every rank said where it is (ranks but 1 entered the second all-reduce,
    // rank 1 skipped it) and rank 1 ended: the rest wait forever.
    for (int said = 0; said < g_n;) {
      char c;
      if (::read(fds[0], &c, 1) != 1) return std::fprintf(stderr, "nccl_program: a rank ended early\n"), 4;
      ++said;
    }
    int st = 0;
    ::waitpid(pids[1], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) bad = 1;
    for (int r = 0; r < g_n; ++r)
      if (r != 1) ::kill(pids[std::size_t(r)], SIGKILL), ::waitpid(pids[std::size_t(r)], &st, 0);
    return bad;
  }
  if (mode == "killed") {
    int st = 0;
    ::waitpid(pids[1], &st, 0);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) return std::fprintf(stderr, "nccl_program: rank 1 was not killed\n"), 5;
    for (int r = 0; r < g_n; ++r)
      if (r != 1) ::kill(pids[std::size_t(r)], SIGKILL), ::waitpid(pids[std::size_t(r)], &st, 0);
    return 0;
  }
  // A rank that failed leaves its peers waiting in a collective: they are
  // ended, so that a failing test fails now, not at its timeout.
  while (!pids.empty()) {
    int st = 0;
    const pid_t p = ::waitpid(-1, &st, 0);
    if (p < 0) break;
    pids.erase(std::remove(pids.begin(), pids.end(), p), pids.end());
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      bad = 1;
      for (pid_t q : pids) ::kill(q, SIGKILL);
    }
  }
  return bad;
}
