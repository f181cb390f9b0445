// engine/bench/bench.h (nccl-tests' byte counts and bus-bandwidth factors, against
// hand-computed values for every op) and engine/bench/sweep.h (a real sweep on
// Gloo, cancel, BenchJob).
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/bench/bench.h"
#include "engine/bench/sweep.h"
#include "engine/group/proc_file.h"

namespace collviz {
namespace {

using namespace std::chrono_literals;

// collviz-rank processes whose parent is this process (alive or zombie).
int ourWorkers() {
  int n = 0;
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = d.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = readProcFile(std::atoi(pid.c_str()), "stat");
    const auto l = stat.find('('), r = stat.rfind(')');
    if (l == std::string::npos || r == std::string::npos) continue;
    std::istringstream rest(stat.substr(r + 2));
    char state;
    int ppid;
    rest >> state >> ppid;
    if (stat.substr(l + 1, r - l - 1) == "collviz-rank" && ppid == ::getpid()) ++n;
  }
  return n;
}

OpSpec spec(Op op, int ranks, int64_t elems, DType t = DType::f32) {
  OpSpec s;
  s.op = op;
  s.ranks = ranks;
  s.elems = elems;
  s.dtype = t;
  return s;
}

struct Expected {
  Op op;
  std::size_t size;   // B, N = 4, E = 2, f32
  int64_t count;      // elements
  std::size_t per_rank;
  double factor4, factor8;
};

// N = 4 ranks, E = 2 elements per block, f32 (4 B). Blocks per size: 1 for
// reduce, N for the rest. count: the whole buffer for all_reduce and
// broadcast (N*E = 8), the one block for reduce (2), the per-rank part E = 2
// for the other five.
const Expected kTable[] = {
    {Op::all_reduce, 32, 8, 32, 1.5, 1.75},
    {Op::broadcast, 32, 8, 32, 1.0, 1.0},
    {Op::reduce, 8, 2, 8, 1.0, 1.0},
    {Op::all_gather, 32, 2, 8, 0.75, 0.875},
    {Op::reduce_scatter, 32, 2, 8, 0.75, 0.875},
    {Op::all_to_all, 32, 2, 8, 0.75, 0.875},
    {Op::gather, 32, 2, 8, 0.75, 0.875},
    {Op::scatter, 32, 2, 8, 0.75, 0.875},
};

TEST(BenchFormulas, ByteCountsAndFactorsForEveryOp) {
  for (const Expected& x : kTable) {
    SCOPED_TRACE(std::string(name(x.op)));
    const OpSpec s = spec(x.op, 4, 2);
    EXPECT_EQ(sizeBytes(s), x.size);
    EXPECT_EQ(benchCount(s), x.count);
    EXPECT_EQ(perRankBytes(s), x.per_rank);
    // S = per-rank bytes (x1 or xN) equals the size column for every op.
    EXPECT_DOUBLE_EQ(algBytes(x.op, 4, double(x.per_rank)), double(x.size));
    EXPECT_DOUBLE_EQ(busBandwidthFactor(x.op, 4), x.factor4);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(x.op, 8), x.factor8);
    // One rank moves nothing over a bus: factor 0, except broadcast/reduce's 1.
    EXPECT_DOUBLE_EQ(busBandwidthFactor(x.op, 1),
                     x.op == Op::broadcast || x.op == Op::reduce ? 1.0 : 0.0);
  }
  EXPECT_EQ(kOpCount, int(std::size(kTable)));
}

TEST(BenchFormulas, AlgBytesScalesWithRanksOnlyForGatheringOps) {
  EXPECT_DOUBLE_EQ(algBytes(Op::all_reduce, 8, 1000), 1000);
  EXPECT_DOUBLE_EQ(algBytes(Op::broadcast, 8, 1000), 1000);
  EXPECT_DOUBLE_EQ(algBytes(Op::reduce, 8, 1000), 1000);
  for (Op op : {Op::all_gather, Op::reduce_scatter, Op::all_to_all, Op::gather, Op::scatter})
    EXPECT_DOUBLE_EQ(algBytes(op, 8, 1000), 8000) << name(op);
}

