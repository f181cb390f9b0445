// Benchmark (figures, not a test): all_reduce through the collviz engine
// against direct Gloo calls, side by side in one run.
//
//   direct: N threads of this process, each one rank of a Gloo TCP context on
//           127.0.0.1 (rendezvous through an in-process HashStore), calling
//           gloo::allreduce in a loop.
//   engine: Engine::submit on the same op; the rank workers time the
//           communicator call (slowest rank), the caller times the request.
//
// Latency: 16 floats per rank. Bandwidth: 16 MiB per rank, busbw with
// nccl-tests' all_reduce factor 2(N-1)/N.
//
//   build/bin/engine_vs_gloo [--ranks 4] [--lat-iters 300] [--bw-iters 10]
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"

using namespace collviz;
using Clock = std::chrono::steady_clock;

namespace {

// Per-op time of the slowest rank, in microseconds.
double directAllreduce(int ranks, std::size_t floats, int warmup, int iters) {
  gloo::rendezvous::HashStore store;
  std::vector<double> per_rank(ranks, 0.0);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      auto dev = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr("127.0.0.1"));
      auto ctx = std::make_shared<gloo::rendezvous::Context>(r, ranks);
      ctx->connectFullMesh(store, dev);
      std::vector<float> in(floats, float(r + 1)), out(floats);
      double total = 0;
      for (int it = 0; it < warmup + iters; ++it) {
        gloo::AllreduceOptions o(ctx);
        o.setInput(in.data(), floats);
        o.setOutput(out.data(), floats);
        o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(
            &gloo::sum<float>));
        const auto t0 = Clock::now();
        gloo::allreduce(o);
        if (it >= warmup)
          total += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      }
      per_rank[r] = total / iters;
    });
  }
  for (auto& t : threads) t.join();
  return *std::max_element(per_rank.begin(), per_rank.end());
}

struct EngineFigures {
  double op_us = 0;       // inside the communicator, slowest rank, per op
  double request_us = 0;  // submit -> snapshot, per request, seen by the caller
};

EngineFigures engineAllreduce(Engine& e, int ranks, int64_t elems, int warmup, int iters,
                              int requests, bool verify) {
  OpSpec s;
  s.op = Op::all_reduce;
  s.ranks = ranks;
  s.elems = elems;
  EngineFigures f;
  double op_total = 0, req_total = 0;
  for (int q = 0; q < requests + 1; ++q) {  // the first request starts the workers
    Request r;
    r.spec = s;
    r.backend = BackendKind::gloo;
    r.warmup = warmup;
    r.iters = iters;
    r.verify = verify;
    const auto t0 = Clock::now();
    auto snap = e.waitFor(e.submit(r), std::chrono::minutes(5));
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (!snap || !snap->error.empty()) {
      std::fprintf(stderr, "engine: %s\n", snap ? snap->error.c_str() : "timeout");
      std::exit(1);
    }
    if (verify && !snap->verified) {
      std::fprintf(stderr, "engine: result not verified\n");
      std::exit(1);
    }
    if (q == 0) continue;
    op_total += snap->time_us;
    req_total += us;
  }
  f.op_us = op_total / requests;
  f.request_us = req_total / requests;
  return f;
}

int argInt(int argc, char** argv, const char* flag, int def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return std::atoi(argv[i + 1]);
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argInt(argc, argv, "--ranks", 4);
  const int lat_iters = argInt(argc, argv, "--lat-iters", 300);
  const int bw_iters = argInt(argc, argv, "--bw-iters", 10);
  const double factor = 2.0 * (ranks - 1) / ranks;
  const std::size_t lat_floats = 16, bw_bytes = std::size_t(16) << 20;
  const std::size_t bw_floats = bw_bytes / sizeof(float);

  std::printf("all_reduce, f32 sum, N = %d, Gloo tcp 127.0.0.1, %u cores\n", ranks,
              std::thread::hardware_concurrency());
  // Latency.
  const double d_lat = directAllreduce(ranks, lat_floats, 50, lat_iters);
  Engine engine;
  // One request of lat_iters repetitions: the communicator's own time in the workers.
  const EngineFigures e_rep = engineAllreduce(engine, ranks, 16 / ranks, 50, lat_iters, 1, true);
  // Many single-op requests: what a viewer pays per op (control, shm, verify, snapshot).
  const EngineFigures e_one = engineAllreduce(engine, ranks, 16 / ranks, 0, 1, lat_iters, true);
  std::printf("\nlatency, 16 floats per rank            time (us)   ratio to direct\n");
  std::printf("  direct gloo::allreduce (threads)   %10.1f\n", d_lat);
  std::printf("  engine, op in rank workers         %10.1f   %6.2fx\n", e_rep.op_us,
              e_rep.op_us / d_lat);
  std::printf("  engine, one request per op         %10.1f   %6.2fx  (fixed cost %.1f us "
              "= request - op)\n",
              e_one.request_us, e_one.request_us / d_lat, e_one.request_us - e_one.op_us);

  // Bandwidth.
  const double d_bw_us = directAllreduce(ranks, bw_floats, 2, bw_iters);
  const EngineFigures e_bw =
      engineAllreduce(engine, ranks, int64_t(bw_floats) / ranks, 2, bw_iters, 1, true);
  auto busbw = [&](double us) { return double(bw_bytes) / (us * 1e-6) / 1e9 * factor; };
  std::printf("\nbandwidth, 16 MiB per rank            time (us)   busbw (GB/s)   ratio\n");
  std::printf("  direct gloo::allreduce (threads)   %10.1f   %10.3f\n", d_bw_us, busbw(d_bw_us));
  std::printf("  engine, op in rank workers         %10.1f   %10.3f   %6.3fx\n", e_bw.op_us,
              busbw(e_bw.op_us), busbw(e_bw.op_us) / busbw(d_bw_us));
  std::printf("  engine request incl. copy+verify   %10.1f   (per request of %d+%d reps)\n",
              e_bw.request_us, 2, bw_iters);
  return 0;
}
