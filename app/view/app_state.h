// What the viewer has chosen: the op (or the decomposition), the spec, the
// backend and how to look at it. Panels read and change it; AppUi notices
// changes and asks the engine to run.
#pragma once

#include <array>
#include <string>

#include "app/view/diagram_layout.h"
#include "app/view/hosts_field.h"
#include "engine/group/placement.h"
#include "engine/spec.h"

namespace collviz::ui {

// The op list: 0..7 are the article's ops in order, 8 the decomposition.
inline constexpr int kEntryCount = kOpCount + 1;
inline constexpr int kDecompositionEntry = kOpCount;

struct AppState {
  int entry = 0;  // 01 Broadcast: a lecture starts at the top
  OpSpec spec;    // ranks, elems, dtype, redop, root (op follows `entry`)
  BackendKind backend = BackendKind::automatic;
  GpuSharing gpu_sharing = GpuSharing::host_id;  // NCCL ranks sharing a GPU
  HostsField hosts;  // the Hosts field (issue 33): empty, this machine
  ViewSettings view;
  float ui_scale = 1.0f;  // fonts and widgets; 2.0 reads from the back of a hall
  bool fullscreen = false;
  bool show_help = false;
  bool show_bandwidth = false;  // the Bandwidth panel (B)
  bool show_compare = false;    // the Compare window (C): two algorithms side by side
  bool panels_hidden = false;   // H: only the diagram (and a lecture's caption)
  // Screenshots (F12): the status block under the figure (export --status),
  // and trimmed to the figure plus a margin (export --crop).
  bool shot_status = false;
  bool shot_crop = false;
  // The "break it" menu: COLLVIZ_FAULT for the next runs, "" for none
  // (starts as the environment's, engine/worker/fault.h).
  std::string fault;
  // The algorithm view (view.algo): its rounds for the current spec (0: the
  // op's own diagram), and play (round_play.h).
  int rounds = 0;
  // The algorithm chosen for each entry of the list (empty: native): a
  // choice stays with its op (keys.h, openEntry), so ring chosen for
  // all-reduce does not follow the viewer to broadcast.
  std::array<std::string, kEntryCount> algo_of_entry;
  bool playing = false;
  float play_speed = 2.0f;  // rounds per second
  float play_clock = 0;     // rounds played into the current move or rest

  Program program() const {
    return entry == kDecompositionEntry ? Program::all_reduce_decomposed : Program::single;
  }
  // The spec to run: the decomposition runs as all_reduce.
  OpSpec runSpec() const {
    OpSpec s = spec;
    s.op = entry == kDecompositionEntry ? Op::all_reduce : static_cast<Op>(entry);
    if (s.root >= s.ranks) s.root = s.ranks - 1;
    return s;
  }
};

}  // namespace collviz::ui
