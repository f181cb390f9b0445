// The spec controls (ranks, elements per block, dtype, reduce op, root,
// backend) and the view controls (UI scale, zoom, theme). Changing a spec
// control changes AppState; AppUi then asks the engine to run again.
#pragma once

#include "app/view/app_state.h"
#include "engine/devices.h"

namespace collviz::ui {

struct ControlsPanel {
  // devices: null until the probe has answered.
  void Draw(AppState& state, const DeviceReport* devices);
};

}  // namespace collviz::ui
