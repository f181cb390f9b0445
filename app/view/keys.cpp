#include "app/view/keys.h"

#include "app/view/round_play.h"

#include <algorithm>

namespace collviz::ui {

void openEntry(AppState& s, int entry) {
  entry = (entry % kEntryCount + kEntryCount) % kEntryCount;
  if (entry != s.entry) {
    s.algo_of_entry[std::size_t(s.entry)] = s.view.algo == "native" ? std::string() : s.view.algo;
    const std::string& kept = s.algo_of_entry[std::size_t(entry)];
    s.view.algo = kept.empty() ? "native" : kept;
    s.view.round = 0;
    s.view.tween = 0;
    s.playing = false;
  }
  s.entry = entry;
}

namespace {
void selectEntry(AppState& s, int entry) {
  openEntry(s, entry);
  // Arriving at the decomposition starts at its input (↓ then walks its
  // states; opened at its last, the first ↓ left it).
  s.view.stage = s.entry == kDecompositionEntry ? 0 : 2;
}
}  // namespace

bool applyLectureKey(AppState& s, LectureKey key, int rank) {
  if (applyRoundKey(s, key)) return false;
  switch (key) {
    case LectureKey::prev_op:
      selectEntry(s, s.entry - 1);
      break;
    case LectureKey::next_op:
      selectEntry(s, s.entry + 1);
      break;
    case LectureKey::step_forward:
      // Walk the decomposition's states first, then on to the next op.
      if (s.entry == kDecompositionEntry && s.view.stage < 2) ++s.view.stage;
      else selectEntry(s, s.entry + 1);
      break;
    case LectureKey::step_back:
      if (s.entry == kDecompositionEntry && s.view.stage > 0) {
        --s.view.stage;
      } else {
        selectEntry(s, s.entry - 1);
        s.view.stage = 2;  // stepping back arrives at its end
      }
      break;
    case LectureKey::rerun:
      return true;
    case LectureKey::trace_rank:
      if (rank >= 0 && rank < s.spec.ranks) s.view.trace_rank = rank;
      break;
    case LectureKey::trace_all:
      s.view.trace_rank = -1;
      break;
    case LectureKey::fullscreen:
      s.fullscreen = !s.fullscreen;
      break;
    case LectureKey::zoom_in:
      s.view.zoom = std::min(3.0f, s.view.zoom * 1.15f);
      break;
    case LectureKey::zoom_out:
      s.view.zoom = std::max(0.5f, s.view.zoom / 1.15f);
      break;
    case LectureKey::theme:
      s.view.theme = s.view.theme == ThemeKind::light ? ThemeKind::dark : ThemeKind::light;
      break;
    case LectureKey::help:
      s.show_help = !s.show_help;
      break;
    case LectureKey::bandwidth:
      s.show_bandwidth = !s.show_bandwidth;
      break;
    case LectureKey::first:
      selectEntry(s, 0);
      break;
    case LectureKey::last:
      selectEntry(s, kDecompositionEntry);
      break;
    case LectureKey::hide_panels:
      s.panels_hidden = !s.panels_hidden;
      break;
    case LectureKey::go_to:
    case LectureKey::confirm:
    case LectureKey::play:
    case LectureKey::next_algo:
      break;  // a lecture's jump (lecture/player.h)
    case LectureKey::cancel:
      s.show_help = false;
      break;  // the run itself is the app's (AppUi)
    case LectureKey::trace_direction:
      s.view.trace_mode = s.view.trace_mode == TraceMode::reaches ? TraceMode::goes : TraceMode::reaches;
      break;
  }
  return false;
}

bool keyForChar(unsigned int c, LectureKey* key, int* rank) {
  if (c >= '0' && c <= '9') {
    *key = LectureKey::trace_rank;
    *rank = int(c - '0');
    return true;
  }
  switch (c) {
    case 'a': case 'A': *key = LectureKey::trace_all; return true;
    case 'f': case 'F': *key = LectureKey::fullscreen; return true;
    case '+': case '=': *key = LectureKey::zoom_in; return true;
    case '-': case '_': case 0x2212: *key = LectureKey::zoom_out; return true;
    case 't': case 'T': *key = LectureKey::theme; return true;
    case '?': *key = LectureKey::help; return true;
    case 'h': case 'H': *key = LectureKey::hide_panels; return true;
    case 'g': case 'G': *key = LectureKey::go_to; return true;
    case 'b': case 'B': *key = LectureKey::bandwidth; return true;
    case 'p': case 'P': *key = LectureKey::play; return true;
    case 'l': case 'L': *key = LectureKey::next_algo; return true;
    case 'd': case 'D': *key = LectureKey::trace_direction; return true;
    default: return false;
  }
}

}  // namespace collviz::ui
