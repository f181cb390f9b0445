// Benchmark (figures, not a test): the MPI backend against Gloo and against
// a plain MPI loop, side by side in one run.
//
//   plain:  mpirun -np N mpi-plain-loop (tests/bench/mpi_plain_loop.cpp): MPI's
//           call back to back with nothing around it, slowest rank's average.
//   mpi:    runSweep (engine/bench/sweep.h) on --backend mpi, as `collviz bench
//           -c 0` runs it: the rank workers time MPI's call.
//   gloo:   the same on --backend gloo.
// Points: 64 B all_reduce (latency), and 16 MiB and 64 MiB all_reduce,
// all_gather, broadcast (busbw, nccl-tests' formulas). The three alternate
// per repeat so a neighbour's load hits them alike, the plain loop and the
// engine in turn first (an order effect cancels); the times are medians, and
// the ratio engine/plain is the median of each repeat's pair (the two run
// back to back, so a slow minute of the machine slows both of a pair).
//
// --control runs the plain loop a second time in each repeat and prints its
// ratio to the first, paired the same way: the same program against itself,
// what this machine's noise alone moves a ratio by.
//
// Each point's repeats are printed under it (the spread). Without --bind,
// each side runs as a user runs it: the plain loop as mpirun runs more ranks
// than cores unless told (--bind-to none: the ranks pair up on the cores as
// the kernel decides, anew for each plain job), the engine with collviz's
// default placement (COLLVIZ_MPI_BIND unset: mpirun binds nothing, each rank
// binds itself op by op, worker/op_binding.h). --bind
// VALUE binds both the plain loop's ranks and the engine's (COLLVIZ_MPI_BIND)
// the same way; --bind none leaves both unbound.
//
// --fresh-group starts the engine's ranks as a new MPI job for each repeat,
// as each repeat of the plain loop is one (the group's start is not timed).
//
// --ops LIST (all_reduce,all_gather,broadcast) keeps the big points of those
// ops only (the 64 B point stays with all_reduce); --engine-bind VALUE binds
// the engine's ranks alone (COLLVIZ_MPI_BIND), the plain loop as --bind says.
//
//   build/bin/mpi_bench [--ranks 4] [--repeats 3] [--iters 5] [--lat-iters 10000] [--bind none|core|...]
//                         [--engine-bind none|core|...] [--ops LIST] [--fresh-group] [--control]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/bench/sweep.h"
#include "engine/group/mpi_launch.h"

using namespace collviz;