TEST(BenchFormulas, BandwidthIsGigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(bandwidthGBs(1e9, 1e6), 1.0);  // 1e9 B in 1 s
  EXPECT_DOUBLE_EQ(bandwidthGBs(1000, 1), 1.0);   // 1000 B in 1 us
  EXPECT_DOUBLE_EQ(bandwidthGBs(1000, 0), 0.0);
  // all_gather, N = 4, 1M f32 per rank in 1000 us: S = 16 MiB.
  const OpSpec s = spec(Op::all_gather, 4, 1 << 20);
  const double alg = bandwidthGBs(algBytes(s.op, 4, double(perRankBytes(s))), 1000);
  EXPECT_DOUBLE_EQ(alg, 16.777216);
  EXPECT_DOUBLE_EQ(alg * busBandwidthFactor(s.op, 4), 12.582912);
  // all_reduce, N = 4, 32 MiB buffer in 0.1 s: algbw 0.33554432, busbw x1.5.
  const OpSpec a = spec(Op::all_reduce, 4, (32 << 20) / 16);
  EXPECT_EQ(sizeBytes(a), std::size_t(32) << 20);
  EXPECT_DOUBLE_EQ(bandwidthGBs(algBytes(a.op, 4, double(perRankBytes(a))), 1e5), 0.33554432);
}

TEST(BenchFormulas, SizeToElementsPerBlock) {
  EXPECT_EQ(elemsForSize(Op::all_reduce, 4, DType::f32, 65536), 4096);
  EXPECT_EQ(elemsForSize(Op::all_gather, 4, DType::f32, 65536), 4096);
  EXPECT_EQ(elemsForSize(Op::reduce, 4, DType::f32, 65536), 16384);
  EXPECT_EQ(elemsForSize(Op::all_reduce, 4, DType::f64, 100), 3);  // floor(100/32)
  EXPECT_EQ(elemsForSize(Op::all_reduce, 4, DType::f32, 8), 1);    // at least one
  EXPECT_EQ(elemsForSize(Op::reduce, 3, DType::u8, 8), 8);
}

TEST(BenchFormulas, ParseAndFormatSizes) {
  EXPECT_EQ(*parseSize("8"), 8u);
  EXPECT_EQ(*parseSize("64K"), 65536u);
  EXPECT_EQ(*parseSize("64k"), 65536u);
  EXPECT_EQ(*parseSize("128M"), std::size_t(128) << 20);
  EXPECT_EQ(*parseSize("1G"), std::size_t(1) << 30);
  EXPECT_EQ(*parseSize("2MiB"), std::size_t(2) << 20);
  EXPECT_EQ(*parseSize("100B"), 100u);
  for (const char* bad : {"", "x", "12Q", "-1", "1.5M", "M", "99999999999999999999999"}) {
    auto r = parseSize(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("allowed:"), std::string::npos);
  }
  EXPECT_EQ(formatSize(134217728), "128M");
  EXPECT_EQ(formatSize(65536), "64K");
  EXPECT_EQ(formatSize(1000), "1000");
  EXPECT_EQ(formatSize(std::size_t(3) << 30), "3G");
}

TEST(BenchPlan, SizesGrowByTheFactorAndRoundToWholeElements) {
  BenchConfig c;
  c.ops = {Op::all_reduce, Op::reduce};
  c.min_bytes = 8;
  c.max_bytes = 64 << 10;
  c.factor = 8;
  const auto plan = planSweep(c);
  std::vector<std::size_t> ar, rd;
  for (const auto& p : plan) (p.spec.op == Op::all_reduce ? ar : rd).push_back(p.size);
  // all_reduce: 8 B is less than one f32 per block on 4 ranks -> 16 B.
  EXPECT_EQ(ar, (std::vector<std::size_t>{16, 64, 512, 4096, 32768}));
  EXPECT_EQ(rd, (std::vector<std::size_t>{8, 64, 512, 4096, 32768}));
  for (const auto& p : plan) EXPECT_EQ(sizeBytes(p.spec), p.size);

  c.ops = {Op::all_reduce};
  c.min_bytes = 8;
  c.max_bytes = 32;
  c.factor = 2;  // 8 -> 16, 16 -> 16 (skipped), 32
  std::vector<std::size_t> got;
  for (const auto& p : planSweep(c)) got.push_back(p.size);
  EXPECT_EQ(got, (std::vector<std::size_t>{16, 32}));
}

TEST(BenchPlan, ConfigValidationNamesTheOption) {
  auto msg = [](BenchConfig c) { return validate(c).message(); };
  BenchConfig c;
  c.factor = 1;
  EXPECT_NE(msg(c).find("-f 1"), std::string::npos);
  c = {};
  c.min_bytes = 1024;
  c.max_bytes = 8;
  EXPECT_NE(msg(c).find("allowed: -e >= -b"), std::string::npos);
  c = {};
  c.check = 30;
  EXPECT_NE(msg(c).find("-c 30"), std::string::npos);
  c = {};
  c.iters = 0;
  EXPECT_NE(msg(c).find("-n 0"), std::string::npos);
  c = {};
  c.ranks = 17;
  EXPECT_NE(msg(c).find("allowed: 1 to 16"), std::string::npos);
  EXPECT_TRUE(validate(BenchConfig{}).ok());
}

