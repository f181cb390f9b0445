// `collviz export --format gif`: an algorithm's rounds as one animation.
#pragma once

#include <cstdint>
#include <vector>

#include "app/gl/diagram_image.h"

namespace collviz::ui {

// Every round of the view's algorithm, from the start to the last, with
// `tween` frames of the blocks in flight before each round.
Result<std::vector<uint8_t>> renderRoundsGif(DiagramImage& image, ExportView v, int tween);

}  // namespace collviz::ui
