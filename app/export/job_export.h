// collviz export --job FILE|DIR...: a real job's collectives as a figure
// (app/view/job_figure) as SVG, PNG or HTML.
#pragma once

#include <string>
#include <vector>

namespace collviz {

struct JobExportArgs {
  std::vector<std::string> files;
  std::string output, format, theme = "light";
  std::string scale = "1";   // PNG: pixels per figure unit (0.25 to 8)
  bool theme_given = false;  // HTML: one theme; else light and dark by the reader's scheme
};

// `withNcclLog`: --nccl-log was given too (refused: they draw different figures).
int runJobExport(const JobExportArgs& a, bool withNcclLog = false);

}  // namespace collviz