TEST(BenchPlan, SizesBeyondTheBackendAreRefusedWithTheLimit) {
  BackendCaps caps;
  caps.name = "gloo";
  caps.dtypes = {DType::f32};
  caps.redops = {RedOp::sum};
  caps.max_rank_bytes = 1 << 20;  // 1 MiB of input + output per rank
  // all_reduce, 4 ranks, f32: elems <= 1 MiB / (2 * 4 * 4) = 32768 -> 512K.
  EXPECT_EQ(maxSizeFor(Op::all_reduce, 4, DType::f32, caps), std::size_t(512) << 10);
  EXPECT_EQ(maxSizeFor(Op::reduce, 4, DType::f32, caps), std::size_t(128) << 10);
  BenchConfig c;
  c.min_bytes = 1 << 10;
  c.max_bytes = 1 << 20;
  Status st = checkAgainstBackend(planSweep(c), caps);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("allowed: -e <= 524288 (512K)"), std::string::npos)
      << st.message();
  c.max_bytes = 512 << 10;
  EXPECT_TRUE(checkAgainstBackend(planSweep(c), caps).ok());
  c.dtype = DType::f64;
  EXPECT_NE(checkAgainstBackend(planSweep(c), caps).message().find("dtype f64"),
            std::string::npos);
}

// ---- through the engine, on Gloo --------------------------------------------

BenchConfig smallSweep() {
  BenchConfig c;
  c.ops = {Op::all_reduce, Op::all_gather, Op::reduce};
  c.ranks = 3;
  c.backend = BackendKind::gloo;
  c.min_bytes = 64;
  c.max_bytes = 16 << 10;
  c.factor = 16;
  c.iters = 4;
  c.warmup = 1;
  c.check = 2;
  return c;
}

TEST(BenchSweep, RowsOnGlooAreCheckedAndConsistent) {
  Engine engine;
  const BenchConfig c = smallSweep();
  int calls = 0;
  BenchCallbacks cb;
  cb.on_row = [&](const BenchRow&, int done, int total) {
    ++calls;
    EXPECT_EQ(done, calls);
    EXPECT_EQ(total, int(planSweep(c).size()));
  };
  auto res = runSweep(engine, c, cb, nullptr);
  ASSERT_TRUE(res) << res.error().message;
  ASSERT_TRUE(res->error.empty()) << res->error;
  EXPECT_EQ(res->backend.name, "gloo");
  ASSERT_EQ(res->rows.size(), planSweep(c).size());
  EXPECT_EQ(calls, int(res->rows.size()));
  for (const BenchRow& r : res->rows) {
    SCOPED_TRACE(std::string(name(r.op)) + " " + std::to_string(r.size));
    EXPECT_EQ(r.wrong, 0);
    EXPECT_EQ(r.checks, 2);
    EXPECT_EQ(r.requests, 2);
    EXPECT_GT(r.time_us, 0);
    ASSERT_EQ(r.rank_us.size(), 3u);
    for (double us : r.rank_us) EXPECT_LE(us, r.time_us * 1.0001 + 1e-9);
    EXPECT_DOUBLE_EQ(r.algbw, double(r.size) / (r.time_us * 1e3));
    EXPECT_DOUBLE_EQ(r.busbw, r.algbw * busBandwidthFactor(r.op, 3));
    // The timed ops happen inside the requests' wall time.
    EXPECT_GE(r.engine_us, 4 * r.time_us * 0.999);
  }
  const auto j = toJson(*res, c);
  EXPECT_EQ(j["wrong_total"], 0);
  EXPECT_EQ(j["rows"].size(), res->rows.size());
  EXPECT_EQ(j["rows"][0]["redop"], "sum");
  EXPECT_EQ(j["rows"][0]["root"], -1);
}

TEST(BenchSweep, CheckZeroVerifiesNothing) {
  Engine engine;
  BenchConfig c = smallSweep();
  c.ops = {Op::broadcast};
  c.check = 0;
  auto res = runSweep(engine, c, {}, nullptr);
  ASSERT_TRUE(res && res->error.empty());
  for (const BenchRow& r : res->rows) {
    EXPECT_EQ(r.wrong, -1);
    EXPECT_EQ(r.checks, 0);
    EXPECT_EQ(r.requests, 1);
    EXPECT_EQ(r.root, 0);
  }
  EXPECT_TRUE(toJson(*res, c)["wrong_total"].is_null());
}

TEST(BenchSweep, RefusedBeforeAnythingRuns) {
  Engine engine;
  BenchConfig c = smallSweep();
  c.max_bytes = std::size_t(64) << 30;  // far beyond the 4 GiB per rank cap
  auto res = runSweep(engine, c, {}, nullptr);
  ASSERT_FALSE(res);
  EXPECT_NE(res.error().message.find("allowed: -e <="), std::string::npos);
  EXPECT_TRUE(engine.workerPids().empty());  // nothing was started
}

