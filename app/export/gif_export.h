// `collviz export --format gif`: an algorithm's rounds as one animation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/gl/diagram_image.h"

namespace collviz::ui {

// Every round of the view's algorithm, from the start to the last, with
// `tween` frames of the blocks in flight before each round.
Result<std::vector<uint8_t>> renderRoundsGif(DiagramImage& image, ExportView v, int tween);

// Whether a GIF of `rounds` rounds with `tween` frames between them at
// width x height pixels may be made (export_command checks it before
// anything runs); the refusal names the --tween and --size that fit
// (`sizeText`, `scaleText`: the options as given; `minSide`: the smallest side allowed).
Status checkGifSize(int width, int height, float scale, int tween, int rounds, const std::string& sizeText,
                    const std::string& scaleText, int minSide);

}  // namespace collviz::ui
