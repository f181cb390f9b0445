// Lecture keys, as pure state changes (tested without a window):
//   ←/→ previous/next op   ↑/↓, PgUp/PgDn step (a clicker's keys)
//   Space run again   0-9 trace that rank   A trace all   F fullscreen
//   +/− zoom   T light/dark theme   B bandwidth panel   ? help
//   Home/End first/last   H hide the panels (grid only)
//   G, Enter: a lecture's "go to step" (no effect outside a lecture)
//   L next algorithm; in the algorithm view ↑/↓ Home/End move through
//   rounds and P plays them   D trace direction (what reaches Rk / where
//   Rk's data goes)
#pragma once

#include "app/view/app_state.h"

namespace collviz::ui {

enum class LectureKey : uint8_t {
  prev_op, next_op, step_back, step_forward, rerun, trace_rank, trace_all,
  fullscreen, zoom_in, zoom_out, theme, help, bandwidth,
  first, last, hide_panels, go_to, confirm,
  play, next_algo,  // the algorithm view (app/view/round_play.h)
  cancel,           // Esc: end the shown op's run in flight, close the help
  trace_direction,  // D: what reaches the traced rank / where its data goes
};

// Apply a key; `rank` for trace_rank. Returns true when the op should run
// again even though the spec did not change (Space).
bool applyLectureKey(AppState& s, LectureKey key, int rank = 0);

// Go to entry `entry` of the op list (wrapped): the algorithm chosen for the
// op left stays with it, the one chosen before for this op (else native)
// comes back, from round 0.
void openEntry(AppState& s, int entry);

// Map a typed character to a key ('f' -> fullscreen, '3' -> trace_rank 3).
// Returns false for characters that are not lecture keys.
bool keyForChar(unsigned int c, LectureKey* key, int* rank);

}  // namespace collviz::ui