TEST(BenchSweep, CancelStopsAtOnce) {
  Engine engine;
  BenchConfig c = smallSweep();
  c.iters = 100000;  // the first size would take a long while
  c.check = 0;
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {  // once the first size's op runs, at most 20 s
    const auto until = std::chrono::steady_clock::now() + 20000ms;
    while (engine.progress().phase != Progress::Phase::op && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(2ms);
    cancel = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto res = runSweep(engine, c, {}, &cancel);
  stopper.join();
  ASSERT_TRUE(res);
  EXPECT_TRUE(res->cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(BenchJobTest, RunsOnItsOwnThreadAndEndsItsWorkers) {
  BenchJob job(smallSweep());
  uint64_t seen = 0;
  const auto end = std::chrono::steady_clock::now() + 60s;
  while (!job.finished() && std::chrono::steady_clock::now() < end) {
    if (job.version() != seen) {
      const auto s = job.state();
      seen = s.version;
      EXPECT_LE(s.done, s.total);
      EXPECT_EQ(int(s.rows.size()), s.done);
    }
    std::this_thread::sleep_for(5ms);
  }
  const auto s = job.state();
  ASSERT_TRUE(s.finished);
  EXPECT_TRUE(s.error.empty()) << s.error;
  EXPECT_FALSE(s.cancelled);
  EXPECT_EQ(s.done, s.total);
  EXPECT_EQ(s.rows.size(), planSweep(job.config()).size());
  EXPECT_EQ(s.backend.name, "gloo");
  EXPECT_EQ(ourWorkers(), 0);
}

// The window sleeps until woken (glfwWaitEvents) once it has seen no sweep
// running, and it may look just before the sweep sets `finished`: the end
// must wake it, or "7/7 … Cancel" stays on screen until the mouse moves
// (issue 57). A wake made when the job already says finished is that one.
TEST(BenchJobTest, ItsEndWakesTheWindow) {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<BenchJob*> watched{nullptr};
  bool woke_finished = false;
  EngineOptions eo;
  eo.wake = [&] {
    BenchJob* j = watched.load();
    const bool finished = j && j->finished();
    std::lock_guard<std::mutex> lock(mu);
    woke_finished = woke_finished || finished;
    cv.notify_all();
  };
  BenchJob job(smallSweep(), eo);
  watched = &job;
  const auto end = std::chrono::steady_clock::now() + 60s;
  while (!job.finished() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(job.finished()) << "the sweep did not finish in 60 s";
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(cv.wait_for(lock, 10s, [&] { return woke_finished; }))
      << "the sweep finished and woke no one: a window asleep since its last look shows it running";
  EXPECT_TRUE(job.state().error.empty()) << job.state().error;
}

TEST(BenchJobTest, CancelFinishesQuickly) {
  BenchConfig c = smallSweep();
  c.iters = 100000;
  c.check = 0;
  BenchJob job(c);
  std::this_thread::sleep_for(1500ms);  // workers up, first size running
  const auto t0 = std::chrono::steady_clock::now();
  job.cancel();
  while (!job.finished() && std::chrono::steady_clock::now() - t0 < 10s)
    std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(job.finished());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(job.state().cancelled);
  EXPECT_EQ(ourWorkers(), 0);
}


// bench -c checks an algorithm's rounds as docs/cli.md says (issue 38:
// `COLLVIZ_FAULT=round_corrupt:1 collviz bench --algo ring -N 4 -b 1K -e 1K
// -c 1` printed "Wrong elements: 0 OK" while run caught the same fault).
TEST(BenchSweep, ARoundFaultIsCountedWrongAndItsRoundNamed) {
  for (const char* fault : {"round_corrupt:1", "round_skip_recv:3", "rank:2,round_swap:5"}) {
    SCOPED_TRACE(fault);
    ::setenv("COLLVIZ_FAULT", fault, 1);  // as the CLI passes it: the workers' environment
    Engine engine;
    BenchConfig c;
    c.algo = "ring";
    c.ranks = 4;
    c.backend = BackendKind::gloo;
    c.min_bytes = c.max_bytes = 1024;
    c.check = 1;
    auto res = runSweep(engine, c, {}, nullptr);
    ::unsetenv("COLLVIZ_FAULT");
    ASSERT_TRUE(res) << res.error().message;
    ASSERT_TRUE(res->error.empty()) << res->error;
    ASSERT_EQ(res->rows.size(), 1u);
    EXPECT_GT(res->rows[0].wrong, 0) << "bench -c counted no wrong element under " << fault;
    EXPECT_EQ(res->rows[0].problem.rfind("round ", 0), 0u) << res->rows[0].problem;
  }
}

}  // namespace
}  // namespace collviz
