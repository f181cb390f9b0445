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
#include "app/export/gif_export.h"
#include "app/export/headless_gl.h"
#include "app/export/html_export.h"
#include "app/gl/diagram_image.h"
#include "app/gl/fonts.h"
#include "app/lang/lang.h"
#include "app/files/export_set.h"
#include "app/files/gif_writer.h"
#include "app/export/job_export.h"
#include "app/export/nccl_log_export.h"
#include "app/view/round_layout.h"
#include "engine/algo/algorithms.h"
#include "engine/group/memory_budget.h"

namespace collviz {
namespace {

namespace fs = std::filesystem;

// Beyond these a size is a typo, whatever the GL allows.
constexpr int kMinSide = 64, kMaxSide = 32768;
constexpr double kMaxPixels = 256.0 * 1024 * 1024;

struct ExportArgs {
  SpecArgs spec;
  HostArgs hosts;  // ranks on several hosts (issue 33)
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
  bool html = false;    // one page with every state (html_export.h)
  bool follow = false;  // html without --theme: light, and dark under prefers-color-scheme
  int tween = 0;
  bool all = false;
  ui::ThemeKind theme = ui::ThemeKind::light;
  int width = 0, height = 0;  // image pixels (size x scale)
  float scale = 1.0f;
  bool status = false, status_time = false, crop = false;
};

int usage(const Error& e) { return fail("export", e, kExitUsage); }

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
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
  else return Error{say("{0}; allowed: {1}", notA("--theme", a.theme, "a theme"), "light, dark")};
  std::smatch m;
  if (!std::regex_match(a.size, m, std::regex(R"((\d{1,6})[xX](\d{1,6}))")))
    return Error{say("{0} (for example {1})", notA("--size", a.size, "WIDTHxHEIGHT"), "1600x900")};
  const int w = std::stoi(m[1]), h = std::stoi(m[2]);
  auto scale = parseDecimal("--scale", a.scale);
  if (!scale) return Error{say("{0}; allowed: {1} to {2}", scale.error().text, "0.25", 8)};
  if (!(*scale >= 0.25 && *scale <= 8.0))
    return Error{say("{0}; allowed: {1} to {2}", say("{0} {1} is out of range", "--scale", shown(a.scale)),
                     "0.25", 8)};
  p.scale = float(*scale);
  p.width = int(std::lround(w * p.scale));
  p.height = int(std::lround(h * p.scale));
  // The limits apply to the image's pixels, after --scale.
  if (p.width < kMinSide || p.height < kMinSide || p.width > kMaxSide || p.height > kMaxSide ||
      double(p.width) * p.height > kMaxPixels)
    return Error{say("--size {0} at --scale {1} makes {2}x{3} pixels; allowed: sides from {4} to {5}, at most {6} "
                     "megapixels",
                     a.size, shown(a.scale), p.width, p.height, kMinSide, kMaxSide, int(kMaxPixels / 1e6))};
  if (a.step_given && a.step < 0)
    return Error{say("--step {0} is out of range; allowed: 0 and up (a round of "
                     "--algo, or a state 0 to 2 of all_reduce_decomposed)", a.step)};
  ui::ViewSettings view;
  if (a.trace_by == "destination") view.trace_mode = ui::TraceMode::reaches;
  else if (a.trace_by == "source") view.trace_mode = ui::TraceMode::goes;
  else return Error{say("{0}; allowed: {1}", notA("--trace-by", a.trace_by, "allowed"), "destination, source")};
  if (a.output_given && a.output.empty())
    return Error{say("-o is empty; allowed: a file name ending in .png or .svg (with --all, a directory)")};

