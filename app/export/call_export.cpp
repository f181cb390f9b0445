// collviz export --job CAPTURE --call COMM:SEQ -o x.png|x.svg|x.html: one
// captured call's grid with its arrivals (app/view/call_figure), for a bug
// report. The capture is read as `collviz job` reads it; COMM is a
// communicator as `collviz job` lists it (its id, or its name), SEQ the
// call's number in it; the communicator's straggler tally goes under the
// grid. Written as every shape figure is (writeShapeFigure).
#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/export/job_export.h"
#include "app/export/nccl_log_export.h"
#include "app/lang/lang.h"
#include "app/view/call_figure.h"
#include "engine/job/arrival.h"
#include "engine/job/captured_call.h"
#include "engine/job/job.h"

namespace collviz {

int runCallExport(const JobExportArgs& a) {
  std::string format = shapeFigureFormat(a.format, a.output);
  if (!format.empty() && format[0] == '.') format.erase(0, 1);  // an output's other extension ("x.json")
  if (format != "svg" && format != "png" && format != "html")
    return fail("export", say("--format {0} with --call: allowed: svg, png, html", format), kExitUsage);
  int highlight = -1;
  if (!a.trace.empty() && a.trace != "all") {
    auto k = parseWhole("--trace", a.trace, 0, 1 << 20);
    if (!k || *k < 0) return fail("export", say("--trace {0} with --call: allowed: all, or a member's rank in the communicator (0, 1, ...)", a.trace), kExitUsage);
    highlight = int(*k);
  }
  auto job = job::read(a.files);
  if (!job.ok()) return fail("export", job.error(), kExitFailed);
  auto call = job::capturedCallAt(*job, a.call);
  if (!call.ok()) return fail("export", call.error(), kExitUsage);
  if (highlight >= int(call->ranks.size()))
    return fail("export", say("--trace {0}: the communicator has ranks 0 to {1}", a.trace, int(call->ranks.size()) - 1), kExitUsage);
  char id[24];
  std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(call->commId));
  const job::CommTally tally = job::tallyOf(*job, job->groupIndex(id));
  ui::CallFigureParams p;
  p.theme = a.theme == "dark" ? ui::ThemeKind::dark : ui::ThemeKind::light;
  p.say = [](const Text& t) { return render(t); };
  p.highlight = highlight;
  p.stragglers = &tally;
  auto fig = ui::callFigure(*call, p);
  if (!fig.ok()) return fail("export", fig.error(), kExitFailed);
  const ShapeRedraw redraw = [&](ui::ThemeKind t) {
    ui::CallFigureParams q = p;
    q.theme = t;
    return ui::callFigure(*call, q);
  };
  return writeShapeFigure(*fig, redraw, format, a.scale, a.output.empty() ? "call." + format : a.output, p.theme, a.theme_given);
}

}  // namespace collviz
