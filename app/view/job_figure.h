// A real job's collectives as a figure (collviz export --job): the verdict
// sentence on top; then one lane per process group (the groups the findings
// name first, then the busiest), each with one row per member rank, grouped
// by host, and the group's collectives as tiles in sequence order (op and
// size; NCCL's algorithm, protocol, channels, bus bandwidth and time where
// the Inspector or the profiler gave them), coloured by how far the rank
// got (completed, waits in it, scheduled); where ranks disagree the tiles
// say it: a rank that never entered the collective others wait in is an
// empty tile marked "never entered" and its row label outlined (as the
// trace highlights one rank), a mismatch in op, size or dtype is outlined
// on the ranks that differ, a rank whose dump is missing says "no dump".
// Below: NCCL RAS's ranks and communicators, and nccl-tests' table per size
// with #wrong highlighted. The same shapes as the NCCL log figure
// (NcclFigure), so its SVG and PNG writers draw it; outlined ranks carry
// class="culprit" data-rank, tiles data-rank data-seq data-state, so a test
// can check them. Pure.
#pragma once

#include <functional>
#include <string>

#include "app/view/nccl_log_figure.h"
#include "engine/job/job.h"

namespace collviz::ui {

struct JobFigureParams {
  ThemeKind theme = ThemeKind::light;
  std::function<std::string(const Text&)> say;  // the reader's language
  int lanes = 6;    // process groups drawn at most
  int columns = 7;  // collectives per lane at most (around the one that matters)
  int rows = 32;    // ranks per lane at most
  // The width the viewer shows at once, in figure units (the job window at
  // 2x: less than the figure's least width). The verdict, the findings and
  // the legend wrap to it; the lanes of tiles still scroll. 0: an export,
  // whose verdict wraps to the figure's least width and whose findings and
  // legend to the figure's width.
  float view_width = 0;
};

// The figure, or an error when the job holds nothing to draw.
Result<NcclFigure> jobFigure(const job::Job& job, const job::Analysis& a, const JobFigureParams& p);

// The Job::calls index of the collective's tile at (x, y) in figure units,
// -1 where none (the job window: a click opens that call as collviz's own op;
// a rank's "never entered" tile opens the call the others wait in).
int jobFigureCallAt(const NcclFigure& f, float x, float y);

}  // namespace collviz::ui
