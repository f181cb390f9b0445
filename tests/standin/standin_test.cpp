// The stand-in CUDA runtime and NCCL held against what CUDA's and NCCL's
// documentation say (ctest standin_self, label `standin`): the test double
// must be right for the module's tests on it to mean anything. Each case
// runs in forked rank processes (the parent never calls the stand-in, so a
// child's environment reaches it): every NCCL op at N = 1..4, every dtype
// and reduce op, in place and not, with NCCL's count conventions; groups
// (posting order per peer, fused sends and receives, a blocking send
// outside one); refusals; asynchronous and remote errors; streams and
// events; memory; kernels by name; the opt-in; the bootstrap.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nccl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/standin/cuda_entry.h"

namespace {

using namespace std::chrono_literals;

// Between the rank processes of one group.
struct Shared {
  std::atomic<int> id_ready;
  ncclUniqueId id;
  std::atomic<int> flag[8];
};
Shared* g_sh = nullptr;

using Body = std::function<std::string(int rank, ncclComm_t comm, cudaStream_t s)>;
struct Opts {
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::vector<std::pair<std::string, std::string>>> rank_env;
  bool init = true;  // make the communicator (else comm is null)
  int wall_s = 30;   // then the ranks still running are killed
};
struct End {
  std::string said;
  int status = 0;
};

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

std::vector<End> group(int n, const Body& body, const Opts& o = {}) {
  std::memset(static_cast<void*>(g_sh), 0, sizeof *g_sh);
  std::vector<pid_t> pids;
  std::vector<int> fds;
  for (int r = 0; r < n; ++r) {
    int p[2];
    if (::pipe(p) != 0) return {};
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(p[0]);
      // One device, so each rank its own "host" (NCCL's host-id route), unless a test says otherwise.
      ::setenv("NCCL_HOSTID", ("standin-test-r" + std::to_string(r)).c_str(), 1);
      for (const auto& [k, v] : o.env) ::setenv(k.c_str(), v.c_str(), 1);
      if (std::size_t(r) < o.rank_env.size())
        for (const auto& [k, v] : o.rank_env[std::size_t(r)]) ::setenv(k.c_str(), v.c_str(), 1);
      std::string said;
      ncclComm_t comm = nullptr;
      cudaStream_t s = nullptr;
      if (o.init) {
        if (r == 0) {
          ncclGetUniqueId(&g_sh->id);
          g_sh->id_ready = 1;
        }
        while (!g_sh->id_ready) std::this_thread::sleep_for(1ms);
        cudaSetDevice(0);
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (ncclResult_t e = ncclCommInitRank(&comm, n, g_sh->id, r); e != ncclSuccess)
          said = std::string("init: ") + ncclGetErrorString(e) + ": " + ncclGetLastError(nullptr);
      }
      if (said.empty()) said = body(r, comm, s);
      if (::write(p[1], said.data(), said.size()) < 0) ::_exit(3);
      ::_exit(0);
    }
    ::close(p[1]);
    pids.push_back(pid);
    fds.push_back(p[0]);
  }
  std::vector<End> ends(pids.size());
  std::vector<bool> open(fds.size(), true);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(o.wall_s);
  for (std::size_t left = fds.size(); left > 0 && std::chrono::steady_clock::now() < end;) {
    std::vector<pollfd> pf;
    for (std::size_t r = 0; r < fds.size(); ++r)
      if (open[r]) pf.push_back({fds[r], POLLIN, 0});
    if (::poll(pf.data(), pf.size(), 100) <= 0) continue;
    for (const pollfd& p : pf) {
      if (!(p.revents & (POLLIN | POLLHUP))) continue;
      const std::size_t r = std::size_t(std::find(fds.begin(), fds.end(), p.fd) - fds.begin());
      char buf[4096];
      const ssize_t k = ::read(p.fd, buf, sizeof buf);
      if (k > 0) ends[r].said.append(buf, std::size_t(k));
      else open[r] = false, --left;
    }
  }
  for (std::size_t r = 0; r < pids.size(); ++r) {
    if (open[r]) ::kill(pids[r], SIGKILL);
    ::waitpid(pids[r], &ends[r].status, 0);
    ::close(fds[r]);
  }
  return ends;
}

std::string failures(const std::vector<End>& ends) {
  std::string out;
  for (std::size_t r = 0; r < ends.size(); ++r) {
    if (!WIFEXITED(ends[r].status) || WEXITSTATUS(ends[r].status) != 0)
      out += "rank " + std::to_string(r) + " ended with status " + std::to_string(ends[r].status) + "\n";
    if (!ends[r].said.empty()) out += "rank " + std::to_string(r) + ": " + ends[r].said + "\n";
  }
  return out;
}

