// `collviz lecture FILE`: check the script, then open the window in lecture
// mode (full screen; --window keeps a window); with --export DIR, draw a
// title slide and every step (the window's view fitted above the step's
// caption) as PNG and SVG, plus an index.md, or (--format pdf) the whole
// deck as one PDF: each page the slide's picture with its caption as text.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "app/cli/cli.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_input.h"
#include "app/cli/cli_common.h"
#include "app/export/headless_gl.h"
#include "app/export/html_export.h"
#include "app/gl/diagram_image.h"
#include "app/lang/lang.h"
#include "app/lecture/deck.h"
#include "app/lecture/player.h"
#include "app/view/caption.h"
#include "app/view/round_layout.h"
#include "engine/group/exit_cleanup.h"

namespace collviz {
namespace {

namespace fs = std::filesystem;

struct LectureArgs {
  std::string file;
  std::string export_dir;
  std::string format = "both";  // png, svg, both
  std::string theme = "light";
  int width = 1600, height = 1000;  // a projector's 16:10
  std::string size;                 // WIDTHxHEIGHT, instead of --width/--height
  std::string scale = "1";          // the UI scale: the image is size x scale pixels
  int deadline_ms = kDefaultDeadlineMs;
  bool presenter = false;
  bool window = false;  // keep a window instead of full screen
  bool status = false, status_time = false;  // the machine's block, measured times
};

int usage(const Error& e) {
  std::fprintf(stderr, "collviz lecture: %s\n", render(e).c_str());
  return kExitUsage;
}

// The snapshot for a slide: each distinct run once (steps often share one).
class SlideRuns {
 public:
  explicit SlideRuns(Engine& e) : engine_(e) {}
  std::shared_ptr<const Snapshot> get(const lecture::Slide& s) {
    const std::string algo = ui::isRoundView(s.item.program, s.item.spec.op, s.item.view) ? s.item.view.algo : "native";
    for (const Ran& r : runs_)
      if (r.program == s.item.program && r.spec == s.item.spec && r.backend == s.backend && r.algo == algo)
        return r.snap;
    Request req;
    req.program = s.item.program;
    req.spec = s.item.spec;
    req.backend = s.backend;
    req.algo = algo;
    auto snap = waitInterruptible(engine_, engine_.submit(req));
    if (snap) runs_.push_back({s.item.program, s.item.spec, s.backend, algo, snap});
    return snap;
  }

 private:
  struct Ran {
    Program program;
    OpSpec spec;
    BackendKind backend;
    std::string algo;
    std::shared_ptr<const Snapshot> snap;
  };
  Engine& engine_;
  std::vector<Ran> runs_;
};

// The files of a deck being written: removed again (with the folders made
// for them) when it ends early — an error, a full disk, Ctrl-C — so that no
// half deck is left, only a whole one (its index.md written last).
class DeckFiles {
 public:
  // Also registered with exit_cleanup.h: an interrupt that cannot wait for
  // the orderly end removes them too.
  explicit DeckFiles(const ui::OutputDir& dir) : dir_(dir) {
    for (const std::string& d : dir_.created()) registerTempDir(d);
  }
  ~DeckFiles() {
    for (const std::string& n : names_) {
      if (!kept_) ::unlinkat(dir_.fd(), n.c_str(), 0);
      forgetTempFile(dir_.shown(n));
    }
    if (!kept_) dir_.removeCreatedIfEmpty();
    for (const std::string& d : dir_.created()) forgetTempDir(d);
  }
  void add(const std::string& name) {
    names_.push_back(name);
    registerTempFile(dir_.shown(name));
  }
  void keep() {
    kept_ = true;
    for (const std::string& n : names_) forgetTempFile(dir_.shown(n));
    for (const std::string& d : dir_.created()) forgetTempDir(d);
  }

