// `collviz export`: run an op (or the article's whole set) on the backend and
// write what the window would show as PNG (drawn offscreen by the window's
// own code) or SVG (the same scene as vector shapes and text).
//
// A figure carries the op, not the machine, and is reproducible: the same
// inputs give byte-identical files. --status adds the machine's block
// (backend, devices, the notes for the op shown); --status-time also the
// measured times, which vary from run to run. --crop trims the image to
// what is drawn plus a margin.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

#include "app/cli/cli_algo_file.h"
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
#include "engine/memory_budget.h"

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
  bool step_given = false;  // --step -1 is refused, not taken for "not given"
  std::string trace = "all";
  std::string trace_by = "destination";
  std::string theme = "light";
  std::string size = "1200x700";
  std::string scale = "1";
  std::string output;
  bool output_given = false;  // -o "" is an error, not "the default name"
  std::string format;  // png, svg; empty: from the output's extension, else png
  bool all = false;
  std::vector<std::string> given;  // which of --op, --step, --trace, --algo, --status… were given
  bool no_status = false;  // the default; kept so older command lines still run
  bool status = false;
  bool status_time = false;
  bool crop = false;
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
  bool status = false, status_time = false, crop = false;
};

int usage(const std::string& msg) { return fail("export", msg, kExitUsage); }

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A GIF's frames (the start, each round and --tween frames before each)
// times its pixels, estimated before anything runs: at most kMaxGifPixels
// in all (the time to draw them, and the file: frames are encoded as they
// are drawn, so the compressed file, at most about a byte a pixel, is what
// is held) and within the memory this process can get. A refusal names the
// --tween and the --size that fit.
constexpr double kMaxGifPixels = 100.0 * 1000 * 1000;

Status checkGifSize(const Plan& p, int rounds, const ExportArgs& a) {
  const double frame = double(p.width) * p.height;
  const double frames = 1.0 + double(rounds) * (p.tween + 1);
  double cap = kMaxGifPixels;
  std::string what = "at most " + std::to_string(int(kMaxGifPixels / 1e6)) + " megapixels in all frames";
  if (auto lim = memoryLimit(); lim && double(lim->bytes) / 2.0 < cap) {
    cap = double(lim->bytes) / 2.0;
    what = "what fits in " + lim->what + " (" + std::to_string(int(cap / 1e6)) + " megapixels at 2 bytes each)";
  }
  if (frames * frame <= cap) return {};
  const long long fit_tween = std::llround(std::floor((cap / frame - 1.0) / std::max(1, rounds))) - 1;
  const double side = std::sqrt(cap / frames / (double(p.width) / p.height));
  std::string fits;
  if (fit_tween >= 0)
    fits = "--tween " + std::to_string(std::min<long long>(fit_tween, 30)) + " fits at this size";
  if (side * (double(p.width) / p.height) >= kMinSide && side >= kMinSide)
    fits += std::string(fits.empty() ? "" : ", or ") + "--size " +
            std::to_string(int(side * p.width / p.height / p.scale)) + "x" +
            std::to_string(int(side / p.scale)) + " at --tween " + std::to_string(p.tween);
  if (fits.empty()) fits = "fewer ranks (fewer rounds)";
  char mp[32];
  std::snprintf(mp, sizeof mp, "%.0f", frames * frame / 1e6);
  return Error{"--format gif: " + std::to_string(rounds) + " rounds with --tween " + std::to_string(p.tween) +
               " make " + std::to_string((long long)frames) + " frames of " + std::to_string(p.width) + "x" +
               std::to_string(p.height) + " pixels (" + mp + " megapixels); allowed: " + what + "; " + fits +
               " (--size " + a.size + ", --scale " + a.scale + ")"};
}

