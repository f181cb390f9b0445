// The algorithm view's layout: one round of an algorithm as a Scene. Two
// columns, every rank's working buffer before and after the round, the
// round's messages as arrows from the sender's row to the receiver's (the
// slots sent outlined on the left, the slots written marked on the right),
// and beside them the link view and the traffic so far (link_view.cpp).
// While playing (ViewSettings::tween > 0) each message's blocks travel
// along its arrow. Pure.
#pragma once

#include "app/view/diagram_layout.h"
#include "app/view/round_model.h"

namespace collviz::ui {

// Is `view` the algorithm view for this program and op?
bool isRoundView(Program program, Op op, const ViewSettings& view);

// The two columns as a DiagramModel (tooltips, trace of a row's values): the
// buffers before and after the round, from the snapshot's steps.
DiagramModel roundDiagramModel(const RoundModel& rm);

// What is drawn where; `dm` is roundDiagramModel(rm).
Scene layoutRounds(const RoundModel& rm, const DiagramModel& dm, const ViewSettings& view,
                   const Theme& theme, const LayoutParams& params);

// The colour a message's arrow takes: its block's letter when the slots it
// sends hold one source letter, the neutral flow colour otherwise (a Σ).
Rgba arrowColor(const Theme& th, const RoundModel& rm, const RoundArrow& a);

// Trace per round: is slot `slot` of `rank`'s buffer lit when tracing
// `trace_rank` (by source: holds its data; by destination: in its row, or
// holds data that has reached it)? Everything is lit without a trace.
bool roundSlotLit(const RoundModel& rm, const std::vector<std::vector<BlockLabel>>& state,
                  const ViewSettings& view, int rank, int slot);
bool roundArrowLit(const RoundModel& rm, const ViewSettings& view, const RoundArrow& a);

}  // namespace collviz::ui
