// collviz export --nccl-log FILE...: the figure of an NCCL log (SVG, PNG, HTML).
#pragma once

#include <string>
#include <vector>

namespace collviz {

struct NcclLogExportArgs {
  std::vector<std::string> logs;
  std::string output, format, theme = "light";
  std::string channel = "all";
  int comm = 0;
  std::string scale = "1";   // PNG: pixels per figure unit (0.25 to 8)
  bool theme_given = false;  // HTML: one theme; else light and dark by the reader's scheme
};

int runNcclLogExport(const NcclLogExportArgs& a);

}  // namespace collviz
