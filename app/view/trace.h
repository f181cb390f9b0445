// Trace highlighting: which blocks and flows stay bright when tracing rank k,
// computed from the oracle's data relation (the rows' BlockRefs). Pure.
#pragma once

#include <vector>

#include "app/view/diagram_model.h"

namespace collviz::ui {

enum class TraceMode : uint8_t {
  reaches,  // what reaches Rk: walk back from Rk's output row
  goes,     // where Rk's data goes: walk forward from Rk's input row
};

struct GapTrace {
  std::vector<std::vector<bool>> pair;  // [source row][destination row]
  std::vector<bool> into_node;          // source row -> node
  std::vector<bool> from_node;          // node -> destination row
};

struct TraceSets {
  bool active = false;  // false: "All", everything bright
  std::vector<std::vector<std::vector<bool>>> lit;  // [column][row][block]
  std::vector<GapTrace> gaps;

  bool block(int column, int row, int block) const;
  bool row(int column, int row) const;  // any block of the row lit
  bool pair(int gap, int src, int dst) const;
  bool intoNode(int gap, int src) const;
  bool fromNode(int gap, int dst) const;
};

// rank < 0 or >= the rank count: "All".
TraceSets computeTrace(const DiagramModel& m, int rank, TraceMode mode);

}  // namespace collviz::ui
