// The status block of an image (PNG, SVG, screenshot, slide) as scene text,
// laid out as TextItems so both exporters draw it from the same data.
//
// A figure carries the op, not the machine: by default a file gets only the
// lines about the figure itself (labels partly from the oracle, a result
// that failed its check, an engine error). The machine's block (backend and
// version, devices, the verdict, the backend's notes) comes with `machine`;
// in a file (`figure`) it holds only what concerns the figure shown: no
// transport, no engine notice (another backend's absence), and only the
// backend notes for the op, dtype and reduce op drawn; otherwise (the
// window's view) the notes of the op, dtype and reduce op on screen and the
// machine's own (notesForView). The op's time varies
// from run to run, so it is left out unless asked for.
#pragma once

#include <string>
#include <vector>

#include "app/view/diagram_layout.h"
#include "app/view/palette.h"
#include "app/view/scene.h"
#include "engine/engine.h"
#include "engine/snapshot.h"

namespace collviz::ui {

struct StatusLineParams {
  const Snapshot* shown = nullptr;  // the result drawn; null: "not yet run"
  int bad_blocks = 0;
  bool with_time = false;
  bool machine = true;  // the backend line, its notes and the font notice
  bool figure = false;  // drawn into a file: only what concerns the figure
  bool rounds = false;  // an algorithm's rounds (the op's own call's notes do not apply)
  std::string font_notice;  // fonts missing (drawn in the error colour)
  float scale = 1.0f;       // pixels per layout unit
  float x = 0, y = 0;       // top-left of the first line
  float max_width = 0;      // a longer note wraps (up to 3 lines), the backend's line is cut with "…" (0: never)
  MeasureText measure;      // null: estimate; the line count needs the same width and measure
};

// Lines the status takes for `p` (for sizing before layout).
int statusLineCount(const StatusLineParams& p);
float statusLineHeight(float scale);  // one line, pixels
std::vector<TextItem> statusLineTexts(const StatusLineParams& p, const Theme& theme);

// The two halves of statusLineTexts, for a caller that builds the block
// once and places it later (an exported figure: figure_text.h).
// statusLines: the lines' texts in the reader's language, the notes wrapped
// to `p.max_width` (what asks lang/ and wraps); as many as statusLineCount.
// placeStatusLines: measured across, cut with "…" where too long, and set
// from `p.x`, `p.y` down.
struct StatusSegment {
  std::string text;
  Rgba colour;
  TextStyle style = TextStyle::regular;
  bool keep = false;  // never cut: the width is kept free for it
};
using StatusLine = std::vector<StatusSegment>;
std::vector<StatusLine> statusLines(const StatusLineParams& p, const Theme& theme);
std::vector<TextItem> placeStatusLines(const std::vector<StatusLine>& lines, const StatusLineParams& p);

// The backend's notes ("key: text; key: text", keys such as
// "reduce_scatter", "gather/scatter/all_to_all", "avg", "bf16") that concern
// `spec`: an op key only when it names an op drawn (the decomposition draws
// reduce_scatter and all_gather and compares with all_reduce; an algorithm's
// rounds use no op call), a dtype or reduce op key only when it is the one
// drawn (the reduce op only for an op that reduces); a fault always; other
// notes (transport details, GPU sharing) are the machine's and are dropped.
// Filtered on the items' English keys; the kept ones in the reader's
// language, joined by "; " (中文 "；").
std::string notesForFigure(const Said& notes, Program program, const OpSpec& spec, bool rounds);

// The window's notes: as notesForFigure for the op, dtype and reduce op on
// screen (a broadcast shows no reduce_scatter or avg note), but the
// machine's own notes (transport details, GPU sharing, a fault) stay, since
// the window shows the machine. Every note stays in `collviz devices` and in
// the status line's tooltip.
std::string notesForView(const Said& notes, Program program, const OpSpec& spec, bool rounds);

// The line that explains the tiles marked "*" (labels partly from the
// oracle, because the pattern does not carry that part for this spec), or
// "" when every label of `s` was read from the bytes.
// The verdict: ✓ only when nothing at all is wrong (verified, no wrong
// element, no marked block, no difference from the native op or all_reduce);
// the count the ✗ shows otherwise.
bool allRight(const Snapshot& s, int bad_blocks);
int64_t wrongCount(const Snapshot& s);

std::string oracleLabelNote(const Snapshot* s);

// "12.3 µs", "4.56 ms", "1.20 s"
std::string formatMicros(double us);

// What a run in flight is doing, for the status bar: "checking 42% · step 2
// of 3 · 3.2 s" (the phase's fraction where known).
std::string progressText(const Progress& p, double elapsed_s);

// Where the ranks ran when on several hosts: "R0–R1 on a · R2–R3 on b"
// (rank_hosts.h); "" on one host or without a result.
std::string hostsNote(const Snapshot* s);

// The line for a run that Engine::cancel ended ("" when `s` was not).
std::string cancelledNote(const Snapshot* s);

}  // namespace collviz::ui