// ---- values: small integers, exact in every type ------------------------------------

double input(int rank, long j) { return double(1 + (rank + 2 * j) % 3); }

std::size_t size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
  }
}

void put(ncclDataType_t t, void* p, double v) {
  switch (t) {
    case ncclInt8: *static_cast<int8_t*>(p) = int8_t(v); break;
    case ncclUint8: *static_cast<uint8_t*>(p) = uint8_t(v); break;
    case ncclInt32: *static_cast<int32_t*>(p) = int32_t(v); break;
    case ncclUint32: *static_cast<uint32_t*>(p) = uint32_t(v); break;
    case ncclInt64: *static_cast<int64_t*>(p) = int64_t(v); break;
    case ncclUint64: *static_cast<uint64_t*>(p) = uint64_t(v); break;
    case ncclFloat32: *static_cast<float*>(p) = float(v); break;
    case ncclFloat64: *static_cast<double*>(p) = v; break;
    case ncclFloat16: *static_cast<_Float16*>(p) = _Float16(v); break;
    case ncclBfloat16: {  // exact for the small integers here
      const float f = float(v);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      *static_cast<uint16_t*>(p) = uint16_t(b >> 16);
      break;
    }
    default: break;
  }
}

double get(ncclDataType_t t, const void* p) {
  switch (t) {
    case ncclInt8: return *static_cast<const int8_t*>(p);
    case ncclUint8: return *static_cast<const uint8_t*>(p);
    case ncclInt32: return *static_cast<const int32_t*>(p);
    case ncclUint32: return *static_cast<const uint32_t*>(p);
    case ncclInt64: return double(*static_cast<const int64_t*>(p));
    case ncclUint64: return double(*static_cast<const uint64_t*>(p));
    case ncclFloat32: return *static_cast<const float*>(p);
    case ncclFloat64: return *static_cast<const double*>(p);
    case ncclFloat16: return double(*static_cast<const _Float16*>(p));
    case ncclBfloat16: {
      const uint32_t b = uint32_t(*static_cast<const uint16_t*>(p)) << 16;
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    }
    default: return 0;
  }
}

bool isFloat(ncclDataType_t t) {
  return t == ncclFloat16 || t == ncclBfloat16 || t == ncclFloat32 || t == ncclFloat64;
}

double reduced(int n, long j, ncclRedOp_t op, ncclDataType_t t) {
  double a = input(0, j);
  for (int p = 1; p < n; ++p) {
    const double x = input(p, j);
    a = op == ncclProd ? a * x : op == ncclMax ? std::max(a, x) : op == ncclMin ? std::min(a, x) : a + x;
  }
  if (op == ncclAvg) a = isFloat(t) ? a / n : std::trunc(a / n);
  return a;
}

bool close(double got, double want, ncclDataType_t t, ncclRedOp_t op, int n) {
  if (got == want) return true;
  if (op != ncclAvg || !isFloat(t) || (n & (n - 1)) == 0) return false;
  const double eps = t == ncclFloat16 ? 1e-3 : t == ncclBfloat16 ? 1e-2 : t == ncclFloat32 ? 1e-6 : 1e-14;
  return std::fabs(got - want) <= std::fabs(want) * eps * n;
}

enum class Coll { all_reduce, broadcast, reduce, all_gather, reduce_scatter, all_to_all, gather, scatter };
constexpr const char* kNames[] = {"all_reduce", "broadcast", "reduce", "all_gather",
                                  "reduce_scatter", "all_to_all", "gather", "scatter"};

