// The GPU side of the size check, without a GPU: the probe's per-GPU free
// memory is parsed, the budget of ranks sharing a GPU is their buffers plus
// a context each, the GPU that fits the fewest elements is the one named with
// its free memory and the largest --elems that fits, and the engine refuses
// an NCCL run that cannot fit before any worker starts (a stand-in probe
// reports the GPU).
#include <gmock/gmock.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>

#include "engine/group/devices.h"
#include "engine/group/memory_budget.h"
#include "tests/engine/engine_test_support.h"

namespace collviz::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr std::size_t kGiB = std::size_t(1) << 30;
constexpr std::size_t kMiB = std::size_t(1) << 20;

GpuMemory gpu(int index, std::size_t free, std::size_t total = 80 * kGiB) {
  GpuMemory g;
  g.gpu = index;
  g.name = "Stand-in GPU";
  g.total = total;
  g.free = free;
  return g;
}

TEST(GpuBudget, RankBytesAreTheLargestInputAndOutputOfTheProgram) {
  const OpSpec ar = makeSpec(Op::all_reduce, 4, 1000);  // 4 blocks in, 4 out, f32
  EXPECT_EQ(gpuRankBytes({ar}, 0), 2 * 4 * 1000 * 4.0);
  // Broadcast: only the root has an input.
  const OpSpec bc = makeSpec(Op::broadcast, 4, 1000);
  EXPECT_EQ(gpuRankBytes({bc}, 0), 2 * 4 * 1000 * 4.0);
  EXPECT_EQ(gpuRankBytes({bc}, 1), 4 * 1000 * 4.0);
  // The decomposition: reduce_scatter (N in, 1 out), all_gather (1 in, N
  // out), all_reduce (N, N): buffers of N blocks each, not the sum of steps.
  OpSpec rs = ar, ag = ar;
  rs.op = Op::reduce_scatter;
  ag.op = Op::all_gather;
  EXPECT_EQ(gpuRankBytes({rs, ag, ar}, 2), 2 * 4 * 1000 * 4.0);
  EXPECT_EQ(gpuRankBytes({rs}, 2), 5 * 1000 * 4.0);
  // An algorithm's working buffer: slots of one block each.
  EXPECT_EQ(gpuRankBytes({ar}, 0, 6), (8 + 6) * 1000 * 4.0);
}

// Four ranks on one GPU with 8 GiB free: 4 x 512 MiB for contexts leaves
// 6 GiB for 4 ranks x 32 bytes per element (all_reduce, f32, 4 blocks in
// and out): 6 GiB / 128 elements fit.
TEST(GpuBudget, RanksSharingAGpuAreSummedAndTheLargestFitIsNamed) {
  const std::vector<int> on_one{0, 0, 0, 0};
  const std::vector<GpuMemory> gpus{gpu(0, 8 * kGiB)};
  const long long fits = (8 * kGiB - 4 * kGpuRankOverheadBytes) / (4 * 32);
  ASSERT_EQ(fits, 50331648);
  EXPECT_TRUE(checkGpuMemory({makeSpec(Op::all_reduce, 4, fits)}, 0, on_one, gpus).ok());
  const Status st = checkGpuMemory({makeSpec(Op::all_reduce, 4, fits + 1)}, 0, on_one, gpus);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("elems = 50331649 needs about 8.0 GiB"),
                                  HasSubstr("on GPU 0 (Stand-in GPU)"),
                                  HasSubstr("4 rank(s) on it"),
                                  HasSubstr("0.5 GiB each for a CUDA context and NCCL"),
                                  HasSubstr("8.0 GiB free of 80.0 GiB"),
                                  HasSubstr("the largest that fits is --elems 50331648")));
  std::printf("%s\n", st.message().c_str());
  // The same size over four GPUs (a rank each) fits easily.
  const std::vector<GpuMemory> four{gpu(0, 8 * kGiB), gpu(1, 8 * kGiB), gpu(2, 8 * kGiB),
                                    gpu(3, 8 * kGiB)};
  EXPECT_TRUE(checkGpuMemory({makeSpec(Op::all_reduce, 4, fits + 1)}, 0, {0, 1, 2, 3}, four).ok());
}

TEST(GpuBudget, TheTightestGpuIsTheOneNamed) {
  // Ranks 0 and 2 on GPU 0 (plenty free), 1 and 3 on GPU 1 (little free).
  const std::vector<GpuMemory> gpus{gpu(0, 60 * kGiB), gpu(1, 2 * kGiB)};
  const OpSpec s = makeSpec(Op::all_gather, 4, 64 * 1024 * 1024);  // 1 in + 4 out: 1.25 GiB a rank
  const Status st = checkGpuMemory({s}, 0, {0, 1, 0, 1}, gpus);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("on GPU 1"), HasSubstr("2 rank(s) on it"),
                                  HasSubstr("2.0 GiB free")));
  // (2 GiB - 2 x 512 MiB) / (2 ranks x 5 blocks x 4 bytes)
  EXPECT_THAT(st.message(), HasSubstr("--elems " + std::to_string((2 * kGiB - 2 * kGpuRankOverheadBytes) / 40)));
}

TEST(GpuBudget, ContextsAloneCanBeTooMuch) {
  const Status st = checkGpuMemory({makeSpec(Op::all_reduce, 8, 1)}, 0,
                                   {0, 0, 0, 0, 0, 0, 0, 0}, {gpu(0, 3 * kGiB)});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("8 rank(s) on it"),
                                  HasSubstr("not even --elems 1 fits (use fewer ranks per GPU)")));
}

