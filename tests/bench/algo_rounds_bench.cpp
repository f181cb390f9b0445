// Benchmark (figures, not a test) for algorithms run round by round.
//
// 1. Per-round overhead: ring all_reduce at N = 8, E = 16 (14 rounds) through
//    the engine with a snapshot after every round (each round's wall time
//    in the engine, between EngineOptions::on_round calls), against the same
//    rounds back to back in the workers with no snapshot (per round). The
//    difference is the fixed cost of a round through the engine (control
//    messages, copying 8 working buffers out, decoding them). The decode
//    alone is timed on the snapshot's buffers.
// 2. busbw of `collviz bench --algo ring` (the sweep runner, rounds back to
//    back in the rank workers) against gloo::AllreduceRing called directly
//    in N threads, at 16 MiB per rank, alternating, median of the repeats.
//
//   build/bin/algo_rounds_bench [--ranks 4] [--size 16M] [--iters 5] [--repeats 3]
#include <gloo/allreduce_ring.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "engine/algo/algorithms.h"
#include "engine/algo/reference.h"
#include "engine/algo/round_check.h"
#include "engine/bench/sweep.h"
#include "engine/verify/verify.h"

using namespace collviz;
using Clock = std::chrono::steady_clock;

namespace {

const char* arg(int argc, char** argv, const char* flag, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return argv[i + 1];
  return def;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

void perRoundOverhead() {
  OpSpec s;
  s.op = Op::all_reduce;
  s.ranks = 8;
  s.elems = 16;
  std::vector<Clock::time_point> marks;
  EngineOptions eo;
  eo.on_round = [&marks](int, int) { marks.push_back(Clock::now()); };
  Engine engine(eo);
  Request r;
  r.spec = s;
  r.backend = BackendKind::gloo;
  r.algo = "ring";
  engine.waitFor(engine.submit(r), std::chrono::minutes(1));  // start the group
  std::vector<double> engine_round, worker_round, decode;
  for (int rep = 0; rep < 5; ++rep) {
    marks.clear();
    auto snap = engine.waitFor(engine.submit(r), std::chrono::minutes(1));
    if (!snap || !snap->error.empty()) {
      std::printf("per-round run failed: %s\n", snap ? snap->error.c_str() : "no answer");
      return;
    }
    for (std::size_t k = 1; k < marks.size(); ++k) {
      engine_round.push_back(us(marks[k] - marks[k - 1]));
      worker_round.push_back(snap->steps[k - 1].time_us);
    }
    // The decode of one round's 8 working buffers, on its own.
    const auto sch = algo::buildSchedule("ring", s);
    const algo::Reference ref = algo::simulate(*sch);
    const Pattern p = choosePattern(s);
    StepResult in;
    in.spec = s;
    in.ranks.resize(8);
    for (int q = 0; q < 8; ++q) in.ranks[std::size_t(q)].rank = q;
    fillInputs(in, p);
    algo::ExpectedSlots expected(s, inputsAsDoubles(in));
    for (std::size_t k = 0; k < snap->steps.size(); ++k) {
      StepResult st = snap->steps[k];
      const auto t0 = Clock::now();
      algo::checkRound(st, p, ref.rounds[k], expected);
      decode.push_back(us(Clock::now() - t0));
    }
  }
  r.every_round = false;
  r.warmup = 5;
  r.iters = 50;
  auto b2b = engine.waitFor(engine.submit(r), std::chrono::minutes(1));
  const double back_to_back = b2b && b2b->error.empty() ? b2b->steps[0].time_us / 14.0 : -1;
  const double through = median(engine_round), in_worker = median(worker_round);
  std::printf("# 1. per-round cost, ring all_reduce N=8 E=16 f32 (14 rounds), Gloo, median\n");
  std::printf("round through the engine with snapshot : %9.1f us  (between on_round calls)\n", through);
  std::printf("  of which the round in the workers    : %9.1f us  (slowest rank)\n", in_worker);
  const double snapshot = through - in_worker;
  std::printf("  snapshot: control + copy + decode    : %9.1f us  (the difference; %s the 1 ms aim)\n",
              snapshot, snapshot < 1000 ? "under" : "OVER");
  std::printf("  decode of 8 working buffers alone    : %9.1f us\n", median(decode));
  std::printf("round back to back, no snapshot        : %9.1f us  (50 iterations / 14 rounds)\n",
              back_to_back);
  std::printf("fixed cost per round through the engine: %9.1f us  (through the engine - back to "
              "back: the snapshot plus waking 8 workers per round)\n",
              through - back_to_back);
}

// gloo::AllreduceRing in `n` threads, slowest rank's average (us).
double directRing(int n, std::size_t count, int warmup, int iters) {
  gloo::rendezvous::HashStore store;
  std::vector<double> per(std::size_t(n), 0.0);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      auto dev = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr("127.0.0.1"));
      auto ctx = std::make_shared<gloo::rendezvous::Context>(r, n);
      ctx->setTimeout(std::chrono::minutes(10));
      ctx->connectFullMesh(store, dev);
      std::vector<float> buf(count, float(r + 1));
      gloo::AllreduceRing<float> ring(ctx, {buf.data()}, int(count));
      double total = 0;
      for (int it = 0; it < warmup + iters; ++it) {
        const auto t0 = Clock::now();
        ring.run();
        if (it >= warmup) total += us(Clock::now() - t0);
      }
      per[std::size_t(r)] = total / iters;
    });
  for (auto& t : threads) t.join();
  return *std::max_element(per.begin(), per.end());
}

