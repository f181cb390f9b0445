// What one diagram shows, before any geometry: columns of rank rows holding
// block labels, and between each pair of columns the op whose data relation
// (the oracle's BlockRefs) the flows draw. Pure: no ImGui, no GL.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/collectives.h"
#include "engine/verify/oracle.h"
#include "engine/snapshot.h"
#include "engine/spec.h"

namespace collviz::ui {

// How a gap's flows are drawn: the op's row in engine/collectives.h.
using FlowKind = FlowShape;
FlowKind flowKind(Op op);

struct RowModel {
  bool present = false;             // false: no buffer, a dashed "—" box
  std::vector<BlockLabel> labels;   // one per block, what the tile says
  std::vector<BlockRef> refs;       // columns > 0: the previous column's blocks feeding each block
};

struct ColumnModel {
  std::string title;     // "Input", "Output", "after reduce-scatter"
  std::string subtitle;  // "one shard each"; "not yet run" before a run
  std::vector<RowModel> rows;
  bool expected = false;     // the oracle's shape, not a backend's result
  int step = 0;              // snapshot step the buffers come from
  bool output_side = false;  // that step's output (true) or input
};

struct GapModel {
  OpSpec spec;  // the op whose relation links the two columns
  FlowKind kind = FlowKind::pairs;
  std::string label;  // decomposition: "Reduce-scatter"; single op: empty
};

struct DiagramModel {
  Program program = Program::single;
  OpSpec spec;  // all_reduce for the decomposition
  std::vector<ColumnModel> columns;
  std::vector<GapModel> gaps;  // columns.size() - 1
  // The snapshot the buffers come from; null when none matches (not yet run).
  std::shared_ptr<const Snapshot> snapshot;
  bool ran() const { return snapshot != nullptr; }
  // Each rank's host when the ranks ran on two or more (rank_hosts.h): the
  // rows are grouped under their host's name; empty on one host.
  std::vector<std::string> hosts;
  // The raw buffer behind a column's row (for values in tooltips), or null.
  const BufferView* buffer(int column, int rank) const;
};

// Does `snap` answer this program and spec (fields the op does not use, like
// the root of all-reduce, are ignored)?
bool snapshotMatches(const Snapshot& snap, Program program, const OpSpec& spec);

// The model for `program`/`spec`. `snap` is used when it matches and holds
// every step; otherwise the columns show the expected shape.
DiagramModel buildModel(Program program, const OpSpec& spec,
                        std::shared_ptr<const Snapshot> snap);

// Expected labels: the input identity (letter and shard from the oracle), and
// an output block's label composed from the previous column's labels.
std::vector<BlockLabel> expectedInputLabels(const OpSpec& spec, int rank);
BlockLabel composeLabel(const BlockRef& ref, const std::vector<RowModel>& previous,
                        const OpSpec& gap);

// Count of blocks in the widest row of a column (at least 1, for "—" boxes).
int maxBlocks(const ColumnModel& c);

}  // namespace collviz::ui
