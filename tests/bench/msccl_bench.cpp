// Benchmark (figures, not a test): a 128-chunk, 8-rank MSCCL file (ring
// all_reduce, tests/engine/algo/msccl/bench) read, checked, lowered and run on Gloo.
// Prints, for the file on 16 channels (14 rounds) and on one channel (224
// rounds): reading + checking, lowering + the symbolic reference, the run
// as `collviz run --algo-file` does it (every round decoded and checked,
// then the native op for the byte comparison), the rounds back to back
// (`every_round = false`), and the native all_reduce alone on the same spec,
// medians of the repeats, side by side. The aim: the checked run under 2 s.
//
//   build/bin/msccl_bench [--elems 16] [--repeats 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/algo/msccl/msccl.h"
#include "engine/algo/reference.h"
#include "engine/engine.h"

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

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// One request's wall time (ms); exits on an error or a failed check.
double timeRun(Engine& e, const Request& r) {
  const auto t0 = Clock::now();
  auto snap = e.waitFor(e.submit(r), std::chrono::seconds(300));
  const double t = ms(Clock::now() - t0);
  if (!snap || !snap->error.empty() || !snap->verified) {
    std::fprintf(stderr, "msccl_bench: %s %s\n", r.algo.c_str(),
                 snap ? (snap->error.empty() ? "NOT VERIFIED" : snap->error.c_str()) : "no answer");
    std::exit(1);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t elems_per_chunk = std::atoll(arg(argc, argv, "--elems", "16"));
  const int repeats = std::max(1, std::atoi(arg(argc, argv, "--repeats", "3")));
  const std::string dir = std::string(COLLVIZ_MSCCL_DIR) + "/bench/";
  std::printf("MSCCL file on Gloo: 8 ranks, 128 chunks per loop (16 per block), %lld f32 per chunk; "
              "medians of %d (ms)\n\n", static_cast<long long>(elems_per_chunk), repeats);
  std::printf("%-36s %7s %8s %8s %10s %10s %8s %s\n", "file", "rounds", "read", "lower", "checked",
              "b2b", "native", "checked/native");
  Engine engine;
  for (const char* name : {"ring_allreduce_8_128chunks_16ch.xml", "ring_allreduce_8_128chunks_1ch.xml"}) {
    std::vector<double> read_ms, lower_ms, checked_ms, b2b_ms, native_ms;
    int rounds = 0;
    for (int k = 0; k < repeats; ++k) {
      auto t0 = Clock::now();
      auto file = algo::readMscclFile(dir + name);
      if (!file) {
        std::fprintf(stderr, "msccl_bench: %s\n", file.error().message.c_str());
        return 1;
      }
      read_ms.push_back(ms(Clock::now() - t0));
      OpSpec s;
      s.op = file->op;
      s.ranks = file->ngpus;
      s.elems = elems_per_chunk * file->parts;
      auto shared = std::make_shared<algo::MscclAlgo>(std::move(*file));
      t0 = Clock::now();
      auto sch = algo::lowerMscclFile(*shared, s);
      if (!sch) return std::fprintf(stderr, "msccl_bench: %s\n", sch.error().message.c_str()), 1;
      const algo::Reference ref = algo::simulate(*sch);
      lower_ms.push_back(ms(Clock::now() - t0));
      rounds = int(sch->rounds.size());
      algo::registerMscclFile(shared);
      Request r;
      r.spec = s;
      r.backend = BackendKind::gloo;
      r.algo = algo::mscclAlgoName(*shared);
      if (k == 0) timeRun(engine, r);  // the group starts once, outside the figures
      checked_ms.push_back(timeRun(engine, r));
      r.every_round = false;
      b2b_ms.push_back(timeRun(engine, r));
      r.algo = "native";
      native_ms.push_back(timeRun(engine, r));
    }
    std::printf("%-36s %7d %8.1f %8.1f %10.1f %10.1f %8.1f %.1fx\n", name, rounds, median(read_ms),
                median(lower_ms), median(checked_ms), median(b2b_ms), median(native_ms),
                median(checked_ms) / std::max(1e-9, median(native_ms)));
  }
  std::printf("\nchecked: `collviz run --algo-file` (every round decoded + the native op compared); "
              "b2b: the rounds back to back, output checked once; native: Gloo's own all_reduce.\n");
  return 0;
}
