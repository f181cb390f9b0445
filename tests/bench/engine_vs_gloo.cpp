// Benchmark (figures, not a test): all_reduce through the collviz engine
// against direct Gloo calls, side by side in one run.
//
//   direct: N threads of this process, each one rank of a Gloo TCP context on
//           127.0.0.1 (rendezvous through an in-process HashStore), calling
//           gloo::allreduce in a loop.
//   engine: Engine::submit on the same op; the rank workers time the
//           communicator call (slowest rank), the caller times the request.
//
// Both sides all-reduce the same number of floats per rank for every N
// (16 for latency, 16 MiB for bandwidth; N blocks of count / N elements, so
// the count must divide by N). Each side is warmed up, then measured in
// --rounds rounds that alternate direct and engine, so drift in the machine
// (other jobs, frequency) falls on both alike; the figures are the medians
// of the rounds. busbw uses nccl-tests' all_reduce factor 2(N-1)/N.
//
//   build/bin/engine_vs_gloo [--ranks 4] [--lat-iters 300] [--bw-iters 10] [--rounds 7]
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

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
  const int rounds = std::max(1, argInt(argc, argv, "--rounds", 7));
  const double factor = 2.0 * (ranks - 1) / ranks;
  // The same floats per rank on both sides, rounded up to a multiple of N.
  auto perRank = [&](std::size_t want) { return (want + ranks - 1) / ranks * ranks; };
  const std::size_t lat_floats = perRank(16), bw_floats = perRank((std::size_t(16) << 20) / 4);
  const double bw_bytes = double(bw_floats) * sizeof(float);

  std::printf("all_reduce, f32 sum, N = %d, Gloo tcp 127.0.0.1, %u cores; medians of %d "
              "alternating rounds after a warm-up\n",
              ranks, std::thread::hardware_concurrency(), rounds);
  Engine engine;
  const int64_t lat_elems = int64_t(lat_floats) / ranks, bw_elems = int64_t(bw_floats) / ranks;
  // Warm-up: connections, pages, caches on both sides.
  directAllreduce(ranks, lat_floats, 50, 50);
  engineAllreduce(engine, ranks, lat_elems, 50, 50, 1, true);
  std::vector<double> d_lat, e_rep, e_one_req, e_one_op, d_bw, e_bw, e_bw_req;
  for (int k = 0; k < rounds; ++k) {
    // Alternate which side goes first in a round.
    auto direct = [&] {
      d_lat.push_back(directAllreduce(ranks, lat_floats, 10, lat_iters));
      d_bw.push_back(directAllreduce(ranks, bw_floats, 1, bw_iters));
    };
    auto viaEngine = [&] {
      // One request of lat_iters repetitions: the communicator's own time in the workers.
      e_rep.push_back(engineAllreduce(engine, ranks, lat_elems, 10, lat_iters, 1, true).op_us);
      // Single-op requests: what a viewer pays per op (control, poison, copies, verify).
      const EngineFigures one = engineAllreduce(engine, ranks, lat_elems, 0, 1, lat_iters / 10, true);
      e_one_req.push_back(one.request_us);
      e_one_op.push_back(one.op_us);
      const EngineFigures bw = engineAllreduce(engine, ranks, bw_elems, 1, bw_iters, 1, true);
      e_bw.push_back(bw.op_us);
      e_bw_req.push_back(bw.request_us);
    };
    if (k % 2 == 0) direct(), viaEngine();
    else viaEngine(), direct();
  }
  const double dl = median(d_lat), er = median(e_rep), eo = median(e_one_req);
  std::printf("\nlatency, %zu floats per rank           time (us)   ratio to direct\n", lat_floats);
  std::printf("  direct gloo::allreduce (threads)   %10.1f\n", dl);
  std::printf("  engine, op in rank workers         %10.1f   %6.2fx\n", er, er / dl);
  std::printf("  engine, one request per op         %10.1f   %6.2fx  (fixed cost %.1f us "
              "= request - op)\n", eo, eo / dl, eo - median(e_one_op));
  const double db = median(d_bw), eb = median(e_bw);
  auto busbw = [&](double us) { return bw_bytes / (us * 1e-6) / 1e9 * factor; };
  std::printf("\nbandwidth, %.0f MiB per rank            time (us)   busbw (GB/s)   ratio\n",
              bw_bytes / (1 << 20));
  std::printf("  direct gloo::allreduce (threads)   %10.1f   %10.3f\n", db, busbw(db));
  std::printf("  engine, op in rank workers         %10.1f   %10.3f   %6.3fx\n", eb, busbw(eb),
              busbw(eb) / busbw(db));
  std::printf("  engine request incl. copy+verify   %10.1f   (per request of 1+%d reps)\n",
              median(e_bw_req), bw_iters);
  return 0;
}
