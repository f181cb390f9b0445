// `collviz export`: run an op (or the article's whole set) on the backend and
// write what the window would show as PNG (drawn offscreen by the window's
// own code) or SVG (the same scene as vector shapes and text).
//
// Reproducible: the same inputs give byte-identical files. The status line
// (backend, devices, verified) is drawn without the op's time, which varies
// from run to run; --status-time adds it, --no-status leaves the line out.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/export/gl/headless_gl.h"
#include "app/gl/diagram_image.h"
#include "app/gl/fonts.h"
#include "app/lang/lang.h"
#include "app/export/export_set.h"
#include "app/export/gif_writer.h"
#include "app/view/round_layout.h"
#include "engine/algo/algorithms.h"

namespace collviz {
namespace {

namespace fs = std::filesystem;

// Beyond these a size is a typo, whatever the GL allows.
constexpr int kMinSide = 64, kMaxSide = 32768;
constexpr double kMaxPixels = 256.0 * 1024 * 1024;

struct ExportArgs {
  SpecArgs spec;
  std::string gpu_sharing = "host-id";
  int step = -1;  // -1: not given
  std::string trace = "all";
  std::string trace_by = "destination";
  std::string theme = "light";
  std::string size = "1200x700";
  std::string scale = "1";
  std::string output;
  bool output_given = false;  // -o "" is an error, not "the default name"
  std::string format;  // png, svg; empty: from the output's extension, else png
  bool all = false;
  bool no_status = false;
  bool status_time = false;
  std::string algo = "native";
  int tween = 0;  // GIF: frames between two rounds
};

struct Plan {
  std::vector<ui::ExportItem> items;
  std::string dir;  // where the files go
  bool svg = false;
  bool gif = false;
  int tween = 0;
  bool all = false;
  ui::ThemeKind theme = ui::ThemeKind::light;
  int width = 0, height = 0;  // image pixels (size x scale)
  float scale = 1.0f;
  bool status = true, status_time = false;
};

int usage(const std::string& msg) { return fail("export", msg, kExitUsage); }

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Everything checked before anything runs: nothing is started or written
// for bad input.
Result<Plan> makePlan(const ExportArgs& a, const ParsedSpec& ps) {
  Plan p;
  p.all = a.all;
  p.status = !a.no_status;
  p.status_time = a.status_time;
  if (a.theme == "light") p.theme = ui::ThemeKind::light;
  else if (a.theme == "dark") p.theme = ui::ThemeKind::dark;
  else return Error{notA("--theme", a.theme, "a theme") + "; allowed: light, dark"};
  std::smatch m;
  if (!std::regex_match(a.size, m, std::regex(R"((\d{1,6})[xX](\d{1,6}))")))
    return Error{notA("--size", a.size, "WIDTHxHEIGHT") + " (for example 1600x900)"};
  const int w = std::stoi(m[1]), h = std::stoi(m[2]);
  auto scale = parseDecimal("--scale", a.scale);
  if (!scale) return Error{scale.error().message + "; allowed: 0.25 to 8"};
  if (!(*scale >= 0.25 && *scale <= 8.0))
    return Error{"--scale " + shown(a.scale) + " is out of range; allowed: 0.25 to 8"};
  p.scale = float(*scale);
  p.width = int(std::lround(w * p.scale));
  p.height = int(std::lround(h * p.scale));
  // The limits apply to the image's pixels, after --scale.
  if (p.width < kMinSide || p.height < kMinSide || p.width > kMaxSide || p.height > kMaxSide ||
      double(p.width) * p.height > kMaxPixels)
    return Error{"--size " + a.size + " at --scale " + shown(a.scale) + " makes " +
                 std::to_string(p.width) + "x" + std::to_string(p.height) + " pixels; allowed: sides from " +
                 std::to_string(kMinSide) + " to " + std::to_string(kMaxSide) + ", at most " +
                 std::to_string(int(kMaxPixels / 1e6)) + " megapixels"};
  ui::ViewSettings view;
  if (a.trace_by == "destination") view.trace_mode = ui::TraceMode::reaches;
  else if (a.trace_by == "source") view.trace_mode = ui::TraceMode::goes;
  else return Error{notA("--trace-by", a.trace_by, "allowed") + "; allowed: destination, source"};
  if (a.output_given && a.output.empty())
    return Error{"-o is empty; allowed: a file name ending in .png or .svg (with --all, a directory)"};

  // Format: --format, else the output's extension (any case), else png.
  std::string ext = lower(fs::path(a.output).extension().string());
  std::string fmt = lower(a.format);
  if (!fmt.empty() && fmt != "png" && fmt != "svg" && fmt != "gif")
    return Error{notA("--format", a.format, "a format") + "; allowed: png, svg, gif (with --algo)"};
  if (!a.all && (ext == ".png" || ext == ".svg" || ext == ".gif")) {
    if (!fmt.empty() && "." + fmt != ext)
      return Error{"--format " + fmt + " does not match the output name " + shown(a.output)};
    fmt = ext.substr(1);
  }
  if (fmt.empty()) fmt = "png";
  p.svg = fmt == "svg";
  p.gif = fmt == "gif";
  if (p.gif && (a.all || a.algo == "native"))
    return Error{"--format gif animates an algorithm's rounds: give --algo ALGO (and no --all)"};
  if (a.tween < 0 || a.tween > 30)
    return Error{"--tween " + std::to_string(a.tween) + " is out of range; allowed: 0 to 30"};
  if (a.tween > 0 && !p.gif) return Error{"--tween applies to --format gif"};
  p.tween = a.tween;

  if (a.all) {
    if (a.output.empty()) return Error{"--all needs -o DIR (the directory for the set)"};
    p.dir = a.output;
    p.items = ui::articleSet(ps.spec, view.trace_mode, fmt);
    return p;
  }
  if (a.trace != "all") {
    if (!std::regex_match(a.trace, std::regex(R"(\d{1,3})")) || std::stoi(a.trace) >= ps.spec.ranks)
      return Error{notA("--trace", a.trace, "allowed") + "; allowed: all, 0 to " +
                   std::to_string(ps.spec.ranks - 1)};
    view.trace_rank = std::stoi(a.trace);
  }
  if (a.algo != "native") {
    if (ps.program != Program::single)
      return Error{"--algo runs one op; all_reduce_decomposed is two native ops (use --op all_reduce --algo ring)"};
    if (Status st = algo::checkAlgorithm(a.algo, ps.spec); !st) return st.error();
    view.algo = a.algo;
    const int rounds = ui::algoRounds(a.algo, ps.spec);
    if (a.step > rounds)
      return Error{"--step " + std::to_string(a.step) + " is out of range for " + a.algo + " " +
                   std::string(name(ps.spec.op)) + " at N=" + std::to_string(ps.spec.ranks) + "; allowed: 0 to " +
                   std::to_string(rounds) + " (0 the start, K after round K)"};
    if (p.gif && a.step >= 0) return Error{"--step picks one round; --format gif writes them all"};
    view.round = a.step >= 0 ? a.step : rounds;
  } else if (a.step >= 0) {
    if (ps.program != Program::all_reduce_decomposed)
      return Error{"--step applies to --op all_reduce_decomposed (its three states) or to an --algo's rounds"};
    if (a.step > 2) return Error{"--step " + std::to_string(a.step) + " is out of range; allowed: 0, 1, 2"};
    view.stage = a.step;
  }
  ui::ExportItem it{ps.program, ps.spec, view, ui::exportFileName(ps.program, ps.spec.op, view, fmt),
                ui::exportCaption(ps.program, ps.spec.op, ps.spec.ranks, view)};
  if (!a.output.empty()) {
    if (ext != "." + fmt) return Error{"the output name " + shown(a.output) + " must end in ." + fmt};
    it.file = a.output;
  }
  p.items.push_back(it);
  return p;
}

// Every round of the view's algorithm, from the start to the last, with
// `tween` frames of the blocks in flight before each round.
Result<std::vector<uint8_t>> renderRoundsGif(ui::DiagramImage& image, ui::ExportView v, int tween) {
  const int rounds = ui::algoRounds(v.view.algo, v.spec);
  std::vector<ui::GifFrame> frames;
  for (int k = 0; k <= rounds; ++k) {
    for (int i = 1; k > 0 && i <= tween; ++i) {
      v.view.round = k;
      v.view.tween = float(i) / float(tween + 1);
      auto img = image.renderPng(v);
      if (!img) return img.error();
      frames.push_back({std::move(*img), std::max(3, 60 / (tween + 1))});
    }
    v.view.round = k;
    v.view.tween = 0;
    auto img = image.renderPng(v);
    if (!img) return img.error();
    frames.push_back({std::move(*img), k == rounds ? 250 : 120});
  }
  return ui::encodeGif(frames, ui::themeColours(ui::makeTheme(v.theme)));
}

std::string settingsLine(const OpSpec& s, const Snapshot* snap, const Plan& p) {
  std::string t = "N = " + std::to_string(s.ranks) + " ranks, " + std::to_string(s.elems) +
                  " elements per block, " + std::string(name(s.dtype)) + ", " +
                  std::string(name(s.redop)) + ", root R" + std::to_string(s.root);
  if (snap) t += ", backend " + snap->backend.name + " " + snap->backend.version;
  return t + ", theme " + (p.theme == ui::ThemeKind::light ? "light" : "dark") + ", " +
         std::to_string(p.width) + "x" + std::to_string(p.height) + " pixels";
}

int runExport(const ExportArgs& a) {
  auto parsed = parseSpec(a.spec);
  if (!parsed) return usage(parsed.error().message);
  auto placement = parseGpuSharing(a.gpu_sharing);
  if (!placement) return usage(placement.error().message);
  auto plan_r = makePlan(a, *parsed);
  if (!plan_r) return usage(plan_r.error().message);
  Plan& plan = *plan_r;
  if (plan.all) {
    std::error_code ec;
    fs::create_directories(plan.dir, ec);
    if (ec) return usage("cannot create directory " + plan.dir + ": " + ec.message());
    for (ui::ExportItem& it : plan.items) it.file = (fs::path(plan.dir) / it.file).string();
  }
  for (ui::ExportItem& it : plan.items) {
    if (Status s = ui::checkWritable(it.file); !s) return usage(s.message());
    it.view.hide_times = !plan.status_time;  // reproducible files
  }

  // PNG needs OpenGL; SVG needs only the fonts' metrics.
  HeadlessGl gl;
  if (!plan.svg) {
    if (!haveDisplay()) {
      Status s = rerunUnderXvfb("collviz export");  // returns only on failure
      std::fprintf(stderr, "collviz export: %s\n", s.message().c_str());
      return kExitFailed;
    }
    if (Status s = gl.open(); !s) {
      std::fprintf(stderr, "collviz export: %s\n", s.message().c_str());
      return kExitFailed;
    }
    std::string which;
    const int limit = ui::Offscreen::maxSize(&which);
    if (plan.width > limit || plan.height > limit)
      return usage("--size " + a.size + " makes " + std::to_string(plan.width) + "x" +
                   std::to_string(plan.height) + " pixels, beyond what this OpenGL allows (" + which +
                   " = " + std::to_string(limit) + ", " + gl.renderer() + ")");
  }
  ui::DiagramImage image;
  if (Status s = image.init(!plan.svg); !s) {
    std::fprintf(stderr, "collviz export: %s\n", s.message().c_str());
    return kExitFailed;
  }

  // Run each distinct program once (the traces share all-to-all's result).
  installInterruptHandler();
  EngineOptions eo;
  eo.deadline = std::chrono::milliseconds(a.spec.deadline_ms);
  eo.placement = *placement;
  Engine engine(eo);
  struct Ran {
    Program program;
    OpSpec spec;
    std::string algo;
    std::shared_ptr<const Snapshot> snap;
  };
  std::vector<Ran> runs;
  int rc = kExitOk;
  std::shared_ptr<const Snapshot> first;
  bool warned_fonts = false;
  for (const ui::ExportItem& it : plan.items) {
    std::shared_ptr<const Snapshot> snap;
    const std::string algo = ui::isRoundView(it.program, it.spec.op, it.view) ? it.view.algo : "native";
    for (const Ran& r : runs)
      if (r.program == it.program && r.spec == it.spec && r.algo == algo) snap = r.snap;
    if (!snap) {
      Request req;
      req.program = it.program;
      req.spec = it.spec;
      req.backend = parsed->backend;
      req.algo = algo;
      snap = waitInterruptible(engine, engine.submit(req));
      if (!snap) {
        std::fprintf(stderr, "collviz export: interrupted\n");
        return interruptedExitCode();
      }
      if (!snap->notice.empty() && runs.empty()) std::fprintf(stderr, "collviz: %s\n", snap->notice.c_str());
      if (!snap->error.empty()) {
        std::fprintf(stderr, "collviz export: %s\n", snap->error.c_str());
        const bool bad_input = snap->steps.empty() && snap->error.find("allowed:") != std::string::npos;
        return bad_input ? kExitUsage : kExitFailed;
      }
      if (!snap->verified) {
        std::fprintf(stderr, "collviz export: %s: NOT VERIFIED (%lld wrong elements%s%s); the image marks them\n",
                     std::string(name(it.spec.op)).c_str(),
                     static_cast<long long>(snap->mismatches + snap->final_diffs),
                     snap->problem.empty() ? "" : "; first: ", snap->problem.c_str());
        rc = kExitFailed;
      }
      runs.push_back({it.program, it.spec, algo, snap});
      if (!first) first = snap;
    }
    // In Chinese the font atlas must hold the UI's Chinese text (the PNG and
    // GIF draw with it; without it every character is a "?").
    ui::ExportView v{it.program, it.spec, snap, it.view, plan.theme, plan.width, plan.height,
                     plan.scale, 0, plan.status, plan.status_time, {},
                     language() == Lang::zh ? ui::uiChineseText() : std::string()};
    Status written;
    if (plan.svg) {
      written = ui::writeFileAtomic(it.file, image.renderSvg(v));
    } else if (plan.gif) {
      auto gif = renderRoundsGif(image, v, plan.tween);
      if (!gif) return usage(gif.error().message);
      written = ui::writeFileAtomic(it.file, gif->data(), gif->size());
    } else {
      auto img = image.renderPng(v);
      if (!img) return usage(img.error().message);
      std::vector<uint8_t> png = ui::encodePng(*img);
      written = ui::writeFileAtomic(it.file, png.data(), png.size());
    }
    if (!written) return usage(written.message());
    if (!image.fontNotice().empty() && !warned_fonts) {
      std::fprintf(stderr, "collviz export: %s\n", image.fontNotice().c_str());
      warned_fonts = true;
    }
    if (!image.warning().empty())
      std::fprintf(stderr, "collviz export: %s: %s\n", it.file.c_str(), image.warning().c_str());
    std::printf("wrote %s (%dx%d)\n", it.file.c_str(), plan.width, plan.height);
    std::fflush(stdout);
    if (g_interrupted) return interruptedExitCode();
  }
  if (plan.all) {
    std::vector<ui::ExportItem> rel = plan.items;
    for (ui::ExportItem& it : rel) it.file = fs::path(it.file).filename().string();
    std::string index = (fs::path(plan.dir) / "index.md").string();
    Status s = ui::writeFileAtomic(index, ui::indexMarkdown(rel, settingsLine(parsed->spec, first.get(), plan)));
    if (!s) return usage(s.message());
    std::printf("wrote %s\n", index.c_str());
  }
  return rc;
}

}  // namespace

void addExportCommand(CLI::App& app, std::function<int()>& action) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Run an op and write the window's view of it as PNG or SVG, without a window");
  addSpecOptions(cmd, a->spec);
  addGpuSharingOption(cmd, a->gpu_sharing);
  addWholeOption(cmd, "--step", a->step, "Decomposition state (--op all_reduce_decomposed): 0 input, "
                                     "1 after reduce-scatter, 2 after all-gather (default 2)")
      ->default_str("last");
  cmd->add_option("--algo", a->algo,
                  "An algorithm run round by round (`collviz algos` lists them); --step K shows "
                  "round K (0 the start), --format gif every round")
      ->capture_default_str();
  cmd->add_option("--tween", a->tween, "GIF: frames of the blocks in flight between two rounds (0 to 30)")
      ->capture_default_str();
  cmd->add_option("--trace", a->trace, "Highlight: all, or a rank K")->capture_default_str();
  cmd->add_option("--trace-by", a->trace_by, "destination (what reaches RK) or source (where RK's data goes)")
      ->capture_default_str();
  cmd->add_option("--theme", a->theme, "light or dark")->capture_default_str();
  cmd->add_option("--size", a->size, "View size WIDTHxHEIGHT (the image is size x scale pixels)")
      ->capture_default_str();
  cmd->add_option("--scale", a->scale, "Pixels per view pixel: 2 for a crisp 2x image")->capture_default_str();
  cmd->add_option_function<std::string>("-o,--output", [a](const std::string& v) {
    a->output = v;
    a->output_given = true;
  },
                  "Output file (.png, .svg, or .gif with --algo); with --all, a directory. Default: a name like "
                  "08_all_to_all_trace_r2.png in the current directory");
  cmd->add_option("--format", a->format, "png, svg or gif (default: from the output name, else png)");
  CLI::Option* all = cmd->add_flag("--all", a->all,
                                   "The article's whole set (8 ops, all-to-all traced to each rank, the "
                                   "decomposition's 3 states) and an index.md, into -o DIR");
  for (const char* o : {"--op", "--step", "--trace", "--algo"}) all->excludes(cmd->get_option(o));
  CLI::Option* no_status = cmd->add_flag("--no-status", a->no_status, "Leave the status line out");
  cmd->add_flag("--status-time", a->status_time,
                "Show the op's time in the status line (it varies: files are then not reproducible)")
      ->excludes(no_status);
  cmd->callback([&action, a] { action = [a] { return runExport(*a); }; });
}

}  // namespace collviz
