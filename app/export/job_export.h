// collviz export --job FILE|DIR...: a real job's collectives as a figure
// (app/view/job_figure) as SVG, PNG or HTML; with --call COMM:SEQ one
// captured call's grid (app/view/call_figure, call_export.cpp).
#pragma once

#include <string>
#include <vector>

namespace collviz {

struct JobExportArgs {
  std::vector<std::string> files;
  std::string output, format, theme = "light";
  std::string scale = "1";   // PNG: pixels per figure unit (0.25 to 8)
  bool theme_given = false;  // HTML: one theme; else light and dark by the reader's scheme
  std::string call;          // --call COMM:SEQ: one captured call's grid (call_export.cpp)
  std::string trace = "all"; // with --call: the member row outlined (its rank in the communicator)
};

// `withNcclLog`: --nccl-log was given too (refused: they draw different figures).
int runJobExport(const JobExportArgs& a, bool withNcclLog = false);
// --call: the call's grid with its arrivals (SVG, PNG, HTML).
int runCallExport(const JobExportArgs& a);

}  // namespace collviz