  // Format: --format, else the output's extension (any case), else png.
  std::string ext = lower(fs::path(a.output).extension().string());
  std::string fmt = lower(a.format);
  if (!fmt.empty() && fmt != "png" && fmt != "svg" && fmt != "gif" && fmt != "html")
    return Error{say("{0}; allowed: {1}", notA("--format", a.format, "a format"), say("png, svg, html, gif (with --algo)"))};
  if ((!a.all || fmt == "html" || ext == ".html") && (ext == ".png" || ext == ".svg" || ext == ".gif" || ext == ".html")) {
    if (!fmt.empty() && "." + fmt != ext)
      return Error{say("--format {0} does not match the output name {1}", fmt, shown(a.output))};
    fmt = ext.substr(1);
  }
  if (fmt.empty()) fmt = "png";
  p.svg = fmt == "svg";
  p.gif = fmt == "gif";
  p.html = fmt == "html";
  p.follow = p.html && std::find(a.given.begin(), a.given.end(), "--theme") == a.given.end();
  if (g_lang_both && !p.html) return Error{say("--lang both applies to --format html (a page with a switch); allowed: en, zh")};
  if (p.html && a.crop) return Error{say("--crop applies to png and svg; a GIF keeps every frame the same size")};
  if (p.html && !a.output.empty() && ext != ".html")
    return Error{say("--format html: a page with every state of the figure; the output name must end in .html")};
  if (p.gif && a.crop) return Error{say("--crop applies to png and svg; a GIF keeps every frame the same size")};
  if (p.gif && (a.all || a.algo == "native"))
    return Error{say("--format gif animates an algorithm's rounds: give --algo ALGO or --algo-file FILE (and no --all)")};
  if (a.tween < 0 || a.tween > 30)
    return Error{say("{0}; allowed: {1} to {2}", say("{0} {1} is out of range", "--tween", a.tween), 0, 30)};
  if (a.tween > 0 && !p.gif) return Error{say("--tween applies to --format gif")};
  p.tween = a.tween;

