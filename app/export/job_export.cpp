// collviz export --job FILE|DIR... -o x.svg|x.png|x.html: the files read
// and analysed as `collviz job` does (engine/job), drawn by
// app/view/job_figure, written as the NCCL log's figure is
// (writeShapeFigure).
#include "app/export/job_export.h"

#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/export/nccl_log_export.h"
#include "app/files/safe_file.h"
#include "app/files/timeline.h"
#include "app/lang/lang.h"
#include "app/view/job_figure.h"

namespace collviz {

int runJobExport(const JobExportArgs& a, bool withNcclLog) {
  if (withNcclLog) return fail("export", say("--job and --nccl-log draw different figures: give one"), kExitUsage);
  if (!a.call.empty()) return runCallExport(a);
  std::string format = shapeFigureFormat(a.format, a.output);
  if (format == ".json") format = "json";
  if (format == ".otf2") format = "otf2";
  if (format != "svg" && format != "png" && format != "html" && format != "json" && format != "otf2")
    return fail("export", say("--format {0} with --job: allowed: svg, png, html, json (a Chrome trace), otf2", format), kExitUsage);
  if (format == "otf2" && !ui::haveOtf2())
    return fail("export", ui::writeOtf2(job::Job(), a.output).error(), kExitFailed);
  auto job = job::read(a.files);
  if (!job.ok()) return fail("export", job.error(), kExitFailed);
  // For timeline tools: the calls, not the figure.
  if (format == "json") {
    const std::string out = a.output.empty() ? "trace.json" : a.output;
    if (Status s = ui::writeFileAtomic(out, ui::chromeTrace(*job)); !s.ok()) return fail("export", s.error(), kExitFailed);
    return 0;
  }
  if (format == "otf2") {
    const std::string out = a.output.empty() ? "trace.otf2" : a.output;
    if (Status s = ui::writeOtf2(*job, out); !s.ok()) return fail("export", s.error(), kExitFailed);
    return 0;
  }
  const job::Analysis analysis = job::analyse(*job);
  ui::JobFigureParams p;
  p.theme = a.theme == "dark" ? ui::ThemeKind::dark : ui::ThemeKind::light;
  p.say = [](const Text& t) { return render(t); };
  auto fig = ui::jobFigure(*job, analysis, p);
  if (!fig.ok()) return fail("export", fig.error(), kExitFailed);
  const ShapeRedraw redraw = [&](ui::ThemeKind t) {
    ui::JobFigureParams q = p;
    q.theme = t;
    return ui::jobFigure(*job, analysis, q);
  };
  return writeShapeFigure(*fig, redraw, format, a.scale, a.output.empty() ? "job." + format : a.output, p.theme, a.theme_given);
}

}  // namespace collviz