 private:
  const ui::OutputDir& dir_;
  std::vector<std::string> names_;
  bool kept_ = false;
};

// The deck's date: SOURCE_DATE_EPOCH when set (reproducible builds' rule),
// else when the script last changed; never the time of the export, so the
// same script gives the same bytes.
long long deckDate(const std::string& script) {
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) {
    char* end = nullptr;
    const long long v = std::strtoll(e, &end, 10);
    if (end && *end == 0 && v >= 0) return v;
  }
  struct stat st {};
  return ::stat(script.c_str(), &st) == 0 ? (long long)st.st_mtime : 0;
}

Status writeSlide(ui::DiagramImage& image, const ui::ExportView& v, const ui::OutputDir& dir,
                  const std::string& name, bool svg) {
  if (svg) return ui::writeFileAt(dir, name, image.renderSvg(v));
  auto img = image.renderPng(v);
  if (!img) return img.error();
  std::vector<uint8_t> png = ui::encodePng(*img);
  return ui::writeFileAt(dir, name, png.data(), png.size());
}

int exportDeck(const LectureArgs& a, const lecture::Lecture& lec) {
  if (a.format != "png" && a.format != "svg" && a.format != "both" && a.format != "pdf" && a.format != "html")
    return usage(say("{0}; allowed: {1}", say("{0} {1} is not {2}", "--format", a.format, say("a format")),
                     "png, svg, both, pdf, html"));
  if (a.format == "pdf" && !ui::pdfAvailable()) return usage(ui::deckPdf({}, {}).error());
  if (a.theme != "light" && a.theme != "dark") return usage(say("{0}; allowed: {1}", say("{0} {1} is not {2}", "--theme", a.theme, say("a theme")), "light, dark"));
  int width = a.width, height = a.height;
  if (!a.size.empty()) {
    std::smatch m;
    if (!std::regex_match(a.size, m, std::regex(R"((\d+)[xX](\d+))")))
      return usage(say("{0} (for example {1})", notA("--size", a.size, "WIDTHxHEIGHT"), "1920x1080"));
    // Digits past five are out of range, not "not WIDTHxHEIGHT" (as export says).
    width = m[1].length() > 5 ? 99999 : std::stoi(m[1]);
    height = m[2].length() > 5 ? 99999 : std::stoi(m[2]);
    if (m[1].length() > 5 || m[2].length() > 5)
      return usage(say("--size {0}x{1} (after --scale) is out of range; allowed: 320x240 to 8192x8192 pixels",
                       shown(m[1].str()), shown(m[2].str())));
  }
  auto parsed_scale = parseDecimal("--scale", a.scale);
  if (!parsed_scale) return usage(say("{0}; allowed: {1} to {2}", parsed_scale.error().text, "0.25", 8));
  if (!(*parsed_scale >= 0.25 && *parsed_scale <= 8.0))
    return usage(say("{0}; allowed: {1} to {2}", say("{0} {1} is out of range", "--scale", shown(a.scale)), "0.25", 8));
  const float scale = float(*parsed_scale);
  width = int(std::lround(width * scale));
  height = int(std::lround(height * scale));
  if (width < 320 || height < 240 || width > 8192 || height > 8192)
    return usage(say("--size {0}x{1} (after --scale) is out of range; allowed: 320x240 to 8192x8192 pixels", width,
                     height));
  // PDF: the pages are drawn like the PNGs, then set into one document.
  const bool pdf = a.format == "pdf", html = a.format == "html";  // html: one page, index.html
  std::vector<ui::HtmlSlide> html_slides;
  const bool png = a.format == "png" || a.format == "both" || pdf, svg = a.format == "svg" || a.format == "both";
  int face = 0;
  if (language() == Lang::zh && ui::findCjkFont(false, &face).empty()) {
    std::fprintf(stderr, "collviz lecture: %s\n", ui::cjkMissingNotice().c_str());
    setLanguage(Lang::en);
  }
  HeadlessGl gl;
  if (png) {
    if (Status s = checkRendererMemory(width, height); !s) return fail("lecture", s.error(), kExitFailed);
    if (Status s = gl.open(); !s) return std::fprintf(stderr, "collviz lecture: %s\n", render(s).c_str()), kExitFailed;
  }
  ui::DiagramImage image;
  if (Status s = image.init(png); !s) return std::fprintf(stderr, "collviz lecture: %s\n", render(s).c_str()), kExitFailed;

  const Lang lang = language();
  std::vector<lecture::Slide> slides = lecture::slidesOf(lec, lang, png ? "png" : "svg");
  std::string glyphs = lang == Lang::zh ? ui::uiChineseText() : "";
  for (const lecture::Slide& s : slides) glyphs += s.item.caption;
  installInterruptHandler();
  EngineOptions eo;
  eo.deadline = std::chrono::milliseconds(a.deadline_ms);
  eo.hosts = lec.hosts;  // the script's hosts (checked with the script); empty: this machine
  Engine engine(eo);
  SlideRuns runs(engine);
  std::vector<std::string> unverified;  // "03_ring: round 3/6 (...): 2 slots differ ..."
  // Every step runs (or is refused by the backend) before anything is
  // written: a step the backend refuses (bf16 on Gloo, too big for memory)
  // is the script's error, exit 2 with its file:line, as `collviz run`
  // exits 2 for the same spec; a deck is never left half written for it.
  std::vector<std::shared_ptr<const Snapshot>> snaps;
  for (std::size_t i = 0; i < slides.size(); ++i) {
    auto snap = runs.get(slides[i]);
    if (!snap) return fail("lecture", say("interrupted"), interruptedExitCode());
    if (snap->rejected)
      return usage(say("{0}:{1}: step {2}: {3}", lec.path, lec.steps[i].line, i + 1, snap->error));
    snaps.push_back(snap);
  }
  // Opened once, without following a link another user planted; every file
  // is written relative to it (output_dir.h).
  auto dir = ui::OutputDir::open(a.export_dir, true);
  if (!dir) return usage(dir.error());
  DeckFiles written(*dir);  // removed again unless the deck is whole
  std::unique_ptr<ui::AtomicFile> pdf_file;
  std::unique_ptr<ui::PdfDeck> deck;
  int rc = kExitOk;
  const ui::ThemeKind theme = a.theme == "dark" ? ui::ThemeKind::dark : ui::ThemeKind::light;
  // The title slide: the script's title, its author and date when given.
  {
    ui::TitleSlide t;
    t.title = lec.title.in(lang).empty() ? fs::path(lec.path).stem().string() : lec.title.in(lang);
    const std::string author = lec.author.in(lang), date = lec.date.in(lang);
    t.byline = author + (!author.empty() && !date.empty() ? " · " : "") + date;
    t.width = float(width);
    t.height = float(height);
    const std::string title_glyphs = glyphs + t.title + t.byline;
    t.measure = image.measure(title_glyphs);
    const std::vector<ui::TextItem> texts = ui::titleSlideTexts(t, ui::makeTheme(theme));
    if (pdf) {
      // One page at a time into deck.pdf's temporary: memory holds a page, not the deck.
      ui::PdfParams pp = image.pdfParams(width, height, theme);
      pp.title = lec.title.in(lang).empty() ? lec.path : lec.title.in(lang);
      pdf_file = std::make_unique<ui::AtomicFile>();
      if (Status s = pdf_file->open(*dir, "deck.pdf"); !s) return usage(s.error());
      ui::AtomicFile* f = pdf_file.get();
      deck = std::make_unique<ui::PdfDeck>(
          pp, [f](const char* b, std::size_t n) { return f->write(b, n); }, deckDate(lec.path));
      if (Status s = deck->add({{}, texts}); !s) return usage(s.error());
    }
    if (html) html_slides.push_back({{image.renderTextSlideSvg(width, height, theme, texts, title_glyphs, t.title), {}, {}}, t.title});
    for (bool as_svg : {false, true}) {
      if (pdf || html || (as_svg && !svg) || (!as_svg && !png)) continue;
      const std::string name = as_svg ? "step00_title.svg" : "step00_title.png";
      Status w;
      if (as_svg) {
        w = ui::writeFileAt(*dir, name, image.renderTextSlideSvg(width, height, theme, texts, title_glyphs, t.title));
      } else {
        auto img = image.renderTextSlide(width, height, theme, texts, title_glyphs);
        if (!img) return usage(img.error());
        std::vector<uint8_t> bytes = ui::encodePng(*img);
        w = ui::writeFileAt(*dir, name, bytes.data(), bytes.size());
      }
      if (!w) return usage(w.error());
      written.add(name);
      std::printf("%s\n", render(say("wrote {0}", printable(dir->shown(name)))).c_str());
    }
  }
  for (std::size_t i = 0; i < slides.size(); ++i) {
    const lecture::Slide& s = slides[i];
    const auto& snap = snaps[i];
    if (!snap->error.empty()) {
      std::fprintf(stderr, "collviz lecture: %s: %s\n", s.item.file.c_str(), render(snap->error).c_str());
      rc = kExitFailed;
    } else if (!snap->verified) {
      unverified.push_back(s.item.file + ": " +
                           (snap->problem.empty() ? trf("{0} wrong elements", {std::to_string(snap->mismatches)})
                                                  : render(snap->problem)));
    }
    ui::ExportView v{s.item.program, s.item.spec, snap, s.item.view, theme, width, height, scale, 0,
                     a.status || a.status_time, a.status_time, {}, {}};
    v.view.lang = lang;
    v.view.hide_times = !a.status_time;  // a deck exported twice is byte-identical
    v.view.in_file = true;
    v.caption = s.item.caption;
    // As the live lecture shows the step full screen (lecture_panel): the
    // caption grows with the slide (1.0 at about 1400x850), the step
    // counter at its right.
    v.caption_scale = std::max(scale, std::min(float(width) / 1400.0f, float(height) / 850.0f));
    v.counter = lecture::stepCounter(int(i), int(slides.size()));
    v.glyphs = glyphs;
    if (html) {
      html_slides.push_back({{image.renderSvg(v, nullptr), {}, {}}, s.item.caption});
    }
    if (pdf) {
      auto page = image.pdfPage(v);
      if (!page) return usage(page.error());
      if (Status w = deck->add(*page); !w) return usage(w.error());
    }
    for (bool as_svg : {false, true}) {
      if (pdf || html || (as_svg && !svg) || (!as_svg && !png)) continue;
      const std::string name = fs::path(s.item.file).replace_extension(as_svg ? ".svg" : ".png").string();
      const std::string file = dir->shown(name);
      if (Status w = writeSlide(image, v, *dir, name, as_svg); !w) return usage(w.error());
      written.add(name);
      if (!image.warning().empty())
        std::fprintf(stderr, "collviz lecture: %s: %s\n", printable(file).c_str(), image.warning().c_str());
      std::printf("%s\n", render(say("wrote {0}", printable(file))).c_str());
    }
    std::fflush(stdout);
    if (g_interrupted) return interruptedExitCode();
  }
  if (pdf) {
    if (Status s = deck->finish(); !s) return usage(s.error());
    if (Status s = pdf_file->commit(); !s) return usage(s.error());
    written.add("deck.pdf");
    std::printf("%s\n", render(say("wrote {0} ({1} pages)", printable(dir->shown("deck.pdf")), deck->pages())).c_str());
  }
  if (html) {
    ui::HtmlWords w = ui::htmlWords();
    w.round = tr("step {0}/{1}");
    w.prev = tr("previous step");
    w.next = tr("next step");
    const std::string title = lec.title.in(lang).empty() ? fs::path(lec.path).stem().string() : lec.title.in(lang);
    const std::string page = ui::deckPage(lang == Lang::zh ? "zh-Hans" : "en", title, html_slides, w, a.theme);
    if (Status s = ui::writeFileAt(*dir, "index.html", page); !s) return usage(s.error());
    written.add("index.html");
    std::printf("%s\n", render(say("wrote {0} ({1} bytes)", printable(dir->shown("index.html")), page.size())).c_str());
  }
  const std::string settings = std::string("collviz lecture ") + lec.path + " --lang " +
                               std::string(langName(lang)) + " (" + std::to_string(width) + "x" +
                               std::to_string(height) + ", theme " + a.theme + ")";
  const std::string index = dir->shown("index.md");
  // Its links go to what was written: the images, else deck.pdf's pages or
  // index.html's slides.
  const std::string linked = pdf ? "deck.pdf" : html ? "index.html" : "";
  if (Status s = ui::writeFileAt(*dir, "index.md", lecture::deckIndex(lec, slides, lang, settings, linked)); !s)
    return usage(s.error());
  written.keep();  // the deck is whole
  std::printf("%s\n", render(say("wrote {0}", printable(index))).c_str());
  // The deck is written either way (to look at what went wrong); the exit
  // says whether every slide showed a verified result.
  if (!unverified.empty()) {
    std::fprintf(stderr, "collviz lecture: %s\n", render(say("{0} step(s) not verified:", unverified.size())).c_str());
    for (const std::string& u : unverified) std::fprintf(stderr, "  %s\n", u.c_str());
    rc = kExitFailed;
  }
  return rc;
}

}  // namespace