// One op on device memory at this rank, in place or not: "" or what differs.
std::string oneCase(Coll c, int rank, int n, ncclDataType_t t, ncclRedOp_t op, bool in_place, ncclComm_t comm,
                    cudaStream_t s) {
  const std::size_t cnt = 3, es = size(t), root = std::size_t(n - 1);
  const bool at_root = std::size_t(rank) == root;
  // Host images of send (in the op's layout) and of the expected output.
  std::size_t sn = cnt, rn = cnt;
  if (c == Coll::reduce_scatter || c == Coll::all_to_all || (c == Coll::scatter && at_root)) sn = cnt * std::size_t(n);
  if (c == Coll::all_gather || c == Coll::all_to_all || (c == Coll::gather && at_root)) rn = cnt * std::size_t(n);
  std::vector<char> send(sn * es), want_bytes(rn * es);
  for (std::size_t j = 0; j < sn; ++j) put(t, send.data() + j * es, input(rank, long(j)));
  std::vector<double> want(rn);
  for (std::size_t i = 0; i < rn; ++i) {
    const long k = long(i % cnt);
    const int from = int(i / cnt);
    switch (c) {
      case Coll::all_reduce: case Coll::reduce: want[i] = reduced(n, long(i), op, t); break;
      case Coll::broadcast: want[i] = input(int(root), long(i)); break;
      case Coll::all_gather: case Coll::gather: want[i] = input(from, k); break;
      case Coll::reduce_scatter: want[i] = reduced(n, long(std::size_t(rank) * cnt + i), op, t); break;
      case Coll::all_to_all: want[i] = input(from, long(std::size_t(rank) * cnt) + k); break;
      case Coll::scatter: want[i] = input(int(root), long(std::size_t(rank) * cnt + i)); break;
    }
  }
  // Device buffers: one holding both in the in-place form, else two.
  char *dsend = nullptr, *drecv = nullptr, *dbuf = nullptr;
  std::size_t send_at = 0, recv_at = 0, buf = std::max(sn, rn) * es;
  if (in_place) {
    if (c == Coll::all_gather) send_at = std::size_t(rank) * cnt * es;
    if (c == Coll::reduce_scatter) recv_at = std::size_t(rank) * cnt * es;
    if (c == Coll::gather && at_root) send_at = root * cnt * es;
    if (c == Coll::scatter && at_root) recv_at = root * cnt * es;
    cudaMalloc(reinterpret_cast<void**>(&dbuf), buf);
    dsend = dbuf + send_at, drecv = dbuf + recv_at;
    if (c == Coll::gather && !at_root) drecv = nullptr;
  } else {
    cudaMalloc(reinterpret_cast<void**>(&dsend), sn * es);
    cudaMalloc(reinterpret_cast<void**>(&drecv), rn * es);
    if ((c == Coll::reduce || c == Coll::gather) && !at_root) drecv = nullptr;  // unused there
  }
  cudaMemcpy(dsend, send.data(), send.size(), cudaMemcpyHostToDevice);
  if ((c == Coll::broadcast || c == Coll::scatter) && !at_root && !in_place) dsend = nullptr;  // unused there
  const int r = int(root);
  ncclResult_t e = ncclSuccess;
  switch (c) {
    case Coll::all_reduce: e = ncclAllReduce(dsend, drecv, cnt, t, op, comm, s); break;
    case Coll::broadcast: e = ncclBroadcast(dsend, drecv, cnt, t, r, comm, s); break;
    case Coll::reduce: e = ncclReduce(dsend, drecv, cnt, t, op, r, comm, s); break;
    case Coll::all_gather: e = ncclAllGather(dsend, drecv, cnt, t, comm, s); break;
    case Coll::reduce_scatter: e = ncclReduceScatter(dsend, drecv, cnt, t, op, comm, s); break;
    case Coll::all_to_all: e = ncclAlltoAll(dsend, drecv, cnt, t, comm, s); break;
    case Coll::gather: e = ncclGather(dsend, drecv, cnt, t, r, comm, s); break;
    case Coll::scatter: e = ncclScatter(dsend, drecv, cnt, t, r, comm, s); break;
  }
  cudaStreamSynchronize(s);
  std::string bad;
  const std::string tag = std::string(kNames[int(c)]) + " type " + std::to_string(t) + " op " + std::to_string(op) +
                          (in_place ? " in place" : "") + " rank " + std::to_string(rank) + ": ";
  if (e != ncclSuccess) bad = tag + ncclGetLastError(nullptr) + "\n";
  const bool has_output = !((c == Coll::reduce || c == Coll::gather) && !at_root);
  if (bad.empty() && has_output) {
    std::vector<char> got(rn * es);
    cudaMemcpy(got.data(), drecv, got.size(), cudaMemcpyDeviceToHost);
    for (std::size_t i = 0; i < rn && bad.empty(); ++i)
      if (!close(get(t, got.data() + i * es), want[i], t, op, n))
        bad = tag + "element " + std::to_string(i) + " is " + std::to_string(get(t, got.data() + i * es)) +
              ", want " + std::to_string(want[i]) + "\n";
  }
  cudaFree(dbuf ? dbuf : dsend);
  if (!dbuf) cudaFree(drecv);
  return bad;
}

