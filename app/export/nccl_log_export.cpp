// collviz export --nccl-log FILE... -o x.svg: the figure of what NCCL built
// (app/files/nccl_log_svg), from its own log (engine/algo/nccl_log).
#include "app/export/nccl_log_export.h"

#include <cstdio>
#include <filesystem>

#include "app/cli/cli_common.h"
#include "app/cli/cli_input.h"
#include "app/files/nccl_log_svg.h"
#include "app/files/safe_file.h"
#include "app/lang/lang.h"

namespace collviz {

int runNcclLogExport(const NcclLogExportArgs& a) {
  namespace fs = std::filesystem;
  std::string format = a.format;
  if (format.empty()) format = fs::path(a.output).extension() == ".png" ? "png" : "svg";
  if (format != "svg")
    return fail("export", say("--nccl-log writes SVG (-o FILE.svg); the figure of an NCCL log as {0} is not made yet", format), kExitUsage);
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
  auto svg = ui::ncclLogSvg(*log, p);
  if (!svg.ok()) return fail("export", svg.error(), kExitFailed);
  const std::string out = a.output.empty() ? "nccl_log.svg" : a.output;
  if (Status s = ui::writeFileAtomic(out, *svg); !s) return fail("export", s.error(), kExitFailed);
  std::printf("%s\n", render(say("wrote {0}", out)).c_str());
  return kExitOk;
}

}  // namespace collviz