TEST(GpuBudget, WorkingBufferCountsAndUnknownFreeIsNotChecked) {
  const OpSpec s = makeSpec(Op::all_reduce, 2, 16 * 1024 * 1024);  // 2 + 2 blocks: 256 MiB a rank
  const std::vector<GpuMemory> gpus{gpu(0, 1024 * kMiB + 2 * 300 * kMiB)};
  EXPECT_TRUE(checkGpuMemory({s}, 0, {0, 0}, gpus).ok());
  const Status with_work = checkGpuMemory({s}, 2, {0, 0}, gpus);  // + 2 blocks: 384 MiB a rank
  ASSERT_FALSE(with_work.ok());
  EXPECT_THAT(with_work.message(), HasSubstr("input, output and working buffers"));
  GpuMemory unknown = gpu(0, 0);
  unknown.free.reset();
  unknown.error = "cudaMemGetInfo: cudaErrorUnknown";
  EXPECT_TRUE(checkGpuMemory({s}, 2, {0, 0}, {unknown}).ok());
}

TEST(GpuBudget, PlacementComesFromTheProbe) {
  BackendStatus nccl;
  nccl.kind = BackendKind::nccl;
  nccl.available = true;
  nccl.gpus = 2;
  nccl.version_code = 22809;
  nccl.gpu_memory = {gpu(0, 40 * kGiB), gpu(1, 40 * kGiB)};
  const OpSpec s = makeSpec(Op::all_reduce, 4, 256 * 1024 * 1024);  // 8 GiB a rank, 2 per GPU
  EXPECT_TRUE(checkNcclMemory({s}, 0, nccl).ok());
  nccl.gpu_memory[1].free = 10 * kGiB;
  const Status st = checkNcclMemory({s}, 0, nccl);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), AllOf(HasSubstr("GPU 1"), HasSubstr("2 rank(s) on it")));
  nccl.gpu_memory.clear();  // an older probe: nothing to check against
  EXPECT_TRUE(checkNcclMemory({s}, 0, nccl).ok());
}

TEST(GpuBudget, ProbeGpuMemoryIsParsed) {
  auto rep = parseProbe(R"({"backends":[{"name":"nccl","available":true,"gpus":2,
      "gpu_memory":[{"gpu":0,"name":"H","total":1000,"free":600},
                    {"gpu":1,"name":"H","total":1000,"error":"cudaMemGetInfo: broken"}]}]})");
  ASSERT_TRUE(rep) << rep.error().message;
  const BackendStatus* n = rep->find(BackendKind::nccl);
  ASSERT_TRUE(n);
  ASSERT_EQ(n->gpu_memory.size(), 2u);
  EXPECT_EQ(n->gpu_memory[0].gpu, 0);
  EXPECT_EQ(n->gpu_memory[0].name, "H");
  EXPECT_EQ(n->gpu_memory[0].total, 1000u);
  EXPECT_EQ(n->gpu_memory[0].free, std::optional<std::size_t>(600));
  EXPECT_EQ(n->gpu_memory[1].gpu, 1);
  EXPECT_FALSE(n->gpu_memory[1].free);
  EXPECT_EQ(n->gpu_memory[1].error, "cudaMemGetInfo: broken");
}

// The engine with a stand-in collviz-rank whose probe reports NCCL on one
// GPU with 1 GiB + 1 MiB free: two ranks' contexts leave 1 MiB, which holds
// 32768 elements of all_reduce (2 ranks x 4 blocks x 4 bytes each). A bigger
// run is refused with that, and no worker starts (the stand-in would start a
// real NCCL worker, which fails otherwise without a GPU).
TEST(GpuBudget, TheEngineRefusesAnNcclRunThatCannotFit) {
  const std::string real =
      (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "collviz-rank").string();
  const std::string wrapper = (std::filesystem::temp_directory_path() /
                               ("collviz_gpu_probe_" + std::to_string(::getpid()))).string();
  const std::size_t free = kGiB + kMiB;
  {
    std::ofstream f(wrapper);
    f << "#!/bin/sh\n"
         "if [ \"$1\" = --probe ]; then\n"
         "  echo '{\"backends\":["
         "{\"name\":\"gloo\",\"available\":true,\"dtypes\":[\"f32\"],\"redops\":[\"sum\"]},"
         "{\"name\":\"nccl\",\"available\":true,\"gpus\":1,\"version_code\":22809,"
         "\"dtypes\":[\"f32\"],\"redops\":[\"sum\"],"
         "\"gpu_memory\":[{\"gpu\":0,\"name\":\"Stand-in GPU\",\"total\":"
      << 80 * kGiB << ",\"free\":" << free
      << "}]}]}'\n"
         "  exit 0\n"
         "fi\n"
         "exec '"
      << real << "' \"$@\"\n";
  }
  ::chmod(wrapper.c_str(), 0755);
  EngineOptions o;
  o.worker_path = wrapper;
  Engine engine(o);
  const uint64_t id = engine.run(makeSpec(Op::all_reduce, 2, 32769), Program::single, BackendKind::nccl);
  auto snap = engine.waitFor(id, 60s);
  std::filesystem::remove(wrapper);
  ASSERT_TRUE(snap && snap->request == id);
  EXPECT_TRUE(snap->rejected) << snap->error;
  EXPECT_THAT(snap->error, AllOf(HasSubstr("on GPU 0 (Stand-in GPU)"), HasSubstr("1.0 GiB free of 80.0 GiB"),
                                 HasSubstr("the largest that fits is --elems 32768")));
  EXPECT_TRUE(engine.workerPids().empty()) << "a worker started for a run that cannot fit";
}

}  // namespace
}  // namespace collviz::test
