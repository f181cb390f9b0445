// Figures, not a test: the compare view's model (app/view/compare_model) on
// MPI and on Gloo: ring against tree all_reduce at N = 8 over a size sweep,
// each algorithm run round by round through the engine, the measured totals,
// and the α–β fit over both algorithms' rounds with its estimates.
//
//   build/tests/compare_mpi [--ranks 8] [--elems 16,1024,16384,131072]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "app/view/compare_model.h"
#include "engine/engine.h"

using namespace collviz;

namespace {

const char* arg(int argc, char** argv, const char* flag, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return argv[i + 1];
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = std::atoi(arg(argc, argv, "--ranks", "8"));
  std::vector<int64_t> elems;
  std::stringstream es(arg(argc, argv, "--elems", "16,1024,16384,131072"));
  for (std::string e; std::getline(es, e, ',');) elems.push_back(std::atoll(e.c_str()));
  EngineOptions eo;
  eo.deadline = std::chrono::milliseconds(30000);
  Engine engine(eo);
  std::printf("compare_mpi: all_reduce f32 sum, N = %d, ring vs tree, rounds run one by one\n",
              ranks);
  std::printf("%-5s %10s | %12s %12s | %12s %12s | %10s %12s | %s\n", "back", "S (B)",
              "ring us", "tree us", "ring est", "tree est", "alpha us", "beta us/KiB",
              "faster");
  for (BackendKind b : {BackendKind::mpi, BackendKind::gloo}) {
    if (const BackendStatus* st = engine.devices().find(b); !st || !st->available) {
      std::printf("%s unavailable: %s\n", std::string(name(b)).c_str(), st ? st->reason.c_str() : "?");
      continue;
    }
    for (int64_t e : elems) {
      OpSpec s;
      s.op = Op::all_reduce;
      s.ranks = ranks;
      s.elems = e;
      std::shared_ptr<const Snapshot> snaps[2];
      const char* algos[2] = {"ring", "tree"};
      for (int i = 0; i < 2; ++i) {
        Request r;
        r.spec = s;
        r.backend = b;
        r.algo = algos[i];
        r.keep_values = 0;
        snaps[i] = engine.waitFor(engine.submit(r), std::chrono::seconds(300));
        if (!snaps[i] || !snaps[i]->error.empty()) {
          std::fprintf(stderr, "%s %s: %s\n", std::string(name(b)).c_str(), algos[i],
                       snaps[i] ? snaps[i]->error.c_str() : "no answer");
          return 1;
        }
      }
      const ui::Comparison c = ui::buildComparison(s, "ring", snaps[0], "tree", snaps[1]);
      const std::size_t bytes = std::size_t(ranks) * std::size_t(e) * 4;
      std::printf("%-5s %10zu | %12.1f %12.1f | %12.1f %12.1f | %10.2f %12.4f | %s\n",
                  std::string(name(b)).c_str(), bytes, c.rows[0].measured_us,
                  c.rows[1].measured_us, c.rows[0].estimate_us, c.rows[1].estimate_us,
                  c.fit.alpha_us, c.fit.beta_us_per_byte * 1024,
                  c.rows[0].measured_us < c.rows[1].measured_us ? "ring" : "tree");
      std::fflush(stdout);
    }
  }
  return 0;
}
