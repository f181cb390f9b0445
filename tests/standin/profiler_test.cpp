// NCCL's profiler plugin of the NCCL tap (tap/nccl/profiler*.cpp, built
// alone: libcollviz-nccl-profiler-solo.so, its own capture file a process)
// loaded by the stand-in NCCL (a TEST DOUBLE on host memory, not a GPU) as
// NCCL loads one: NCCL_PROFILER_PLUGIN, ncclProfiler_v6 / _v5, init with
// the communicator's commHash, Coll and KernelCh events (ctest
// standin_nccl_profiler, labels standin and tap). Two forked ranks make
// collectives of sizes the stand-in answers with different algorithms,
// protocols and channel counts (nccl_profiler.cpp), one of count 0 and a
// fused group; each rank's capture must hold one profile record per
// collective NCCL would number, with the stand-in's choices, NCCL's
// per-function seqNumber, the commHash of the unique id, and its kernel part
// done. An NCCL older than 2.28 and NCCL_PROFILER_PLUGIN=none load nothing.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nccl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tap/capture_format.h"
#include "tap/nccl/comm_hash.h"

namespace {

namespace fs = std::filesystem;
using collviz::tap::Func;
using collviz::tap::ProfileRecord;

struct Shared {
  std::atomic<int> id_ready;
  ncclUniqueId id;
};
Shared* g_sh = nullptr;

// Runs `body` in 2 forked ranks under `env`; "" or what went wrong.
std::string twoRanks(const std::vector<std::pair<std::string, std::string>>& env, void (*body)(ncclComm_t, cudaStream_t, int)) {
  std::memset(static_cast<void*>(g_sh), 0, sizeof *g_sh);
  std::vector<pid_t> pids;
  for (int r = 0; r < 2; ++r) {
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("NCCL_HOSTID", ("profiler-test-r" + std::to_string(r)).c_str(), 1);
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      if (r == 0) {
        if (ncclGetUniqueId(&g_sh->id) != ncclSuccess) ::_exit(2);
        g_sh->id_ready = 1;
      }
      while (!g_sh->id_ready) std::this_thread::yield();
      cudaStream_t s = nullptr;
      ncclComm_t comm = nullptr;
      if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess) ::_exit(3);
      if (ncclCommInitRank(&comm, 2, g_sh->id, r) != ncclSuccess) ::_exit(4);
      body(comm, s, r);
      if (cudaStreamSynchronize(s) != cudaSuccess || ncclCommDestroy(comm) != ncclSuccess) ::_exit(5);
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  std::string out;
  for (std::size_t r = 0; r < pids.size(); ++r) {
    int status = 0;
    ::waitpid(pids[r], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      out += "rank " + std::to_string(r) + " ended with status " + std::to_string(status) + "\n";
  }
  return out;
}

// NCCL-style calls: the sizes pick the stand-in's answers.
void calls(ncclComm_t comm, cudaStream_t s, int) {
  void *a = nullptr, *b = nullptr;
  const std::size_t big = std::size_t(1) << 18;  // floats: 1 MiB
  if (cudaMalloc(&a, big * 4 * 2) != cudaSuccess || cudaMalloc(&b, big * 4 * 2) != cudaSuccess) ::_exit(6);
  bool ok = ncclAllReduce(a, b, 64, ncclFloat32, ncclSum, comm, s) == ncclSuccess;          // AllReduce #0: 256 B
  ok = ok && ncclAllReduce(a, b, 0, ncclFloat32, ncclSum, comm, s) == ncclSuccess;          // count 0: discarded
  ok = ok && ncclBroadcast(a, b, 1 << 16, ncclFloat32, 0, comm, s) == ncclSuccess;          // Broadcast #0: 256 KiB
  ok = ok && ncclAllReduce(a, b, big, ncclFloat32, ncclSum, comm, s) == ncclSuccess;        // AllReduce #1: 1 MiB
  ok = ok && ncclGroupStart() == ncclSuccess;
  ok = ok && ncclAllGather(a, b, 16, ncclFloat32, comm, s) == ncclSuccess;                  // AllGather #0
  ok = ok && ncclAllReduce(a, b, 32, ncclFloat32, ncclSum, comm, s) == ncclSuccess;         // AllReduce #2
  ok = ok && ncclGroupEnd() == ncclSuccess;
  if (!ok) ::_exit(7);
}

void oneCall(ncclComm_t comm, cudaStream_t s, int) {
  void* a = nullptr;
  if (cudaMalloc(&a, 256) != cudaSuccess || ncclAllReduce(a, a, 64, ncclFloat32, ncclSum, comm, s) != ncclSuccess) ::_exit(6);
}

struct Tmp {
  fs::path dir = fs::temp_directory_path() / ("collviz_standin_profiler_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Tmp() { fs::create_directories(dir); }
  ~Tmp() { fs::remove_all(dir); }
};

// The profile records of every capture file in `dir`, one list a file.
std::vector<std::vector<std::unique_ptr<ProfileRecord>>> captures(const fs::path& dir) {
  std::vector<std::vector<std::unique_ptr<ProfileRecord>>> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (b.size() < collviz::tap::kHeaderBytes) continue;
    std::uint64_t committed = 0;
    std::memcpy(&committed, b.data() + offsetof(collviz::tap::FileHeader, committed), 8);
    auto& list = out.emplace_back();
    for (std::size_t at = collviz::tap::kHeaderBytes; at + 8 <= collviz::tap::kHeaderBytes + committed;) {
      collviz::tap::RecordHead h;
      std::memcpy(&h, b.data() + at, sizeof h);
      if (h.size == 0) break;
      if (h.type == std::uint8_t(collviz::tap::RecordType::profile) && h.size == sizeof(ProfileRecord)) {
        list.push_back(std::make_unique<ProfileRecord>());
        std::memcpy(static_cast<void*>(list.back().get()), b.data() + at, sizeof(ProfileRecord));
      }
      at += h.size;
    }
  }
  return out;
}

// NCCL 2.28 takes ncclProfiler_v5, 2.29 and 2.30 ncclProfiler_v6.
class StandinProfiler : public ::testing::TestWithParam<const char*> {};

TEST_P(StandinProfiler, TheStandInsChoicesReachTheCaptureNumberedAsNcclNumbersThem) {
  Tmp t;
  const std::string failed = twoRanks({{"NCCL_PROFILER_PLUGIN", COLLVIZ_PROFILER_SOLO},
                                       {"COLLVIZ_TAP_OUT", t.dir.string()},
                                       {"COLLVIZ_STANDIN_NCCL_VERSION", GetParam()}},
                                      calls);
  ASSERT_EQ(failed, "");
  const std::uint64_t hash = collviz::tap::nccl::commHashOfId(g_sh->id.internal, sizeof g_sh->id.internal);
  const auto files = captures(t.dir);
  ASSERT_EQ(files.size(), 2u) << "one capture a rank";
  struct Want {
    Func func;
    std::uint64_t seq, count;
    const char* algo;
    const char* proto;
    int channels;
  };
  const Want want[] = {{Func::nccl_allreduce, 0, 64, "TREE", "LL", 1},
                       {Func::nccl_broadcast, 0, 1 << 16, "RING", "LL128", 4},
                       {Func::nccl_allreduce, 1, 1 << 18, "RING", "SIMPLE", 4},
                       {Func::nccl_allgather, 0, 16, "RING", "LL", 1},
                       {Func::nccl_allreduce, 2, 32, "TREE", "LL", 1}};
  std::vector<int> ranks;
  for (const auto& recs : files) {
    ASSERT_EQ(recs.size(), std::size(want)) << "one record a collective of count > 0";
    ranks.push_back(recs[0]->comm_rank);
    for (std::size_t i = 0; i < recs.size(); ++i) {
      const ProfileRecord& r = *recs[i];
      SCOPED_TRACE("record " + std::to_string(i));
      EXPECT_EQ(r.head.sub, std::uint8_t(want[i].func));
      EXPECT_EQ(r.seq, want[i].seq);
      EXPECT_EQ(r.count, want[i].count);
      EXPECT_STREQ(r.algo, want[i].algo);
      EXPECT_STREQ(r.proto, want[i].proto);
      EXPECT_EQ(r.channels, want[i].channels);
      EXPECT_EQ(r.comm_id, hash) << "NCCL's commHash of the unique id";
      EXPECT_EQ(r.comm_rank, ranks.back());
      EXPECT_EQ(r.channels_done, want[i].channels);
      EXPECT_EQ(r.head.flags, 0);
      EXPECT_NE(r.kernel_end.load(), 0u) << "the stream work ended before ncclCommDestroy";
      EXPECT_LE(r.kernel_start, r.kernel_end.load());
      EXPECT_GT(r.kernel_gpu_ns, 0u);
      EXPECT_LE(r.t_start, r.t_enqueued);
    }
  }
  std::sort(ranks.begin(), ranks.end());
  EXPECT_EQ(ranks, (std::vector<int>{0, 1}));
}

INSTANTIATE_TEST_SUITE_P(Nccl, StandinProfiler, ::testing::Values("22809", "22903"));

TEST(StandinNoProfiler, AnOlderNcclOrNoneLoadsNoPlugin) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"COLLVIZ_STANDIN_NCCL_VERSION", "22703"}, {"NCCL_PROFILER_PLUGIN", "none"}}) {
    Tmp t;
    std::vector<std::pair<std::string, std::string>> env = {{"NCCL_PROFILER_PLUGIN", COLLVIZ_PROFILER_SOLO},
                                                            {"COLLVIZ_TAP_OUT", t.dir.string()}};
    env.push_back({key, value});
    ASSERT_EQ(twoRanks(env, oneCall), "") << key << "=" << value;
    EXPECT_TRUE(captures(t.dir).empty()) << key << "=" << value << ": the plugin was never called";
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  void* m = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return 1;
  g_sh = static_cast<Shared*>(m);
  return RUN_ALL_TESTS();
}
