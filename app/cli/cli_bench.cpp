// `collviz bench`: nccl-tests' bandwidth sweep through the engine. Prints
// nccl-tests' table (one per op) row by row as sizes finish, so Ctrl-C keeps
// what was measured; --json prints one document at the end (also on Ctrl-C,
// with "interrupted": true). Exit: 0 ok, 1 a failure or a wrong result,
// 2 refused before running (bad option, size beyond the backend), 130 Ctrl-C.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/lang/backend_line.h"
#include "app/lang/lang.h"
#include "app/cli/cli_algo_file.h"
#include "engine/algo/algorithms.h"
#include "app/cli/cli_input.h"
#include "engine/bench/sweep.h"

namespace collviz {
namespace {

struct BenchArgs {
  std::string op = "all_reduce";
  int ranks = 4;
  std::string dtype = "f32";
  std::string redop = "sum";
  int root = 0;
  std::string backend = "auto";
  std::string min_bytes = "32M", max_bytes = "32M";
  int factor = 2, iters = 20, warmup = 5, check = 1;
  int deadline_ms = kDefaultDeadlineMs;
  std::string gpu_sharing = "host-id";
  bool json = false;
  std::string algo = "native";
  HostArgs hosts;  // ranks on several hosts (issue 33)
  std::string algo_file;  // --algo-file: an MSCCL file (sets op, ranks, algo)
  bool file_option_given = false, ranks_given = false, op_given = false;
};

// A size as given: well formed but too big is "out of range", not "not a size".
Result<std::size_t> sizeArg(const char* flag, const std::string& text) {
  if (auto v = parseSize(text)) return *v;
  const char* help = "{0}; allowed: a whole number of bytes, optionally with K, M or G (powers of 1024), e.g. 8, "
                     "64K, 128M";
  if (std::regex_match(text, std::regex("[0-9]+([KMG]i?B?|B)?", std::regex::icase)))
    return Error{say(help, say("{0} {1} is out of range", flag, shown(text)))};
  return Error{say(help, notA(flag, text, "a size"))};
}

Result<BenchConfig> parseBench(const BenchArgs& given, bool file_given) {
  BenchArgs a = given;
  BenchConfig c;
  if (file_given) {  // the file names the op, the ranks and the algorithm
    if (a.algo != "native") return Error{say("--algo and --algo-file both name an algorithm; give one")};
    auto use = registerAlgoFile(a.algo_file, a.op_given ? a.op : "", a.ranks_given ? a.ranks : 0, a.root);
    if (!use) return use.error();
    a.op = std::string(name(use->op));
    a.ranks = use->ranks;
    a.algo = use->algo;
    c.elems_multiple = use->parts;
  }
  if (a.op == "all") {
    c.ops.clear();
    for (int k = 0; k < kOpCount; ++k) c.ops.push_back(Op(k));
  } else if (auto op = parseOp(a.op)) {
    c.ops = {*op};
  } else {
    return Error{say("{0}; allowed: {1}", notA("--op", a.op, "a collective"), allowedOps() + ", all")};
  }
  // The shared parser checks dtype, redop, backend, ranks and root.
  SpecArgs s;
  s.op = std::string(name(c.ops.front()));
  s.ranks = a.ranks;
  s.elems = 1;
  s.dtype = a.dtype;
  s.redop = a.redop;
  s.root = a.root;
  s.backend = a.backend;
  auto p = parseSpec(s, false);
  if (!p) return p.error();
  c.ranks = a.ranks;
  c.dtype = p->spec.dtype;
  c.redop = p->spec.redop;
  c.root = a.root;
  c.backend = p->backend;
  auto b = sizeArg("-b", a.min_bytes);
  if (!b) return b.error();
  auto e = sizeArg("-e", a.max_bytes);
  if (!e) return e.error();
  c.min_bytes = *b;
  c.max_bytes = *e;
  c.factor = a.factor;
  c.iters = a.iters;
  c.warmup = a.warmup;
  c.check = a.check;
  if (a.deadline_ms != 0 && (a.deadline_ms < 100 || a.deadline_ms > 3600000))
    return Error{say("--deadline-ms {0} is out of range; allowed: {1} to {2}, or 0 for automatic", a.deadline_ms,
                     100, 3600000)};
  if (Status st = validate(c); !st) return st.error();
  c.algo = a.algo;
  for (Op op : c.ops) {
    OpSpec probe = p->spec;
    probe.op = op;
    probe.elems = c.elems_multiple;
    if (Status st = algo::checkAlgorithm(a.algo, probe); !st) return Error{say("--{0}", st.text())};
  }
  return c;
}

// Sizes are whole elements in every block: say which sizes were rounded.
void noteRounding(const BenchConfig& c) {
  for (Op op : c.ops) {
    Text changed;
    int n = 0;
    for (std::size_t size = c.min_bytes; size <= c.max_bytes; size *= std::size_t(c.factor)) {
      OpSpec s;
      s.op = op;
      s.ranks = c.ranks;
      s.dtype = c.dtype;
      s.elems = elemsForPoint(c, op, size);
      if (const std::size_t actual = sizeBytes(s); actual != size && n++ < 3) {
        const Text one = say(actual > size ? "{0} B rounded up to {1} B" : "{0} B rounded down to {1} B",
                             size, actual);
        changed = changed.empty() ? one : say("{0}, {1}", changed, one);
      }
      if (size > c.max_bytes / std::size_t(c.factor)) break;
    }
    if (n)
      std::fprintf(stderr, "collviz bench: %s: %s\n", std::string(name(op)).c_str(),
                   render(say("{0} (a size is whole {1} elements in each of {2} blocks)",
                              n > 3 ? say("{0}, ...", changed) : changed, name(c.dtype),
                              sizeBlocks(op, c.ranks)))
                       .c_str());
  }
}

void printHeader(const BenchConfig& c, const BenchArgs& a, const BenchResult& r,
                 std::chrono::milliseconds deadline) {
  auto line = [](const Text& t) { std::printf("# %s\n", render(t).c_str()); };
  line(say("collviz bench: ranks {0}  dtype {1}  redop {2}  root {3}", c.ranks, name(c.dtype), name(c.redop),
           c.root));
  std::printf("# -b %s -e %s -f %d -n %d -w %d -c %d  %s\n", a.min_bytes.c_str(), a.max_bytes.c_str(),
              c.factor, c.iters, c.warmup, c.check,
              render(say("(deadline {0} ms per op)", static_cast<long long>(deadline.count()))).c_str());
  if (c.algo != "native")
    line(say("algo: {0}, its rounds back to back in the workers (no per-round snapshot)", c.algo));
  std::printf("# %s\n", trf("backend: {0}", {backendLine(r.backend).text()}).c_str());
  if (!r.notice.empty()) line(say("notice: {0}", Said(r.notice)));
  line(say("time: slowest rank, average of -n ops; algbw = size / time; "
           "busbw = algbw * factor (GB/s = 1e9 B/s)"));
  line(say("engine: the size's requests inside the engine; overhead = engine - time "
           "waiting for the ranks, measured (inputs, poison, copies, checks)"));
}

// The table's two heading lines (English; shown through tr()).
constexpr const char* kHeadings[2][11] = {
    {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "engine", "overhead"},
    {"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)"}};

// One line of the table: nccl-tests' columns, right-aligned by display
// width (a Chinese word such as 无 takes two columns, as a terminal shows it),
// each column as wide as nccl-tests' or as its heading in the reader's
// language (根 rank), so the headings and the rows line up in every
// language. A heading line starts with "#", which takes the first column's
// first place.
std::string benchTableRow(const std::vector<std::string>& cells, bool heading) {
  static constexpr std::size_t kWidths[] = {12, 13, 9, 7, 6, 11, 9, 9, 7, 12, 12};
  std::string out = heading ? "#" : "";
  for (std::size_t k = 0; k < cells.size() && k < std::size(kWidths); ++k) {
    std::size_t width = kWidths[k];
    for (const auto& line : kHeadings)
      if (*line[k]) width = std::max(width, columns(tr(line[k])) + (k == 0 ? 1 : 0));
    if (k == 0 && heading) --width;
    const std::size_t w = columns(cells[k]);
    out += std::string(k ? 1 : 0, ' ') + std::string(w < width ? width - w : 0, ' ') + cells[k];
  }
  return out;
}

void printOpHeader(Op op, int ranks) {
  char factor[32];
  std::snprintf(factor, sizeof factor, "%.4g", busBandwidthFactor(op, ranks));
  std::printf("#\n# %s   %s\n", std::string(name(op)).c_str(),
              render(say("busbw factor {0} = {1}", busBandwidthFactorText(op), factor)).c_str());
  for (const auto& line : kHeadings) {
    std::vector<std::string> t;
    for (const char* cell : line) t.push_back(*cell ? tr(cell) : "");
    std::printf("%s\n", benchTableRow(t, true).c_str());
  }
}

void printRow(const BenchRow& r) {
  auto num = [](const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  const std::string wrong = r.wrong < 0 ? "N/A" : std::to_string(r.wrong);
  std::printf("%s\n", benchTableRow({std::to_string(r.size), std::to_string(r.count), std::string(name(r.dtype)),
                                     reduces(r.op) ? std::string(name(r.redop)) : tr("none"),
                                     std::to_string(r.root), num("%.2f", r.time_us), num("%.3f", r.algbw),
                                     num("%.3f", r.busbw), wrong, num("%.0f", r.engine_us),
                                     num("%.0f", r.overhead_us)},
                                    false)
                           .c_str());
  if (!r.problem.empty()) std::printf("#   %s\n", render(say("first wrong: {0}", Said(r.problem))).c_str());
  std::fflush(stdout);
}

void printAverage(const std::vector<BenchRow>& rows, Op op) {
  double sum = 0;
  int n = 0;
  for (const auto& r : rows)
    if (r.op == op) sum += r.busbw, ++n;
  char avg[32];
  std::snprintf(avg, sizeof avg, "%.4f", n ? sum / n : 0.0);
  if (n)
    std::printf("# %s\n", render(say("Avg bus bandwidth    : {0} GB/s ({1}, {2} sizes)", avg, name(op), n)).c_str());
}

int runBench(const BenchArgs& a) {
  auto cfg = parseBench(a, !a.algo_file.empty() || a.file_option_given);
  if (!cfg) return fail("bench", cfg.error(), kExitUsage);
  const BenchConfig& c = *cfg;
  auto placement = parseGpuSharing(a.gpu_sharing);
  if (!placement) return fail("bench", placement.error(), kExitUsage);
  auto hosts = parseHosts(a.hosts);
  if (!hosts) return fail("bench", hosts.error(), kExitUsage);
  if (!hosts->empty())
    if (auto fits = placeOnHosts(*hosts, c.ranks); !fits) return fail("bench", fits.error(), kExitUsage);
  noteRounding(c);
  EngineOptions eo;
  eo.hosts = *hosts;
  eo.nccl_log = false;  // NCCL_DEBUG=INFO would change the times measured
  eo.placement = *placement;
  eo.deadline = a.deadline_ms ? std::chrono::milliseconds(a.deadline_ms) : benchDeadline(c);
  Engine engine(eo);  // destroyed on return: the workers end with it, also after Ctrl-C
  BenchResult shown;  // backend and notice for the header
  bool header = false;
  Op current = c.ops.front();
  BenchCallbacks cb;
  if (!a.json) {
    cb.on_start = [&](const BenchPoint& p, int, int) {
      if (!header) {
        const DeviceReport report = engine.devicesFor(c.backend);
        auto chosen = report.choose(c.backend, &shown.notice);
        if (chosen) shown.backend = report.find(*chosen)->info;
        printHeader(c, a, shown, eo.deadline);
        header = true;
        printOpHeader(p.spec.op, c.ranks);
      } else if (p.spec.op != current) {
        printOpHeader(p.spec.op, c.ranks);
      }
      current = p.spec.op;
      std::fflush(stdout);
    };
    cb.on_row = [&](const BenchRow& r, int, int) {
      printRow(r);
    };
  }
  auto res = runSweep(engine, c, cb, &g_interrupted);
  if (!res)
    return g_interrupted ? fail("bench", say("interrupted"), interruptedExitCode())
                         : fail("bench", res.error(), kExitUsage);
  if (!res->notice.empty()) std::fprintf(stderr, "collviz: %s\n", render(Said(res->notice)).c_str());
  int64_t wrong = 0;
  bool checked = false;
  for (const auto& r : res->rows)
    if (r.wrong >= 0) wrong += r.wrong, checked = true;
  const bool interrupted = res->cancelled || (!res->error.empty() && settleInterrupt(res->error));
  if (a.json && interrupted) {
    nlohmann::json report = toJson(*res, c);
    report["interrupted"] = true;
    return failWithReport("bench", report,
                          say("interrupted after {0} sizes", res->rows.size()),
                          interruptedExitCode());
  }
  if (a.json && !res->error.empty())
    return failWithReport("bench", toJson(*res, c), errorOf(Said(res->error)), kExitFailed);
  if (a.json) {
    std::cout << toJson(*res, c).dump(2) << "\n";
  } else {
    std::printf("#\n");
    for (Op op : c.ops) printAverage(res->rows, op);
    const Text verdict = !checked ? (c.check == 0 ? say("N/A (-c 0)") : say("N/A (no size was checked)"))
                         : wrong == 0 ? say("0 OK")
                                      : say("{0} FAILED", wrong);
    std::printf("# %s\n", render(say("Wrong elements       : {0}", verdict)).c_str());
  }
  std::fflush(stdout);
  if (interrupted) {
    std::fprintf(stderr, "collviz bench: %s\n", render(say("interrupted after {0} sizes", res->rows.size())).c_str());
    return interruptedExitCode();
  }
  if (!res->error.empty()) {
    std::fprintf(stderr, "collviz bench: %s\n", render(Said(res->error)).c_str());
    return kExitFailed;
  }
  return wrong == 0 ? kExitOk : kExitFailed;
}

}  // namespace

void addBenchCommand(CLI::App& app, std::function<int()>& action) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Bandwidth sweep like nccl-tests: time (us), algbw and busbw (GB/s) per size");
  cmd->add_option("--op", a->op, "Collective: " + allowedOps() + ", or all")->capture_default_str();
  cmd->add_option("-b,--minbytes", a->min_bytes, "Smallest size in bytes (K, M, G = 1024^n)")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", a->max_bytes, "Largest size in bytes (K, M, G = 1024^n)")
      ->capture_default_str();
  addWholeOption(cmd, "-f,--stepfactor", a->factor, "Multiply the size by this each step");
  addWholeOption(cmd, "-n,--iters", a->iters, "Timed iterations per size");
  addWholeOption(cmd, "-w,--warmup_iters", a->warmup, "Untimed warm-up iterations per size");
  addWholeOption(cmd, "-c,--check", a->check,
                 "Iterations whose results are checked against the oracle (0: none)");
  addWholeOption(cmd, "--ranks,-N", a->ranks, "Number of ranks");
  cmd->add_option("--dtype", a->dtype, "Element type: " + allowedDTypes())->capture_default_str();
  cmd->add_option("--redop", a->redop, "Reduce op: " + allowedRedOps())->capture_default_str();
  addWholeOption(cmd, "--root", a->root, "Root rank (broadcast, scatter, gather, reduce)");
  cmd->add_option("--backend", a->backend, "auto, gloo, nccl or mpi")->capture_default_str();
  addHostOptions(cmd, a->hosts);
  addDeadlineOption(cmd, a->deadline_ms);
  addGpuSharingOption(cmd, a->gpu_sharing);
  cmd->add_flag("--json", a->json, "Print one JSON document with every column on stdout");
  cmd->add_option("--algo", a->algo,
                  "native (the backend's own call), or an algorithm's rounds on point-to-point "
                  "calls (`collviz algos`)")
      ->capture_default_str();
  cmd->add_option("--algo-file", a->algo_file,
                  "An MSCCL algorithm file: its rounds back to back, like --algo; the op and ranks come from the file");
  cmd->callback([&action, cmd, a] {
    a->file_option_given = cmd->count("--algo-file") > 0;  // "" is refused by the reader
    a->ranks_given = cmd->count("--ranks") > 0;
    a->op_given = cmd->count("--op") > 0;
    action = [a] { return runBench(*a); };
  });
}

}  // namespace collviz
