// collviz export --nccl-log FILE... -o x.svg|x.png|x.html: the figure of
// what NCCL built (app/view/nccl_log_figure), from its own log
// (engine/job/nccl_log): as SVG (app/files/nccl_log_svg), as pixels drawn by
// cairo from the same shapes (app/files/nccl_log_png), or as a web page
// around the SVG (app/files/html_writer: light and dark unless --theme).
#include "app/export/nccl_log_export.h"

#include <cstdio>
#include <filesystem>

#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/export/html_export.h"
#include "app/files/html_writer.h"
#include "app/files/image_file.h"
#include "app/files/nccl_log_png.h"
#include "app/files/nccl_log_svg.h"
#include "app/files/safe_file.h"
#include "app/lang/lang.h"

namespace collviz {

namespace {

std::string replaceAll(const std::string& s, const std::string& from, const std::string& to) {
  std::string out;
  for (std::size_t at = 0;;) {
    const std::size_t k = s.find(from, at);
    out.append(s, at, k == std::string::npos ? std::string::npos : k - at);
    if (k == std::string::npos) return out;
    out += to;
    at = k + from.size();
  }
}

// The page: the figure in a <figure> with its sentence as caption, light and
// dark (the same shapes in the other theme) unless the theme was given; the
// arrowheads' ids made the figure's own, so two figures can share a page;
// the shapes' kinds as data-kind, the page's colour classes being their
// only class (an element keeps the first of two class attributes).
std::string figurePage(const ui::NcclFigure& fig, const ShapeRedraw& redraw, ui::ThemeKind theme, bool theme_given) {
  auto own = [](const std::string& svg) {
    return replaceAll(replaceAll(svg, "arrow-", "f1-arrow-"), " class=\"", " data-kind=\"");
  };
  ui::HtmlSvg svg;
  svg.light = own(ui::figureToSvg(fig));
  const std::string fixed = theme_given ? (theme == ui::ThemeKind::dark ? "dark" : "light") : "";
  if (!theme_given) {  // the figure was drawn light: the same shapes dark beside it
    auto dark = redraw(ui::ThemeKind::dark);
    if (dark.ok()) svg.dark = own(ui::figureToSvg(*dark));
  }
  ui::HtmlFigure f;
  f.id = "f1";
  f.kind = ui::HtmlKind::still;
  f.caption = fig.title;
  f.desc = fig.title;
  f.states.push_back(std::move(svg));
  ui::HtmlLang l;
  l.lang = language() == Lang::zh ? "zh-Hans" : "en";
  l.name = language() == Lang::zh ? "中文" : "English";
  l.title = fig.title;
  l.words = ui::htmlWords();
  l.figures.push_back(std::move(f));
  return ui::htmlPage({l}, fixed);
}

}  // namespace

int runNcclLogExport(const NcclLogExportArgs& a) {
  const std::string format = shapeFigureFormat(a.format, a.output);
  if (format != "svg" && format != "png" && format != "html")
    return fail("export", say("--format {0} with --nccl-log: allowed: svg, png, html", format), kExitUsage);
  ui::NcclFigureParams p;
  if (a.channel != "all") {
    std::size_t used = 0;
    int k = -1;
    try {
      k = std::stoi(a.channel, &used);
    } catch (...) {
      used = 0;
    }
    if (used != a.channel.size() || k < 0)
      return fail("export", say("--channel {0}: allowed: all, or a channel number from 0", a.channel), kExitUsage);
    p.channel = k;
  }
  if (a.comm < 0) return fail("export", say("--comm {0}: allowed: a communicator number from 0", a.comm), kExitUsage);
  p.comm = std::size_t(a.comm);
  p.theme = a.theme == "dark" ? ui::ThemeKind::dark : ui::ThemeKind::light;
  p.say = [](const Text& t) { return render(t); };
  auto log = nccl_log::read(a.logs);
  if (!log.ok()) return fail("export", log.error(), kExitFailed);
  auto fig = ui::ncclLogFigure(*log, p);
  if (!fig.ok()) return fail("export", fig.error(), kExitFailed);
  const ShapeRedraw redraw = [&](ui::ThemeKind t) {
    ui::NcclFigureParams q = p;
    q.theme = t;
    return ui::ncclLogFigure(*log, q);
  };
  return writeShapeFigure(*fig, redraw, format, a.scale, a.output.empty() ? "nccl_log." + format : a.output, p.theme,
                          a.theme_given);
}

std::string shapeFigureFormat(const std::string& format, const std::string& output) {
  if (!format.empty()) return format;
  const std::string ext = std::filesystem::path(output).extension().string();
  return ext == ".png" ? "png" : ext == ".html" || ext == ".htm" ? "html" : ext == ".svg" || ext.empty() ? "svg" : ext;
}

int writeShapeFigure(const ui::NcclFigure& fig, const ShapeRedraw& redraw, const std::string& format, const std::string& scaleText,
                     const std::string& out, ui::ThemeKind theme, bool theme_given) {
  std::string bytes;
  if (format == "svg") {
    bytes = ui::figureToSvg(fig);
  } else if (format == "png") {
    auto scale = parseDecimal("--scale", scaleText);
    if (!scale) return fail("export", say("{0}; allowed: {1} to {2}", scale.error().text, "0.25", 8), kExitUsage);
    auto img = ui::figureToImage(fig, float(*scale));
    if (!img.ok()) return fail("export", img.error(), kExitUsage);
    const std::vector<uint8_t> png = ui::encodePng(*img);
    bytes.assign(png.begin(), png.end());
  } else {
    bytes = figurePage(fig, redraw, theme, theme_given);
  }
  if (Status s = ui::writeFileAtomic(out, bytes); !s) return fail("export", s.error(), kExitFailed);
  std::printf("%s\n", render(say("wrote {0}", out)).c_str());
  return kExitOk;
}

}  // namespace collviz
