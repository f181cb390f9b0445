// Figures, not a test: the compare window's sweep and α–β fit
// (app/view/compare_sweep, compare_model) on MPI and on Gloo: ring against
// tree all_reduce at N = 8 over a size sweep, each size the median of a few
// runs, and the fit of both algorithms' medians with its error.
//
//   build/bin/compare_mpi [--ranks 8] [--elems 16,1024,16384,131072] [--reps 3]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/view/compare_model.h"
#include "app/view/compare_sweep.h"
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
  const int reps = std::atoi(arg(argc, argv, "--reps", "3"));
  std::vector<int64_t> elems;
  std::stringstream es(arg(argc, argv, "--elems", "16,1024,16384,131072"));
  for (std::string e; std::getline(es, e, ',');) elems.push_back(std::atoll(e.c_str()));
  std::printf("compare_mpi: all_reduce f32 sum, N = %d, ring vs tree, median of %d runs per size\n",
              ranks, reps);
  Engine probe;
  for (BackendKind b : {BackendKind::mpi, BackendKind::gloo}) {
    if (const BackendStatus* st = probe.devices().find(b); !st || !st->available) {
      std::printf("%s unavailable: %s\n", std::string(name(b)).c_str(), st ? st->reason.c_str() : "?");
      continue;
    }
    ui::CompareSweepConfig c;
    c.spec.op = Op::all_reduce;
    c.spec.ranks = ranks;
    c.spec.elems = elems.front();
    c.a = "ring";
    c.b = "tree";
    c.backend = b;
    c.reps = reps;
    c.elems = elems;
    EngineOptions eo;
    eo.deadline = std::chrono::milliseconds(30000);
    ui::CompareSweep sweep(c, eo);
    while (!sweep.state().finished) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const ui::CompareSweep::State st = sweep.state();
    if (!st.error.empty()) {
      std::fprintf(stderr, "%s: %s\n", std::string(name(b)).c_str(), st.error.c_str());
      return 1;
    }
    std::printf("\n%s\n%12s | %12s %12s | %s\n", std::string(name(b)).c_str(), "S (B)", "ring us",
                "tree us", "faster");
    for (std::size_t k = 0; k < st.series[0].sizes.size(); ++k) {
      const ui::SizePoint& r = st.series[0].sizes[k];
      const ui::SizePoint& t = st.series[1].sizes[k];
      const double bytes = r.block_bytes * ranks;
      std::printf("%12.0f | %12.1f %12.1f | %s\n", bytes, r.median_us, t.median_us,
                  r.median_us < t.median_us ? "ring" : "tree");
    }
    const ui::AlphaBeta fit = ui::fitAlphaBeta(ui::modelPoints(st.series));
    std::printf("fit: %s; RMS error %.1f %% over %d points\n", ui::fitText(fit).c_str(),
                100 * fit.rms_rel_error, fit.points);
    std::fflush(stdout);
  }
  return 0;
}