// Everything checked before anything runs: nothing is started or written
// for bad input.
Result<Plan> makePlan(const ExportArgs& a, const ParsedSpec& ps) {
  Plan p;
  p.all = a.all;
  p.status = a.status || a.status_time;
  p.status_time = a.status_time;
  p.crop = a.crop;
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
  if (a.step_given && a.step < 0)
    return Error{"--step " + std::to_string(a.step) + " is out of range; allowed: 0 and up (a round of "
                 "--algo, or a state 0 to 2 of all_reduce_decomposed)"};
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
  if (p.gif && a.crop) return Error{"--crop applies to png and svg; a GIF keeps every frame the same size"};
  if (p.gif && (a.all || a.algo == "native"))
    return Error{"--format gif animates an algorithm's rounds: give --algo ALGO or --algo-file FILE (and no --all)"};
  if (a.tween < 0 || a.tween > 30)
    return Error{"--tween " + std::to_string(a.tween) + " is out of range; allowed: 0 to 30"};
  if (a.tween > 0 && !p.gif) return Error{"--tween applies to --format gif"};
  p.tween = a.tween;

  auto gave = [&](const char* o) { return std::find(a.given.begin(), a.given.end(), o) != a.given.end(); };
  if (a.no_status && (gave("--status") || gave("--status-time")))
    return Error{"--no-status cannot go with --status or --status-time; allowed: one of them"};
  if (a.all)
    for (const char* o : {"--op", "--step", "--trace", "--algo", "--algo-file"})
      if (gave(o))
        return Error{std::string("--all writes the article's whole set and takes no ") + o +
                     "; allowed with --all: --ranks, --elems, --dtype, --redop, --root, --backend, "
                     "--trace-by, --theme, --size, --scale, --format, --status, --crop"};
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
    if (p.gif)
      if (Status st = checkGifSize(p, rounds, a); !st) return st.error();
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
// `tween` frames of the blocks in flight before each round. Frames are
// encoded as they are drawn (the palette from the first and last, which hold
// every colour the others show): only the compressed file is held.
Result<std::vector<uint8_t>> renderRoundsGif(ui::DiagramImage& image, ui::ExportView v, int tween) {
  const int rounds = ui::algoRounds(v.view.algo, v.spec);
  auto at = [&](int k, int i) {
    v.view.round = k;
    v.view.tween = i > 0 ? float(i) / float(tween + 1) : 0.0f;
    return image.renderPng(v);
  };
  auto first = at(0, 0), last = at(rounds, 0);
  if (!first) return first.error();
  if (!last) return last.error();
  ui::GifEncoder gif;
  if (Status st = gif.begin(first->width, first->height,
                            ui::gifPalette({&*first, &*last}, ui::themeColours(ui::makeTheme(v.theme))));
      !st)
    return st.error();
  for (int k = 0; k <= rounds; ++k) {
    if (g_interrupted) return Error{"interrupted"};
    for (int i = 1; k > 0 && i <= tween; ++i) {
      auto img = at(k, i);
      if (!img) return img.error();
      if (Status st = gif.add(*img, std::max(3, 60 / (tween + 1))); !st) return st.error();
    }
    auto img = at(k, 0);
    if (!img) return img.error();
    if (Status st = gif.add(*img, k == rounds ? 250 : 120); !st) return st.error();
  }
  return gif.finish();
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
  // The set's directory is opened once, without following a link another
  // user planted (output_dir.h); every file is written relative to it.
  std::optional<ui::OutputDir> outdir;
  if (plan.all) {
    auto d = ui::OutputDir::open(plan.dir, true);
    if (!d) return usage(d.error().message);
    outdir = std::move(*d);
    for (ui::ExportItem& it : plan.items) it.file = outdir->shown(it.file);
  }
  for (ui::ExportItem& it : plan.items) {
    if (!outdir)
      if (Status s = ui::checkWritable(it.file); !s) return usage(s.message());
    it.view.hide_times = !plan.status_time;  // reproducible files
    it.view.in_file = true;                  // no window hints
  }
  auto write = [&](const std::string& file, const void* bytes, std::size_t size) {
    return outdir ? ui::writeFileAt(*outdir, fs::path(file).filename().string(), bytes, size)
                  : ui::writeFileAtomic(file, bytes, size);
  };

  // As the lecture command does: Chinese without a CJK font would draw
  // every character as "?"; draw English and say why.
  if (int face = 0; language() == Lang::zh && ui::findCjkFont(false, &face).empty()) {
    std::fprintf(stderr, "collviz export: %s\n", ui::cjkMissingNotice().c_str());
    setLanguage(Lang::en);
  }
  // PNG needs OpenGL; SVG needs only the fonts' metrics.
  HeadlessGl gl;
  if (!plan.svg) {
    if (Status s = checkRendererMemory(plan.width, plan.height); !s)
      return fail("export", s.message(), kExitFailed);
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
    v.crop = plan.crop;
    Status written;
    if (plan.svg) {
      const std::string svg = image.renderSvg(v);
      written = write(it.file, svg.data(), svg.size());
    } else if (plan.gif) {
      auto gif = renderRoundsGif(image, v, plan.tween);
      if (g_interrupted) return interruptedExitCode();
      if (!gif) return usage(gif.error().message);
      written = write(it.file, gif->data(), gif->size());
    } else {
      auto img = image.renderPng(v);
      if (!img) return usage(img.error().message);
      std::vector<uint8_t> png = ui::encodePng(*img);
      written = write(it.file, png.data(), png.size());
    }
    if (!written) return usage(written.message());
    if (!image.fontNotice().empty() && !warned_fonts) {
      std::fprintf(stderr, "collviz export: %s\n", image.fontNotice().c_str());
      warned_fonts = true;
    }
    if (!image.warning().empty())
      std::fprintf(stderr, "collviz export: %s: %s\n", it.file.c_str(), image.warning().c_str());
    std::printf("wrote %s (%dx%d%s)\n", it.file.c_str(), plan.width, plan.height, plan.crop ? ", cropped" : "");
    std::fflush(stdout);
    if (g_interrupted) return interruptedExitCode();
  }
  if (plan.all) {
    std::vector<ui::ExportItem> rel = plan.items;
    for (ui::ExportItem& it : rel) it.file = fs::path(it.file).filename().string();
    const std::string index = outdir->shown("index.md");
    const std::string md = ui::indexMarkdown(rel, settingsLine(parsed->spec, first.get(), plan));
    Status s = write(index, md.data(), md.size());
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
  addWholeOption(cmd, "--step", a->step,
                 "The state shown: with --op all_reduce_decomposed 0 input, 1 after reduce-scatter, "
                 "2 after all-gather; with --algo round K (0 the start). Default: the last")
      ->default_str("");
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
  cmd->add_flag("--all", a->all,
                "The article's whole set (8 ops, all-to-all traced to each rank, the decomposition's "
                "3 states, ring all-reduce's rounds) and an index.md, into -o DIR");
  cmd->add_flag("--status", a->status,
                "Add the status block: backend and version, devices, the backend's notes for the op shown");
  cmd->add_flag("--status-time", a->status_time,
                "The status block with the measured times (they vary: files are then not reproducible)");
  cmd->add_flag("--no-status", a->no_status, "No status block (the default)");
  cmd->add_flag("--crop", a->crop, "Trim the image to the figure plus a margin (png, svg)");
  auto algo_file = std::make_shared<std::string>();
  cmd->add_option("--algo-file", *algo_file,
                  "An MSCCL algorithm file, shown like --algo (the op and ranks come from the file)");
  cmd->callback([&action, a, cmd, algo_file] {
    a->step_given = cmd->get_option("--step")->count() > 0;
    for (const char* o : {"--op", "--step", "--trace", "--algo", "--algo-file", "--status", "--status-time"})
      if (cmd->count(o) > 0) a->given.push_back(o);
    if (!algo_file->empty()) {  // the file sets the op and ranks: read it before the spec
      auto name = useAlgoFile(*algo_file, cmd, a->spec);
      if (!name) {
        const std::string why = name.error().message;
        action = [why] { return fail("export", why, kExitUsage); };
        return;
      }
      a->algo = *name;
    }
    action = [a] { return runExport(*a); };
  });
}

}  // namespace collviz