// ---- NCCL's ops -----------------------------------------------------------------------

const ncclDataType_t kTypes[] = {ncclInt8,   ncclUint8,   ncclInt32,   ncclUint32,  ncclInt64,
                                 ncclUint64, ncclFloat16, ncclFloat32, ncclFloat64, ncclBfloat16};
const ncclRedOp_t kOps[] = {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg};

class StandinOps : public ::testing::TestWithParam<int> {};

TEST_P(StandinOps, EveryOpTypeAndReduceOpInPlaceAndNotAsNcclDocumentsThem) {
  const int n = GetParam();
  auto ends = group(n, [n](int rank, ncclComm_t comm, cudaStream_t s) {
    std::string bad;
    for (int c = 0; c < 8; ++c)
      for (ncclDataType_t t : kTypes)
        for (ncclRedOp_t op : kOps) {
          const Coll k = Coll(c);
          if (op != ncclSum && k != Coll::all_reduce && k != Coll::reduce && k != Coll::reduce_scatter) continue;
          for (bool in_place : {false, true})
            if (!(in_place && k == Coll::all_to_all)) bad += oneCase(k, rank, n, t, op, in_place, comm, s);
        }
    return bad;
  });
  EXPECT_EQ(failures(ends), "");
}
INSTANTIATE_TEST_SUITE_P(N, StandinOps, ::testing::Values(1, 2, 3, 4));

TEST(Standin, CallsOutsideNcclsConventionsAreRefusedWithTheReason) {
  auto ends = group(2, [](int rank, ncclComm_t comm, cudaStream_t s) {
    std::string bad;
    float *a = nullptr, *b = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&a), 8 * sizeof(float));
    cudaMalloc(reinterpret_cast<void**>(&b), 4 * sizeof(float));
    float host[8];
    auto expect = [&](ncclResult_t got, ncclResult_t want, const char* words, const char* what) {
      if (got != want || !has(ncclGetLastError(nullptr), words))
        bad += std::string(what) + ": " + std::to_string(got) + " " + ncclGetLastError(nullptr) + "\n";
    };
    // all_gather's recvbuff holds nranks * sendcount; reduce_scatter's sendbuff nranks * recvcount.
    expect(ncclAllGather(a, b, 4, ncclFloat32, comm, s), ncclInvalidArgument, "recvbuff", "all_gather recvbuff");
    expect(ncclReduceScatter(b, a, 4, ncclFloat32, ncclSum, comm, s), ncclInvalidArgument, "sendbuff",
           "reduce_scatter sendbuff");
    expect(ncclAlltoAll(b, a, 4, ncclFloat32, comm, s), ncclInvalidArgument, "sendbuff", "all_to_all per-peer count");
    expect(ncclAllReduce(host, a, 4, ncclFloat32, ncclSum, comm, s), ncclInvalidArgument, "not device memory",
           "a host pointer");
    expect(ncclAllReduce(a, a + 1, 4, ncclFloat32, ncclSum, comm, s), ncclInvalidArgument, "in-place form",
           "overlapping buffers");
    expect(ncclAlltoAll(a, a, 2, ncclFloat32, comm, s), ncclInvalidArgument, "no in-place ncclAlltoAll",
           "all_to_all in place");
    expect(ncclBroadcast(a, a, 4, ncclFloat32, 2, comm, s), ncclInvalidArgument, "root 2", "root");
    expect(ncclSend(a, 1, ncclFloat32, -1, comm, s), ncclInvalidArgument, "peer -1", "peer");
    expect(ncclAllReduce(a, a, 4, ncclFloat8e4m3, ncclSum, comm, s), ncclInvalidArgument, "fp8", "fp8");
    expect(ncclAllReduce(a, a, 4, ncclFloat32, ncclRedOp_t(9), comm, s), ncclInvalidArgument, "reduction op 9",
           "reduce op");
    cudaStream_t bogus = reinterpret_cast<cudaStream_t>(0x1234);
    expect(ncclAllReduce(a, a, 4, ncclFloat32, ncclSum, comm, bogus), ncclInvalidArgument, "not a live CUDA stream",
           "stream");
    // NCCL's own texts for its results.
    if (std::string(ncclGetErrorString(ncclRemoteError)) != "remote process exited or there was a network error")
      bad += "ncclRemoteError's text\n";
    (void)rank;
    return bad;
  });
  EXPECT_EQ(failures(ends), "");
}