  auto gave = [&](const char* o) { return std::find(a.given.begin(), a.given.end(), o) != a.given.end(); };
  if (a.no_status && (gave("--status") || gave("--status-time")))
    return Error{say("--no-status cannot go with --status or --status-time; allowed: one of them")};
  if (a.all)
    for (const char* o : {"--op", "--step", "--trace", "--algo", "--algo-file"})
      if (gave(o))
        return Error{say("--all writes the article's whole set and takes no {0}; allowed with --all: {1}", o,
                         "--ranks, --elems, --dtype, --redop, --root, --backend, "
                         "--trace-by, --theme, --size, --scale, --format, --status, --crop")};
  if (a.all) {
    if (a.output.empty()) return Error{say("--all needs -o DIR (the directory for the set)")};
    p.dir = a.output;
    p.items = ui::articleSet(ps.spec, view.trace_mode, fmt);
    if (p.html) {  // one figure per op, the decomposition last: the page draws every state
      std::erase_if(p.items, [](const ui::ExportItem& it) {
        return it.view.trace_rank >= 0 || it.view.algo != "native" || (it.program != Program::single && it.view.stage != 0);
      });
      for (ui::ExportItem& it : p.items) it.file = a.output;
    }
    return p;
  }
  if (a.trace != "all") {
    if (!std::regex_match(a.trace, std::regex(R"(\d{1,3})")) || std::stoi(a.trace) >= ps.spec.ranks)
      return Error{say("{0}; allowed: all, 0 to {1}", notA("--trace", a.trace, "allowed"), ps.spec.ranks - 1)};
    view.trace_rank = std::stoi(a.trace);
  }
  if (a.algo != "native") {
    if (ps.program != Program::single)
      return Error{say("--algo runs one op; all_reduce_decomposed is two native ops (use --op all_reduce --algo ring)")};
    if (Status st = algo::checkAlgorithm(a.algo, ps.spec); !st) return st.error();
    view.algo = a.algo;
    const int rounds = ui::algoRounds(a.algo, ps.spec);
    if (a.step > rounds)
      return Error{say("--step {0} is out of range for {1} {2} at N={3}; allowed: 0 to {4} (0 the start, K after round K)",
                       a.step, a.algo, name(ps.spec.op), ps.spec.ranks, rounds)};
    if (p.gif && a.step >= 0) return Error{say("--step picks one round; --format gif writes them all")};
    if (p.gif)
      if (Status st = ui::checkGifSize(p.width, p.height, p.scale, p.tween, rounds, a.size, a.scale, kMinSide); !st)
        return st.error();
    view.round = a.step >= 0 ? a.step : 0;  // the start, as the window opens it: a reader meets the question first
  } else if (a.step >= 0) {
    if (ps.program != Program::all_reduce_decomposed)
      return Error{say("--step applies to --op all_reduce_decomposed (its three states) or to an --algo's rounds")};
    if (a.step > 2)
      return Error{say("{0}; allowed: {1}", say("{0} {1} is out of range", "--step", a.step), "0, 1, 2")};
    view.stage = a.step;
  }
  ui::ExportItem it{ps.program, ps.spec, view, ui::exportFileName(ps.program, ps.spec.op, view, fmt),
                ui::exportCaption(ps.program, ps.spec.op, ps.spec.ranks, view)};
  if (!a.output.empty()) {
    if (ext != "." + fmt) return Error{say("the output name {0} must end in .{1}", shown(a.output), fmt)};
    it.file = a.output;
  }
  p.items.push_back(it);
  return p;
}

// The index's settings, in the reader's language (names and numbers as they are).
std::string settingsLine(const OpSpec& s, const Snapshot* snap, const Plan& p) {
  const Text run = say("N = {0} ranks, {1} elements per block, {2}, {3}, root R{4}", s.ranks, s.elems, name(s.dtype),
                       name(s.redop), s.root);
  // A page that follows the reader's light or dark names no theme (it shows either).
  const Text theme = p.follow ? say("light or dark as the reader's system is, {0}x{1} pixels", p.width, p.height)
                     : say(p.theme == ui::ThemeKind::light ? "theme light, {0}x{1} pixels" : "theme dark, {0}x{1} pixels",
                           p.width, p.height);
  if (!snap) return render(say("{0}, {1}", run, theme));
  return render(say("{0}, backend {1} {2}, {3}", run, snap->backend.name, snap->backend.version, theme));
}

int runExport(const ExportArgs& a) {
  auto parsed = parseSpec(a.spec);
  if (!parsed) return usage(parsed.error());
  auto placement = parseGpuSharing(a.gpu_sharing);
  if (!placement) return usage(placement.error());
  auto plan_r = makePlan(a, *parsed);
  if (!plan_r) return usage(plan_r.error());
  Plan& plan = *plan_r;
  // The set's directory is opened once, without following a link another
  // user planted (output_dir.h); every file is written relative to it.
  std::optional<ui::OutputDir> outdir;
  if (plan.all && !plan.html) {
    auto d = ui::OutputDir::open(plan.dir, true);
    if (!d) return usage(d.error());
    outdir = std::move(*d);
    for (ui::ExportItem& it : plan.items) it.file = outdir->shown(it.file);
  }
  for (ui::ExportItem& it : plan.items) {
    if (!outdir)
      if (Status s = ui::checkWritable(it.file); !s) return usage(s.error());
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
  if (!plan.svg && !plan.html) {
    if (Status s = checkRendererMemory(plan.width, plan.height); !s)
      return fail("export", s.error(), kExitFailed);
    if (Status s = gl.open(); !s) {
      std::fprintf(stderr, "collviz export: %s\n", render(s).c_str());
      return kExitFailed;
    }
    std::string which;
    const int limit = ui::Offscreen::maxSize(&which);
    if (plan.width > limit || plan.height > limit)
      return usage(say("--size {0} makes {1}x{2} pixels, beyond what this OpenGL allows ({3} = {4}, {5})", a.size,
                       plan.width, plan.height, which, limit, gl.renderer()));
  }
  ui::DiagramImage image;
  if (Status s = image.init(!plan.svg && !plan.html); !s) {
    std::fprintf(stderr, "collviz export: %s\n", render(s).c_str());
    return kExitFailed;
  }

  // Run each distinct program once (the traces share all-to-all's result).
  installInterruptHandler();
  EngineOptions eo;
  eo.deadline = std::chrono::milliseconds(a.spec.deadline_ms);
  eo.placement = *placement;
  auto hosts = parseHosts(a.hosts);
  if (!hosts) return usage(hosts.error());
  eo.hosts = *hosts;
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
  std::vector<ui::ExportView> html;
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
        std::fprintf(stderr, "collviz export: %s\n", tr("interrupted"));
        return interruptedExitCode();
      }
      // A figure carries the op, not the machine: what `auto` chose and why
      // ("NCCL unavailable ...; using Gloo") is no news to a writer who asked
      // for no backend (--status puts the backend in the figure).
      if (!snap->notice.empty() && runs.empty() && parsed->backend != BackendKind::automatic)
        std::fprintf(stderr, "collviz: %s\n", render(snap->notice).c_str());
      if (!snap->error.empty()) {
        std::fprintf(stderr, "collviz export: %s\n", render(snap->error).c_str());
        const bool bad_input = snap->steps.empty() && snap->error.find("allowed:") != std::string::npos;
        return bad_input ? kExitUsage : kExitFailed;
      }
      if (!snap->verified) {
        const long long wrong = snap->mismatches + snap->final_diffs;
        const Text verdict = snap->problem.empty()
                                 ? say("NOT VERIFIED ({0} wrong elements); the image marks them", wrong)
                                 : say("NOT VERIFIED ({0} wrong elements; first: {1}); the image marks them", wrong,
                                       snap->problem);
        std::fprintf(stderr, "collviz export: %s: %s\n", std::string(name(it.spec.op)).c_str(),
                     render(verdict).c_str());
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
    int wrote_w = plan.width, wrote_h = plan.height;  // the size written: after a crop, the cropped one
    if (plan.html) {  // every state of every figure, drawn once all have run
      html.push_back(v);
      continue;
    } else if (plan.svg) {
      const std::string svg = image.renderSvg(v);
      if (plan.crop) {
        std::smatch m;
        const std::string head = svg.substr(0, 400);
        if (std::regex_search(head, m, std::regex(R"re(<svg [^>]*width="(\d+)" height="(\d+)")re")))
          wrote_w = std::stoi(m[1]), wrote_h = std::stoi(m[2]);
      }
      written = write(it.file, svg.data(), svg.size());
    } else if (plan.gif) {
      auto gif = ui::renderRoundsGif(image, v, plan.tween);
      if (g_interrupted) return interruptedExitCode();
      if (!gif) return usage(gif.error());
      written = write(it.file, gif->data(), gif->size());
    } else {
      auto img = image.renderPng(v);
      if (!img) return usage(img.error());
      wrote_w = img->width, wrote_h = img->height;
      std::vector<uint8_t> png = ui::encodePng(*img);
      written = write(it.file, png.data(), png.size());
    }
    if (!written) return usage(written.error());
    if (!image.fontNotice().empty() && !warned_fonts) {
      std::fprintf(stderr, "collviz export: %s\n", image.fontNotice().c_str());
      warned_fonts = true;
    }
    if (!image.warning().empty())
      std::fprintf(stderr, "collviz export: %s: %s\n", printable(it.file).c_str(), image.warning().c_str());
    std::printf("%s\n", render(say(plan.crop ? "wrote {0} ({1}x{2}, cropped)" : "wrote {0} ({1}x{2})", printable(it.file),
                                    wrote_w, wrote_h))
                             .c_str());
    std::fflush(stdout);
    if (g_interrupted) return interruptedExitCode();
  }
  if (plan.html) {
    const std::string file = plan.items.front().file;
    auto settings = [&] { return settingsLine(parsed->spec, first.get(), plan); };
    const std::string page = ui::htmlExportPage(image, html, {plan.all, g_lang_both, plan.follow ? "" : a.theme, settings});
    if (Status s = write(file, page.data(), page.size()); !s) return usage(s.error());
    std::printf("%s\n", render(say("wrote {0} ({1} bytes)", file, page.size())).c_str());
  }
  if (plan.all && !plan.html) {
    std::vector<ui::ExportItem> rel = plan.items;
    for (ui::ExportItem& it : rel) it.file = fs::path(it.file).filename().string();
    const std::string index = outdir->shown("index.md");
    const std::string md = ui::indexMarkdown(rel, settingsLine(parsed->spec, first.get(), plan));
    Status s = write(index, md.data(), md.size());
    if (!s) return usage(s.error());
    std::printf("%s\n", render(say("wrote {0}", printable(index))).c_str());
  }
  return rc;
}

}  // namespace

