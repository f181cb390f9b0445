// The spec controls (ranks, elements per block, dtype, reduce op, root,
// backend) and the view controls (UI scale, zoom, theme). Changing a spec
// control changes AppState; AppUi then asks the engine to run again.
#pragma once

#include "app/view/app_state.h"
#include "app/view/runs.h"
#include "engine/group/devices.h"

namespace collviz::ui {

struct ControlsPanel {
  // devices: null until the probe has answered.
  void Draw(AppState& state, const DeviceReport* devices);
  // The background runs' switch, and whether every one of `keys` is cached.
  void DrawPrefetch(Runs& runs, const std::vector<RunKey>& keys, bool lecture);

 private:
  // The Hosts and agent fields as typed: into AppState when left or on
  // Enter; from AppState when it changes otherwise (a lecture's hosts).
  void hostsFields(AppState& s);
  char hosts_buf_[512] = {};
  char agent_buf_[512] = {};
  HostsField synced_;
};

}  // namespace collviz::ui
