// A collective of a real job opened as collviz's own op (the job window's
// click): job::toOpSpec's op, ranks, dtype and elements set as the viewer's
// choice, the algorithm back to the backend's own, so the app runs it for
// real on the local backend as it runs any op. Pure.
#pragma once

#include "app/view/app_state.h"
#include "engine/job/job.h"

namespace collviz::ui {

struct JobCallOpened {
  bool ok = false;
  Said what;  // ok: "opened all_to_all #20537 of … as all_to_all, 4 ranks, BFloat16, 1024 elements a block"; else why not
  std::vector<Said> changes;  // what differs from the call (capped, shown as)
};

// `caps`: the local backend's (null: not known yet); a dtype it lacks runs
// as the nearest it has (bf16 as f16, else f32), ranks and elements within
// its limits, each said in `changes`.
JobCallOpened openJobCall(AppState& s, const job::Job& j, int call, const BackendCaps* caps = nullptr);

}  // namespace collviz::ui