void addExportCommand(CLI::App& app, std::function<int()>& action) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Run an op and write the window's view of it as PNG, SVG, an HTML page or (an algorithm's rounds) "
                "an animated GIF, without a window");
  addSpecOptions(cmd, a->spec);
  addHostOptions(cmd, a->hosts);
  addGpuSharingOption(cmd, a->gpu_sharing);
  addWholeOption(cmd, "--step", a->step,
                 "The state shown: with --op all_reduce_decomposed 0 input, 1 after reduce-scatter, "
                 "2 after all-gather (default 2); with --algo round K (0 the start, the default)")
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
                  "Output file (.png, .svg, .html, or .gif with --algo); with --all, a directory (with --format html, "
                  "the page). Default: a name like "
                  "08_all_to_all_trace_r2.png in the current directory");
  cmd->add_option("--format", a->format,
                  "png, svg, html or gif (with --algo; default: from the output name, else png); "
                  "`collviz lecture --export` writes a PDF deck");
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
  auto nccl = std::make_shared<NcclLogExportArgs>();
  cmd->add_option("--nccl-log", nccl->logs, "NCCL's own log (files, folders, -): draw its ranks, rings, trees and transports (SVG, PNG, HTML)");
  cmd->add_option("--channel", nccl->channel, "With --nccl-log: one channel's ring and trees, or all (every ring overlaid)");
  cmd->add_option("--comm", nccl->comm, "With --nccl-log: the communicator (0 the first `collviz nccl-log` lists)");
  auto jobArgs = std::make_shared<JobExportArgs>();
  cmd->add_option("--job", jobArgs->files, "A real job's traces or a capture (files, folders): draw who waits for whom (SVG, PNG, HTML), or its calls for timeline tools (-o trace.json: Chrome trace; -o trace.otf2: OTF2)");
  auto call = std::make_shared<std::string>();
  cmd->add_option("--call", *call, "With --job CAPTURE: one call's grid and arrivals, COMM:SEQ (COMM as `collviz job` lists it: its id or name; --trace K outlines member K)");
  cmd->callback([&action, a, cmd, algo_file, nccl, jobArgs, call] {
    if (!call->empty() && jobArgs->files.empty())
      return void(action = [] { return fail("export", say("--call needs --job CAPTURE: the capture folder the call is in"), kExitUsage); });
    if (!jobArgs->files.empty()) {
      *jobArgs = {jobArgs->files, a->output, a->format, a->theme, a->scale, cmd->count("--theme") > 0, *call, a->trace};
      return void(action = [jobArgs, both = !nccl->logs.empty()] { return runJobExport(*jobArgs, both); });
    }
    if (!nccl->logs.empty()) {
      nccl->output = a->output, nccl->format = a->format, nccl->theme = a->theme;
      nccl->scale = a->scale, nccl->theme_given = cmd->count("--theme") > 0;
      return void(action = [nccl] { return runNcclLogExport(*nccl); });
    }
    a->step_given = cmd->get_option("--step")->count() > 0;
    for (const char* o : {"--op", "--step", "--trace", "--algo", "--algo-file", "--status", "--status-time", "--theme"})
      if (cmd->count(o) > 0) a->given.push_back(o);
    if (cmd->count("--algo-file") > 0) {  // the file sets the op and ranks: read it before the spec ("" is refused)
      auto name = useAlgoFile(*algo_file, cmd, a->spec);
      if (!name) {
        const Error why = name.error();
        action = [why] { return fail("export", why, kExitUsage); };
        return;
      }
      a->algo = *name;
    }
    action = [a] { return runExport(*a); };
  });
}

}  // namespace collviz