void addLectureCommand(CLI::App& app, std::function<int()>& action, WindowRequest* window) {
  auto a = std::make_shared<LectureArgs>();
  CLI::App* cmd = app.add_subcommand(
      "lecture", "Open a lecture script (TOML) in the window, or --export it as a slide deck (PNG and SVG, one PDF or one HTML page)");
  cmd->add_option("file", a->file, "The lecture script (collviz ships some in share/collviz/lectures)")->required();
  cmd->add_option("--export", a->export_dir, "Draw every step with its caption into DIR, plus index.md");
  cmd->add_option("--format", a->format,
                  "With --export: png, svg, both, pdf (the whole deck as one PDF, captions as text) or html (one page, index.html)")
      ->capture_default_str();
  cmd->add_option("--theme", a->theme, "With --export: light or dark")->capture_default_str();
  cmd->add_option("--width", a->width, "With --export: image width in pixels")->capture_default_str();
  cmd->add_option("--height", a->height, "With --export: image height in pixels")->capture_default_str();
  cmd->add_option("--size", a->size, "With --export: slide size WIDTHxHEIGHT (instead of --width/--height)");
  cmd->add_option("--scale", a->scale, "With --export: UI scale; the slide is size x scale pixels")
      ->capture_default_str();
  cmd->add_flag("--status", a->status,
                "With --export: add the status block (backend, devices, the notes for the op shown)");
  cmd->add_flag("--status-time", a->status_time,
                "With --export: the status block with measured times (they vary run to run)");
  cmd->add_flag("--presenter", a->presenter,
                "Open the presenter view (notes, timer, step list) too; S opens and closes it");
  cmd->add_flag("--window", a->window, "Open in a window with the panels, not full screen");
  addDeadlineOption(cmd, a->deadline_ms);
  cmd->callback([&action, a, window] {
    action = [a, window]() -> int {
      // The whole script is checked before anything opens or runs.
      if (a->deadline_ms < 100 || a->deadline_ms > 600000)
        return usage(say("--deadline-ms {0} is out of range; allowed: {1} to {2}", a->deadline_ms, 100, 600000));
      Result<lecture::Lecture> lec = lecture::loadLecture(a->file);
      if (!lec) return usage(lec.error());
      if (!a->export_dir.empty()) return exportDeck(*a, *lec);
      if (!window) return usage(say("the window is not available here; use --export DIR"));
      window->open = true;
      window->lecture = a->file;
      window->presenter = a->presenter;
      window->fullscreen = !a->window;
      return kExitOk;
    };
  });
}

}  // namespace collviz