TEST(Standin, GroupsPairSendsAndReceivesInPostingOrderPerPeer) {
  auto ends = group(2, [](int rank, ncclComm_t comm, cudaStream_t s) {
    int* d = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&d), 8 * sizeof(int));
    int h[8] = {rank * 10 + 1, rank * 10 + 2, 0, 0, 0, 0, 0, 0};
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    const int peer = 1 - rank;
    // Both ranks send two messages to the other and to themselves, and
    // receive in the same order, all in one group (nested once).
    ncclGroupStart();
    ncclGroupStart();
    ncclSend(d, 1, ncclInt32, peer, comm, s);
    ncclSend(d + 1, 1, ncclInt32, peer, comm, s);
    ncclSend(d, 1, ncclInt32, rank, comm, s);
    ncclGroupEnd();  // inner: nothing starts yet
    ncclRecv(d + 2, 1, ncclInt32, peer, comm, s);
    ncclRecv(d + 3, 1, ncclInt32, peer, comm, s);
    ncclRecv(d + 4, 1, ncclInt32, rank, comm, s);
    if (ncclGroupEnd() != ncclSuccess) return std::string("ncclGroupEnd: ") + ncclGetLastError(nullptr);
    cudaStreamSynchronize(s);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    const int want[3] = {peer * 10 + 1, peer * 10 + 2, rank * 10 + 1};
    for (int i = 0; i < 3; ++i)
      if (h[2 + i] != want[i]) return "received " + std::to_string(h[2 + i]) + " in place of " + std::to_string(want[i]);
    // A send whose receive has another count is an asynchronous usage error.
    if (rank == 0) ncclSend(d, 2, ncclInt32, 1, comm, s);
    else ncclRecv(d, 1, ncclInt32, 0, comm, s);
    ncclResult_t st = ncclSuccess;
    for (int i = 0; i < 200 && st == ncclSuccess; ++i) {
      std::this_thread::sleep_for(5ms);
      ncclCommGetAsyncError(comm, &st);
    }
    if (rank == 1 && (st != ncclInvalidUsage || !has(ncclGetLastError(nullptr), "do not match")))
      return "a count mismatch: async " + std::to_string(st) + " " + ncclGetLastError(nullptr);
    ncclCommAbort(comm);
    return std::string();
  });
  EXPECT_EQ(failures(ends), "");
}

// NCCL's send is blocking for the device: outside a group its stream waits
// for the peer's receive. A pinned copy queued behind it returns at once; a
// pageable one waits (synchronous with the host, as CUDA says of pageable
// memory). Rank 1 receives only when rank 0 lets it (flag 1), so what rank
// 0 sees before that is certain, however loaded the machine: it holds the
// receive back at least 100 ms, and the events' elapsed time must span it.
TEST(Standin, ASendOutsideAGroupHoldsItsStreamUntilTheReceiveAndEventsSaySo) {
  auto ends = group(2, [](int rank, ncclComm_t comm, cudaStream_t s) -> std::string {
    float* d = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&d), 4 * sizeof(float));
    if (rank == 1) {
      while (!g_sh->flag[1]) std::this_thread::sleep_for(1ms);  // the group's wall bounds it
      ncclRecv(d, 4, ncclFloat32, 0, comm, s);
      cudaStreamSynchronize(s);
      return "";
    }
    cudaEvent_t before, after, other_done, never;
    cudaEventCreate(&before), cudaEventCreate(&after), cudaEventCreate(&other_done), cudaEventCreate(&never);
    if (cudaEventQuery(never) != cudaSuccess) return "an event never recorded is not complete";
    float ms = 0;
    if (cudaEventElapsedTime(&ms, never, never) != cudaErrorInvalidResourceHandle)
      return "elapsed time of an event never recorded";
    cudaGetLastError();
    cudaStream_t other;
    cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
    cudaEventRecord(before, s);
    ncclSend(d, 4, ncclFloat32, 1, comm, s);
    cudaEventRecord(after, s);
    cudaStreamWaitEvent(other, after, 0);
    cudaEventRecord(other_done, other);
    static float pinned[4], pageable[4];  // copies queued behind the send land later
    cudaHostRegister(pinned, sizeof pinned, cudaHostRegisterDefault);
    // Returns while the receive is held back (were it to wait, it would wait
    // for ever: the group's wall ends it and says so).
    cudaMemcpyAsync(pinned, d, sizeof pinned, cudaMemcpyDeviceToHost, s);
    std::string bad;
    if (cudaEventQuery(after) != cudaErrorNotReady) bad += "the event after the send is complete already\n";
    if (cudaEventQuery(other_done) != cudaErrorNotReady) bad += "the stream waiting on it ran ahead\n";
    if (cudaEventElapsedTime(&ms, before, after) != cudaErrorNotReady) bad += "elapsed time before completion\n";
    for (int i = 0; i < 10000 && cudaEventQuery(before) != cudaSuccess; ++i) std::this_thread::sleep_for(1ms);
    if (cudaEventQuery(before) != cudaSuccess) bad += "the event before the send never completed\n";
    const auto held = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(100ms);  // the receive held back (a span to measure, not a wait for anything)
    const double held_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - held).count();
    g_sh->flag[1] = 1;
    cudaMemcpyAsync(pageable, d, sizeof pageable, cudaMemcpyDeviceToHost, s);
    // Synchronous: back only once the stream's work before it (the send) is done.
    if (cudaEventQuery(after) != cudaSuccess) bad += "a pageable copy returned before the send it was queued behind\n";
    cudaStreamSynchronize(other);
    if (cudaEventQuery(after) != cudaSuccess || cudaEventQuery(other_done) != cudaSuccess) bad += "not complete\n";
    if (cudaEventElapsedTime(&ms, before, after) != cudaSuccess || ms < held_ms - 1)
      bad += "elapsed " + std::to_string(ms) + " ms across a receive held back " + std::to_string(held_ms) + " ms\n";
    cudaStreamSynchronize(s);
    return bad;
  });
  EXPECT_EQ(failures(ends), "");
}

