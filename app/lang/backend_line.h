// The backend as one line, the same in the window, in a figure's status
// block and in `collviz run`: "gloo 0.5.0 · CPU (2 cores), one process per
// rank · tcp 127.0.0.1", in the reader's language. The window draws `head`
// in bold and each part after a " · "; the CLI prints text().
#pragma once

#include <string>
#include <vector>

#include "engine/snapshot.h"

namespace collviz {

struct BackendLine {
  std::string head;                // "gloo 0.5.0": the name and version
  std::vector<std::string> parts;  // the devices, the transport (those not empty)
  std::string text() const;        // head, then " · " before each part
};

// `transport`: false leaves it out (a figure: the machine's wiring is not
// part of what it draws).
BackendLine backendLine(const BackendInfo& b, bool transport = true);

}  // namespace collviz
