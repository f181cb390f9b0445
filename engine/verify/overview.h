// Overviews of big blocks (BufferView::overview), made after verification so
// the window can draw a block too big to list as a strip of bins.
#pragma once

#include "engine/verify/provenance.h"
#include "engine/snapshot.h"
#include "engine/verify/verify.h"

namespace collviz {

inline constexpr int kOverviewBins = 64;
// Blocks of more elements than this get an overview (the window lists the
// values of smaller ones).
inline constexpr int64_t kOverviewFrom = 64;

// Fill `overview` of every buffer of `step` whose blocks are big, reading
// `bytes` (the workers' shared memory). A bin is ok when its elements equal
// the pattern's closed form (or, where the pattern has none, when its block
// had no bad element). `prov` as for labelAndVerify. A block that `closed`
// (labelAndVerify's) marks equal to the closed form is read only where its
// bins' extremes lie (closedFormExtremes), the others element by element.
// False when `ctl.stop` ended it early.
bool addOverviews(StepResult& step, const Pattern& p, const Provenance& prov,
                  const StepBytes& bytes, const CheckControl& ctl, const ClosedBlocks* closed);

}  // namespace collviz