TEST(Standin, ALostPeerIsARemoteErrorAndAbortReleasesTheStream) {
  auto ends = group(2, [](int rank, ncclComm_t comm, cudaStream_t s) -> std::string {
    if (rank == 1) ::_exit(0);  // gone, without a word
    float* d = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&d), 4 * sizeof(float));
    cudaEvent_t done;
    cudaEventCreate(&done);
    ncclAllReduce(d, d, 4, ncclFloat32, ncclSum, comm, s);
    cudaEventRecord(done, s);
    ncclResult_t st = ncclSuccess;
    for (int i = 0; i < 400 && st == ncclSuccess; ++i) {
      std::this_thread::sleep_for(5ms);
      ncclCommGetAsyncError(comm, &st);
    }
    std::string bad;
    if (st != ncclRemoteError) bad += "async error " + std::to_string(st) + ", not ncclRemoteError\n";
    if (cudaEventQuery(done) != cudaErrorNotReady) bad += "the op's stream ran on without its peer\n";
    if (ncclCommAbort(comm) != ncclSuccess) bad += "abort failed\n";
    cudaStreamSynchronize(s);
    if (cudaEventQuery(done) != cudaSuccess) bad += "the abort did not release the stream\n";
    if (ncclAllReduce(d, d, 4, ncclFloat32, ncclSum, comm, s) != ncclInvalidArgument ||
        !has(ncclGetLastError(nullptr), "not a live communicator"))
      bad += "an aborted communicator was used\n";
    return bad;
  });
  EXPECT_EQ(failures(ends).find("rank 0"), std::string::npos) << failures(ends);
}

// ---- the runtime: memory, kernels ----------------------------------------------------------

void hostFun() {}
void hostFun2() {}

