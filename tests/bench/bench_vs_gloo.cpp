// Benchmark (figures, not a test): `collviz bench`'s sweep runner against a
// direct Gloo loop, side by side in one run, at sizes >= 16 MiB.
//
//   direct: N threads of this process, each one rank of a Gloo TCP context on
//           127.0.0.1, calling the same Gloo function the rank worker calls on
//           buffers of the same size, timed with a steady clock around each
//           call; slowest rank's average.
//   engine: runSweep (engine/bench/sweep.h) on a Gloo Engine, as `collviz
//           bench -c 0` runs it: rank workers time the communicator call.
// The two alternate (direct, engine, direct, engine, ...) so a neighbour's
// load hits both alike; the table shows the median of the repeats. busbw uses
// engine/bench/bench.h's formulas for both.
//
//   build/bin/bench_vs_gloo [--ranks 4] [--iters 5] [--warmup 1] [--repeats 3]
//                           [--min 16M] [--max 64M] [--ops all_reduce,all_gather,broadcast]
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/bench/sweep.h"

using namespace collviz;
using Clock = std::chrono::steady_clock;

namespace {

// Slowest rank's average time per op (us), the same Gloo calls as
// engine/worker/gloo/communicator.cpp makes for `s` (f32 sum).
double directGloo(const OpSpec& s, int warmup, int iters) {
  const int n = s.ranks;
  const std::size_t e = std::size_t(s.elems);
  gloo::rendezvous::HashStore store;
  std::vector<double> per_rank(n, 0.0);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      auto dev = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr("127.0.0.1"));
      auto ctx = std::make_shared<gloo::rendezvous::Context>(r, n);
      ctx->setTimeout(std::chrono::minutes(10));
      ctx->connectFullMesh(store, dev);
      std::vector<float> in(std::size_t(inputBlocks(s.op, n, r, s.root)) * e, float(r + 1));
      std::vector<float> out(std::size_t(outputBlocks(s.op, n, r, s.root)) * e);
      double total = 0;
      for (int it = 0; it < warmup + iters; ++it) {
        const auto t0 = Clock::now();
        if (s.op == Op::all_reduce) {
          gloo::AllreduceOptions o(ctx);
          o.setInput(in.data(), n * e);
          o.setOutput(out.data(), n * e);
          o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(
              &gloo::sum<float>));
          o.setTimeout(std::chrono::minutes(10));
          gloo::allreduce(o);
        } else if (s.op == Op::all_gather) {
          gloo::AllgatherOptions o(ctx);
          o.setInput(in.data(), e);
          o.setOutput(out.data(), n * e);
          o.setTimeout(std::chrono::minutes(10));
          gloo::allgather(o);
        } else {  // broadcast
          gloo::BroadcastOptions o(ctx);
          if (r == s.root) o.setInput(in.data(), n * e);
          o.setOutput(out.data(), n * e);
          o.setRoot(s.root);
          o.setTimeout(std::chrono::minutes(10));
          gloo::broadcast(o);
        }
        if (it >= warmup)
          total += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      }
      per_rank[r] = total / iters;
    });
  }
  for (auto& t : threads) t.join();
  return *std::max_element(per_rank.begin(), per_rank.end());
}

const char* arg(int argc, char** argv, const char* flag, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return argv[i + 1];
  return def;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  BenchConfig c;
  c.ranks = std::atoi(arg(argc, argv, "--ranks", "4"));
  c.iters = std::atoi(arg(argc, argv, "--iters", "5"));
  c.warmup = std::atoi(arg(argc, argv, "--warmup", "1"));
  c.check = 0;
  c.factor = 2;
  c.backend = BackendKind::gloo;
  const int repeats = std::max(1, std::atoi(arg(argc, argv, "--repeats", "3")));
  auto mn = parseSize(arg(argc, argv, "--min", "16M"));
  auto mx = parseSize(arg(argc, argv, "--max", "64M"));
  if (!mn || !mx) {
    std::fprintf(stderr, "bench_vs_gloo: %s\n", (!mn ? mn : mx).error().message.c_str());
    return 2;
  }
  c.min_bytes = *mn;
  c.max_bytes = *mx;
  c.ops.clear();
  std::stringstream ops(arg(argc, argv, "--ops", "all_reduce,all_gather,broadcast"));
  for (std::string o; std::getline(ops, o, ',');) {
    auto op = parseOp(o);
    if (!op || !(*op == Op::all_reduce || *op == Op::all_gather || *op == Op::broadcast)) {
      std::fprintf(stderr, "bench_vs_gloo: --ops: %s; allowed: all_reduce, all_gather, "
                           "broadcast\n", o.c_str());
      return 2;
    }
    c.ops.push_back(*op);
  }
  if (Status st = validate(c); !st) {
    std::fprintf(stderr, "bench_vs_gloo: %s\n", st.message().c_str());
    return 2;
  }
  EngineOptions eo;
  eo.deadline = benchDeadline(c);
  Engine engine(eo);
  std::printf("bench_vs_gloo: f32 sum, N = %d, -n %d -w %d, %d repeats (median), Gloo tcp "
              "127.0.0.1, %u cores, load %s\n",
              c.ranks, c.iters, c.warmup, repeats, std::thread::hardware_concurrency(),
              loadavg().c_str());
  std::printf("%-11s %10s %12s %12s %10s %10s %7s %12s\n", "op", "size (B)", "direct (us)",
              "engine (us)", "direct bw", "engine bw", "ratio", "overhead(us)");
  std::printf("%-11s %10s %12s %12s %10s %10s %7s %12s\n", "", "", "", "", "busbw GB/s",
              "busbw GB/s", "", "per size");
  for (const BenchPoint& p : planSweep(c)) {
    std::vector<double> direct, eng, over;
    for (int k = 0; k < repeats; ++k) {
      direct.push_back(directGloo(p.spec, c.warmup, c.iters));
      BenchConfig one = c;
      one.ops = {p.spec.op};
      one.min_bytes = one.max_bytes = p.size;
      auto res = runSweep(engine, one, {}, nullptr);
      if (!res || !res->error.empty() || res->rows.size() != 1) {
        std::fprintf(stderr, "engine: %s\n",
                     !res ? res.error().message.c_str() : res->error.c_str());
        return 1;
      }
      eng.push_back(res->rows[0].time_us);
      over.push_back(res->rows[0].overhead_us);
    }
    const double factor = busBandwidthFactor(p.spec.op, c.ranks);
    const double bytes = algBytes(p.spec.op, c.ranks, double(perRankBytes(p.spec)));
    const double d = median(direct), e = median(eng);
    const double dbw = bandwidthGBs(bytes, d) * factor, ebw = bandwidthGBs(bytes, e) * factor;
    std::printf("%-11s %10zu %12.0f %12.0f %10.3f %10.3f %6.3fx %12.0f\n",
                std::string(name(p.spec.op)).c_str(), p.size, d, e, dbw, ebw, ebw / dbw,
                median(over));
    std::fflush(stdout);
  }
  std::printf("load at the end: %s\n", loadavg().c_str());
  return 0;
}