namespace {

const char* arg(int argc, char** argv, const char* flag, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return argv[i + 1];
  return def;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The plain loop's time per call (us), or < 0 with the reason on stderr.
double plainMpi(const std::string& mpirun, int ranks, Op op, std::size_t size, int iters,
                int warmup, const std::string& bind) {
  std::string cmd;
  for (const auto& e : mpirunEnv(::geteuid() == 0)) cmd += e + " ";
  for (const auto& a : mpirunArgs(mpirun, ranks,
                                  {MPI_PLAIN_LOOP, std::string(name(op)), std::to_string(size),
                                   std::to_string(iters), std::to_string(warmup)},
                                  bind))
    cmd += "'" + a + "' ";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  char line[512] = {};
  std::string out;
  while (std::fgets(line, sizeof line, p)) out += line;
  const int rc = ::pclose(p);
  std::istringstream is(out);
  std::string o;
  int n = 0;
  long long sz = 0;
  double us = -1;
  if (rc != 0 || !(is >> o >> n >> sz >> us)) {
    std::fprintf(stderr, "plain MPI loop failed (%d): %s\n", rc, out.c_str());
    return -1;
  }
  return us;
}

double engineUs(Engine& e, BenchConfig c, Op op, std::size_t size) {
  c.ops = {op};
  c.min_bytes = c.max_bytes = size;
  auto res = runSweep(e, c, {}, nullptr);
  if (!res || !res->error.empty() || res->rows.size() != 1) {
    std::fprintf(stderr, "%s: %s\n", std::string(name(c.backend)).c_str(),
                 !res ? res.error().message.c_str() : res->error.c_str());
    return -1;
  }
  return res->rows[0].time_us;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = std::atoi(arg(argc, argv, "--ranks", "4"));
  const int repeats = std::max(1, std::atoi(arg(argc, argv, "--repeats", "3")));
  const int iters = std::atoi(arg(argc, argv, "--iters", "5"));
  const int lat_iters = std::atoi(arg(argc, argv, "--lat-iters", "10000"));
  // No --bind: the plain loop unbound (mpirun's own when oversubscribed), the
  // engine with its default; --bind VALUE: both bound alike.
  const char* bind_arg = arg(argc, argv, "--bind", nullptr);
  bool fresh = false;    // --fresh-group: the engine's ranks a new MPI job each repeat
  bool control = false;  // --control: the plain loop twice per repeat (the noise)
  for (int i = 1; i < argc; ++i) {
    fresh = fresh || std::strcmp(argv[i], "--fresh-group") == 0;
    control = control || std::strcmp(argv[i], "--control") == 0;
  }
  auto bind = bind_arg ? mpiBinding(bind_arg) : Result<std::string>(std::string("none"));
  if (!bind) {
    std::fprintf(stderr, "mpi_bench: --bind: %s\n", bind.error().message.c_str());
    return 2;
  }
  const char* engine_bind_arg = arg(argc, argv, "--engine-bind", bind_arg);
  if (engine_bind_arg && !mpiBinding(engine_bind_arg)) {
    std::fprintf(stderr, "mpi_bench: --engine-bind: %s\n", mpiBinding(engine_bind_arg).error().message.c_str());
    return 2;
  }
  if (engine_bind_arg) ::setenv("COLLVIZ_MPI_BIND", engine_bind_arg, 1);  // as the plain loop's unless told
  else ::unsetenv("COLLVIZ_MPI_BIND");                                    // the engine's default
  const std::string ops = arg(argc, argv, "--ops", "all_reduce,all_gather,broadcast");
  auto wanted = [&](Op op) { return ("," + ops + ",").find("," + std::string(name(op)) + ",") != std::string::npos; };
  for (std::size_t at = 0; at <= ops.size();) {
    const std::size_t comma = std::min(ops.find(',', at), ops.size());
    const std::string one = ops.substr(at, comma - at);
    if (one != "all_reduce" && one != "all_gather" && one != "broadcast") {
      std::fprintf(stderr, "mpi_bench: --ops: '%s' is not one of all_reduce, all_gather, broadcast\n", one.c_str());
      return 2;
    }
    at = comma + 1;
  }
  const std::string engine_bind = *mpiBinding(std::getenv("COLLVIZ_MPI_BIND")) +
                                  (mpiBindsPerOp(std::getenv("COLLVIZ_MPI_BIND")) ? ", each rank bound op by op" : "");
  auto mpirun = findMpirun();
  if (!mpirun) {
    std::fprintf(stderr, "mpi_bench: %s\n", mpirun.error().message.c_str());
    return 77;
  }
  struct Point {
    Op op;
    std::size_t size;
  };
  std::vector<Point> points;
  if (wanted(Op::all_reduce)) points.push_back({Op::all_reduce, 64});
  for (std::size_t mib : {16, 64})
    for (Op op : {Op::all_reduce, Op::all_gather, Op::broadcast})
      if (wanted(op)) points.push_back({op, mib << 20});

  BenchConfig c;
  c.ranks = ranks;
  c.check = 0;
  c.max_bytes = std::size_t(64) << 20;
  EngineOptions eo;
  eo.deadline = benchDeadline(c);
  Engine mpi(eo), gloo(eo);
  if (const BackendStatus* st = mpi.devices().find(BackendKind::mpi); !st || !st->available) {
    std::fprintf(stderr, "mpi_bench: MPI unavailable: %s\n", st ? st->reason.c_str() : "?");
    return 77;
  }
  std::printf("mpi_bench: f32 sum, N = %d, %d repeats (times: medians; ratios: the median of the pairs); 64 B: -n %d (Gloo at most 1000), big: -n %d -w 1; "
              "plain --bind-to %s, engine --bind-to %s%s; %s; %u cores, load %s\n",
              ranks, repeats, lat_iters, iters, bind->c_str(), engine_bind.c_str(),
              engine_bind_arg ? "" : " (its default)",
              mpi.devices().find(BackendKind::mpi)->info.version.c_str(),
              std::thread::hardware_concurrency(), loadavg().c_str());
  std::printf("%-11s %9s | %11s %11s %11s | %9s %9s %9s | %10s %10s\n", "op", "size", "plain us",
              "mpi us", "gloo us", "plain bw", "mpi bw", "gloo bw", "mpi/plain", "mpi/gloo");
  std::printf("%-11s %9s | %11s %11s %11s | %9s %9s %9s | %10s %10s\n", "", "", "", "", "",
              "busbw", "GB/s", "", "busbw", "time");
  struct Ratio {
    Op op;
    std::size_t size;
    double bw;  // engine / plain busbw (64 B: plain / engine time)
  };
  std::vector<Ratio> ratios;
  for (const Point& p : points) {
    const bool lat = p.size < 4096;
    BenchConfig one = c;
    one.iters = lat ? lat_iters : iters;
    one.warmup = lat ? 100 : 1;
    std::vector<double> plain, em, eg, again, paired, noise;
    auto plainOnce = [&] { return plainMpi(*mpirun, ranks, p.op, p.size, one.iters, one.warmup, *bind); };
    auto engineOnce = [&] {
      one.backend = BackendKind::mpi;
      if (!fresh) return engineUs(mpi, one, p.op, p.size);
      Engine group(eo);  // a new group (a new MPI job) for this repeat, as the plain loop's
      return engineUs(group, one, p.op, p.size);
    };
    for (int k = 0; k < repeats; ++k) {
      if (k % 2 == 0) {  // the pair back to back, each first in turn
        plain.push_back(plainOnce());
        em.push_back(engineOnce());
      } else {
        em.push_back(engineOnce());
        plain.push_back(plainOnce());
      }
      if (plain.back() > 0 && em.back() > 0) paired.push_back(plain.back() / em.back());
      if (control) {
        again.push_back(plainOnce());
        if (plain.back() > 0 && again.back() > 0) noise.push_back(plain.back() / again.back());
      }
      one.backend = BackendKind::gloo;
      BenchConfig g = one;  // Gloo's 64 B call takes milliseconds: a thousand of them are enough
      if (lat) g.iters = std::min(g.iters, 1000);
      eg.push_back(engineUs(gloo, g, p.op, p.size));
    }
    const double factor = busBandwidthFactor(p.op, ranks);
    const double bytes = double(p.size);
    const double tp = median(plain), tm = median(em), tg = median(eg);
    // engine/plain busbw (the same bytes): the plain loop's time over the
    // engine's, the median of the pairs.
    const double ratio = median(paired);
    auto bw = [&](double us) { return us > 0 ? bandwidthGBs(bytes, us) * factor : 0.0; };
    std::printf("%-11s %9s | %11.2f %11.2f %11.2f | %9.3f %9.3f %9.3f | %9.3fx %9.4fx\n",
                std::string(name(p.op)).c_str(), formatSize(p.size).c_str(), tp, tm, tg, bw(tp),
                bw(tm), bw(tg), ratio, tg > 0 ? tm / tg : 0.0);
    auto list = [](const std::vector<double>& v, int digits) {
      std::string t;
      char b[32];
      for (double x : v) std::snprintf(b, sizeof b, " %.*f", digits, x), t += b;
      return t;
    };
    std::string spread = "            repeats (us): plain" + list(plain, 0) + " | mpi" + list(em, 0) +
                         " | pairs" + list(paired, 3);
    if (control)
      spread += "\n            control: plain again (us)" + list(again, 0) + " | plain/plain" +
                list(noise, 3) + " (median " + list({median(noise)}, 3).substr(1) + ")";
    std::printf("%s\n", spread.c_str());
    std::fflush(stdout);
    ratios.push_back({p.op, p.size, ratio});
  }
  std::printf("aims: mpi/plain busbw >= 0.9x; 64 B all_reduce mpi/gloo time <= 0.1x\n");
  std::printf("load at the end: %s\n", loadavg().c_str());
  // The last lines: the engine on MPI against the plain loop.
  std::printf("engine/plain MPI busbw:");
  for (const Ratio& r : ratios)
    if (r.size >= 4096)
      std::printf(" %s %s %.3fx;", std::string(name(r.op)).c_str(), formatSize(r.size).c_str(), r.bw);
  std::printf(" aim >= 0.9x\n");
  for (const Ratio& r : ratios)
    if (r.size < 4096)
      std::printf("engine/plain MPI %s latency (time): %.3fx; aim <= 1.2x\n",
                  formatSize(r.size).c_str(), r.bw > 0 ? 1.0 / r.bw : 0.0);
  return 0;
}