TEST(Standin, MemoryAndKernelsAreCheckedAndAKernelWithoutHostArithmeticFailsLoudly) {
  Opts o;
  o.init = false;
  auto ends = group(1, [](int, ncclComm_t, cudaStream_t) -> std::string {
    std::string bad;
    cudaSetDevice(0);
    void* p = nullptr;
    if (cudaMalloc(&p, std::size_t(1) << 50) != cudaErrorMemoryAllocation) bad += "a huge cudaMalloc worked\n";
    if (cudaGetLastError() != cudaErrorMemoryAllocation) bad += "cudaGetLastError lost it\n";
    if (cudaGetLastError() != cudaSuccess) bad += "cudaGetLastError did not reset\n";
    int host[4] = {1, 2, 3, 4};
    if (cudaFree(host) != cudaErrorInvalidValue) bad += "cudaFree of a host pointer\n";
    int* d = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&d), sizeof host);
    if (cudaMemcpy(host, d, sizeof host, cudaMemcpyHostToDevice) != cudaErrorInvalidValue) bad += "a wrong kind\n";
    if (cudaMemcpy(d, host, 2 * sizeof host, cudaMemcpyHostToDevice) != cudaErrorInvalidValue) bad += "a copy past it\n";
    if (cudaHostRegister(host, sizeof host, 0) != cudaSuccess) bad += "register\n";
    if (cudaHostRegister(host + 1, 4, 0) != cudaErrorHostMemoryAlreadyRegistered) bad += "registered twice\n";
    if (cudaHostUnregister(host + 1) != cudaErrorHostMemoryNotRegistered) bad += "unregister inside\n";
    if (cudaHostUnregister(host) != cudaSuccess) bad += "unregister\n";
    void* unmapped = ::mmap(nullptr, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ::munmap(unmapped, 8192);
    if (cudaHostRegister(unmapped, 8192, 0) != cudaErrorInvalidValue) bad += "an unmapped range registered\n";
    cudaGetLastError();
    // Kernels by their registered (mangled) names.
    void** h = __cudaRegisterFatBinary(nullptr);
    char known[] = "_ZN7collviz10reduce_ops12reduceKernelILNS0_8ElemKindE4ELNS0_11CombineKindE0EEEvPiPKim";
    char unknown[] = "_Z11otherKernelPi";
    __cudaRegisterFunction(h, reinterpret_cast<const char*>(&hostFun), known, known, -1, nullptr, nullptr, nullptr,
                           nullptr, nullptr);
    __cudaRegisterFunction(h, reinterpret_cast<const char*>(&hostFun2), unknown, unknown, -1, nullptr, nullptr,
                           nullptr, nullptr, nullptr);
    int* src = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&src), sizeof host);
    cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
    cudaMemcpy(src, host, sizeof host, cudaMemcpyHostToDevice);
    std::size_t elems = 4;
    void* args[] = {&d, &src, &elems};
    cudaKernel_t k;
    if (__cudaGetKernel(&k, reinterpret_cast<const void*>(&hostFun)) != cudaSuccess) bad += "kernel not found\n";
    __cudaPushCallConfiguration(dim3(1), dim3(256), 0, nullptr);
    dim3 g, b;
    std::size_t shm;
    cudaStream_t st;
    __cudaPopCallConfiguration(&g, &b, &shm, &st);
    if (__cudaLaunchKernel(k, g, b, args, shm, st) != cudaSuccess) bad += "the reduce kernel did not launch\n";
    cudaDeviceSynchronize();
    int out[4];
    cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 4; ++i)
      if (out[i] != 2 * host[i]) bad += "the reduce kernel computed " + std::to_string(out[i]) + "\n";
    if (__cudaLaunchKernel(k, dim3(0), b, args, 0, nullptr) != cudaErrorInvalidConfiguration) bad += "a grid of 0\n";
    cudaGetLastError();
    __cudaGetKernel(&k, reinterpret_cast<const void*>(&hostFun2));
    if (__cudaLaunchKernel(k, g, b, args, 0, nullptr) != cudaErrorInvalidDeviceFunction ||
        cudaGetLastError() != cudaErrorInvalidDeviceFunction)
      bad += "a kernel without host arithmetic launched\n";
    if (!has(cudaGetErrorString(cudaErrorInvalidDeviceFunction), "LAUNCH REFUSED: kernel otherKernel(int*)"))
      bad += std::string("its text: ") + cudaGetErrorString(cudaErrorInvalidDeviceFunction) + "\n";
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    if (std::string(prop.name) != "stand-in: host memory, not a GPU") bad += std::string("named ") + prop.name + "\n";
    return bad;
  }, o);
  EXPECT_EQ(failures(ends), "");
}

// ---- the opt-in, the bootstrap, fault injection ------------------------------------------------

TEST(Standin, WithoutTheOptInEveryCallFails) {
  Opts o;
  o.init = false;
  auto ends = group(1, [](int, ncclComm_t, cudaStream_t) -> std::string {
    ::unsetenv("COLLVIZ_STANDIN");
    std::string bad;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaErrorStubLibrary) bad += "cudaGetDeviceCount answered\n";
    void* p;
    if (cudaMalloc(&p, 16) != cudaErrorStubLibrary) bad += "cudaMalloc answered\n";
    if (!has(cudaGetErrorString(cudaErrorStubLibrary), "COLLVIZ_STANDIN=1")) bad += "the text does not say why\n";
    int v = 0;
    if (ncclGetVersion(&v) != ncclInvalidUsage || !has(ncclGetLastError(nullptr), "COLLVIZ_STANDIN=1"))
      bad += "ncclGetVersion answered\n";
    void* nvml = ::dlopen("libnvidia-ml.so.1", RTLD_NOW);
    auto init = nvml ? reinterpret_cast<int (*)()>(::dlsym(nvml, "nvmlInit_v2")) : nullptr;
    if (!init || init() == 0) bad += "nvmlInit_v2 answered (or the stand-in NVML is not on the path)\n";
    return bad;
  }, o);
  EXPECT_EQ(failures(ends), "");
}

