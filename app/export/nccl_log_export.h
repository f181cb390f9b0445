// collviz export --nccl-log FILE...: the figure of an NCCL log (SVG).
#pragma once

#include <string>
#include <vector>

namespace collviz {

struct NcclLogExportArgs {
  std::vector<std::string> logs;
  std::string output, format, theme = "light";
  std::string channel = "all";
  int comm = 0;
};

int runNcclLogExport(const NcclLogExportArgs& a);

}  // namespace collviz