void ringBusbw(int argc, char** argv) {
  BenchConfig c;
  c.ranks = std::atoi(arg(argc, argv, "--ranks", "4"));
  c.iters = std::atoi(arg(argc, argv, "--iters", "5"));
  c.warmup = 1;
  c.check = 0;
  c.backend = BackendKind::gloo;
  c.algo = "ring";
  auto size = parseSize(arg(argc, argv, "--size", "16M"));
  c.min_bytes = c.max_bytes = size ? *size : std::size_t(16) << 20;
  const int repeats = std::max(1, std::atoi(arg(argc, argv, "--repeats", "3")));
  EngineOptions eo;
  eo.deadline = benchDeadline(c);
  Engine engine(eo);
  const std::size_t count = c.max_bytes / sizeof(float);
  std::vector<double> direct, through;
  for (int rep = 0; rep < repeats; ++rep) {
    direct.push_back(directRing(c.ranks, count, c.warmup, c.iters));
    auto res = runSweep(engine, c, {}, nullptr);
    if (!res || !res->error.empty() || res->rows.empty()) {
      std::printf("sweep failed: %s\n", res ? res->error.c_str() : res.error().message.c_str());
      return;
    }
    through.push_back(res->rows[0].time_us);
  }
  const double factor = busBandwidthFactor(Op::all_reduce, c.ranks);
  const double bytes = double(c.max_bytes);
  const double bw_direct = bandwidthGBs(bytes, median(direct)) * factor;
  const double bw_algo = bandwidthGBs(bytes, median(through)) * factor;
  std::printf("\n# 2. ring all_reduce busbw, %d ranks, %s per rank, f32 sum, median of %d\n",
              c.ranks, formatSize(c.max_bytes).c_str(), repeats);
  std::printf("gloo::AllreduceRing, direct in threads : %9.0f us  busbw %.3f GB/s\n",
              median(direct), bw_direct);
  std::printf("collviz bench --algo ring (engine)     : %9.0f us  busbw %.3f GB/s\n",
              median(through), bw_algo);
  std::printf("ratio                                  : %9.2fx (aim >= 0.8x)\n",
              bw_direct > 0 ? bw_algo / bw_direct : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  perRoundOverhead();
  ringBusbw(argc, argv);
  return 0;
}