TEST(Standin, TheBootstrapRefusesWhatNcclRefuses) {
  // A rank that never joins: the others give up at the stand-in's timeout.
  Opts late;
  late.env = {{"COLLVIZ_STANDIN_INIT_TIMEOUT_MS", "300"}};
  late.rank_env = {{}, {}, {{"COLLVIZ_STANDIN_FAULT", "ncclCommInitRank=hang"}}};
  late.wall_s = 3;
  auto ends = group(3, [](int, ncclComm_t, cudaStream_t) { return std::string("joined"); }, late);
  ASSERT_EQ(ends.size(), 3u);
  for (int r : {0, 1})
    EXPECT_TRUE(has(ends[std::size_t(r)].said, "did not join within 300 ms")) << ends[std::size_t(r)].said;
  // Two ranks of one host on one device; a config not made with NCCL_CONFIG_INITIALIZER; an id not the stand-in's.
  Opts dup;
  dup.env = {{"NCCL_HOSTID", "same"}};
  ends = group(2, [](int, ncclComm_t, cudaStream_t) { return std::string("joined"); }, dup);
  EXPECT_TRUE(has(ends[0].said, "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device")) << ends[0].said;
  Opts none;
  none.init = false;
  ends = group(1, [](int, ncclComm_t, cudaStream_t) -> std::string {
    std::string bad;
    ncclComm_t c;
    ncclUniqueId id{};
    if (ncclCommInitRank(&c, 1, id, 0) != ncclInvalidArgument || !has(ncclGetLastError(nullptr), "ncclUniqueId"))
      bad += "an id not from ncclGetUniqueId\n";
    ncclGetUniqueId(&id);
    ncclConfig_t config{};
    if (ncclCommInitRankConfig(&c, 1, id, 0, &config) != ncclInvalidArgument) bad += "an uninitialised config\n";
    ncclConfig_t nonblocking = NCCL_CONFIG_INITIALIZER;
    nonblocking.blocking = 0;
    if (ncclCommInitRankConfig(&c, 1, id, 0, &nonblocking) != ncclInvalidArgument) bad += "non-blocking\n";
    if (ncclCommInitRank(&c, 1, id, 1) != ncclInvalidArgument) bad += "rank 1 of 1\n";
    return bad;
  }, none);
  EXPECT_EQ(failures(ends), "");
}

TEST(Standin, FaultsHitTheCallTheyNameAndOnlyInTheRankTheyName) {
  Opts o;
  o.env = {{"COLLVIZ_STANDIN_FAULT", "r1/cudaMalloc#2=cudaErrorInvalidValue,ncclGetVersion#2=ncclInternalError"}};
  auto ends = group(2, [](int rank, ncclComm_t, cudaStream_t) -> std::string {
    void* p;
    const cudaError_t first = cudaMalloc(&p, 16), second = cudaMalloc(&p, 16);
    int v;
    const ncclResult_t a = ncclGetVersion(&v), b = ncclGetVersion(&v);
    std::string bad;
    if (first != cudaSuccess) bad += "the first cudaMalloc failed\n";
    if ((second != cudaSuccess) != (rank == 1)) bad += "the second cudaMalloc: " + std::to_string(second) + "\n";
    if (a != ncclSuccess || b != ncclInternalError) bad += "ncclGetVersion #2 did not fail alone\n";
    return bad;
  }, o);
  EXPECT_EQ(failures(ends), "");
  // A rule the stand-in cannot read ends the process, saying why.
  o.env = {{"COLLVIZ_STANDIN_FAULT", "cudaMalloc#0=oops"}};
  o.init = false;
  ends = group(1, [](int, ncclComm_t, cudaStream_t) {
    void* p;
    cudaMalloc(&p, 16);
    return std::string("read the rule");
  }, o);
  EXPECT_TRUE(WIFSIGNALED(ends[0].status) && WTERMSIG(ends[0].status) == SIGABRT) << ends[0].status;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  void* m = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return 1;
  g_sh = static_cast<Shared*>(m);
  return RUN_ALL_TESTS();
}
