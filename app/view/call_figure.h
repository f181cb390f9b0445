// One captured collective as collviz draws its own ops (issue 58): the
// call's grid. A title (function, seq, communicator with its members as
// world ranks and hosts, count, datatype, reduce op, root); one row per
// member rank, the input buffer at entry on the left and the output at
// return on the right, each split into the op's blocks as the article
// draws them (N blocks for all-gather's output, reduce-scatter's input,
// all-to-all and all-reduce; one buffer for broadcast and reduce; gather and
// scatter N at the root), a block lettered and coloured by where its data
// came from, showing its first values decoded in the call's datatype, each
// value's cell coloured by the value (the stronger the larger, as the window's heat
// strip); a block the capture kept only part of says "first 256 B of 4
// MiB", one it kept nothing of says why. On the right each member's arrival
// relative to the last (the last outlined, the others' wait), and under the
// grid the communicator's straggler summary. The same shapes as the job
// figure (NcclFigure): its SVG and PNG writers draw it, and the live window
// (app/panels/watch_window) draws a selected call with it. Every value
// cell carries class="value" data-rank (world) data-side (in, out)
// data-block data-elem data-value; the last arrival class="last" data-rank;
// the highlighted row class="highlight" data-rank. Pure.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "app/view/nccl_log_figure.h"
#include "engine/job/arrival.h"
#include "engine/job/captured_call.h"

namespace collviz::ui {

struct CallFigureParams {
  ThemeKind theme = ThemeKind::light;
  std::function<std::string(const Text&)> say;  // the reader's language
  int highlight = -1;     // a member's rank in the communicator (the trace keys 0-9, A): its row outlined; -1 none
  const job::CommTally* stragglers = nullptr;  // the communicator's tally (arrival.h), said under the grid; null: not said
  int rows = 16;          // members drawn at most
  int blocks = 16;        // blocks per buffer drawn at most
  int values = 6;         // values per block at most
};

// The figure, or an error where the call has no member.
Result<NcclFigure> callFigure(const job::CapturedCall& call, const CallFigureParams& p);

// One element as the figure writes it: ints as integers, floats to 4
// significant digits ("1.5", "-0.0001235", "3.403e+38"), f16/bf16 through
// engine/dtype.h, pairs (MPI_2INT, MPI_DOUBLE_INT) as "v|i", other types'
// bytes in hex. `number`: its value for the colour (NaN where it has none).
std::string capturedValue(tap::DType dtype, std::uint32_t dtypeSize, const std::uint8_t* bytes, double* number = nullptr);

// "256 B", "1.5 KiB", "4 MiB".
std::string byteSize(std::uint64_t bytes);

}  // namespace collviz::ui
