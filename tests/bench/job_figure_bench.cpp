// Figures, not a test: the figure of a 16-rank job (collviz export --job):
// its Flight Recorder dumps (2 000 entries a rank, PyTorch's default ring
// buffer; tests/bench/job_dumps.h: rank 13 stops short in its data-parallel
// group) read and analysed (engine/job), drawn (app/view/job_figure) and
// written as SVG and as PNG at 1x and 2x (app/files/nccl_log_svg, _png),
// each step timed, best of the rounds. Aim: the figure <= 1 s from the files.
//   job_figure_bench [ranks] [entries] [rounds]   (16 2000 5; the dumps go to a folder under /tmp, removed)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/files/image_file.h"
#include "app/files/nccl_log_png.h"
#include "app/files/nccl_log_svg.h"
#include "app/view/job_figure.h"
#include "tests/bench/job_dumps.h"

namespace {

using namespace collviz;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::atoi(argv[1]) : 16;
  const int entries = argc > 2 ? std::atoi(argv[2]) : 2000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  const fs::path dir = fs::temp_directory_path() / ("collviz_job_figure_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (int r = 0; r < ranks; ++r)
    std::ofstream(dir / ("_dump_" + std::to_string(r)), std::ios::binary) << test::pickleDump(test::benchDump(r, ranks, entries));
  double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};  // read+analyse, draw, svg, png 1x, png 2x
  std::size_t svgBytes = 0, shapes = 0;
  std::string verdict;
  for (int round = 0; round < rounds; ++round) {
    auto t = Clock::now();
    auto job = job::read({dir.string()});
    if (!job) {
      std::fprintf(stderr, "read: %s\n", job.error().message.c_str());
      fs::remove_all(dir);
      return 1;
    }
    const job::Analysis a = job::analyse(*job);
    const double read = since(t);
    t = Clock::now();
    auto fig = ui::jobFigure(*job, a, ui::JobFigureParams{});
    const double draw = since(t);
    if (!fig) {
      std::fprintf(stderr, "figure: %s\n", fig.error().message.c_str());
      fs::remove_all(dir);
      return 1;
    }
    t = Clock::now();
    const std::string svg = ui::figureToSvg(*fig);
    const double svgS = since(t);
    double png[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      t = Clock::now();
      auto img = ui::figureToImage(*fig, float(k + 1));
      if (img) (void)ui::encodePng(*img);
      png[k] = img ? since(t) : -1;
    }
    const double now[5] = {read, draw, svgS, png[0], png[1]};
    for (int k = 0; k < 5; ++k) best[k] = std::min(best[k], now[k]);
    svgBytes = svg.size(), shapes = fig->shapes.size(), verdict = std::string(a.verdict);
    std::printf("round %d: read+analyse %.3f s, figure %.4f s, SVG %.4f s, PNG 1x %.3f s, 2x %.3f s\n", round + 1, read, draw, svgS, png[0],
                png[1]);
  }
  fs::remove_all(dir);
  std::printf("verdict: %s\n%zu shapes, SVG %zu bytes\n", verdict.c_str(), shapes, svgBytes);
  std::printf("best of %d, %d ranks x %d entries: read+analyse %.3f s + figure %.4f s + SVG %.4f s = %.3f s; with PNG 1x %.3f s, 2x %.3f s "
              "(aim: the figure <= 1 s)\n",
              rounds, ranks, entries, best[0], best[1], best[2], best[0] + best[1] + best[2], best[0] + best[1] + best[3],
              best[0] + best[1] + best[4]);
  return 0;
}
