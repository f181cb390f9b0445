// Animated GIF (giflib): frames of one size share one 256-colour palette.
// The palette holds the `exact` colours that appear in the frames first, so
// the article's block colours, fills and text come out exactly; the other
// slots go to the most frequent remaining colours (anti-aliased edges), and
// every pixel takes its nearest palette colour. Deterministic: the same
// frames give the same bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "app/export/image_file.h"
#include "app/view/palette.h"
#include "engine/status.h"

namespace collviz::ui {

struct GifFrame {
  Image image;
  int delay_cs = 100;  // hundredths of a second on screen
};

// 0xRRGGBB of every colour a theme draws with (backgrounds, text, borders,
// each letter's colour and tile fill): the colours a GIF keeps exact.
std::vector<uint32_t> themeColours(const Theme& theme);

// The whole file, looping forever. Frames must all have the first's size.
Result<std::vector<uint8_t>> encodeGif(const std::vector<GifFrame>& frames,
                                       const std::vector<uint32_t>& exact);

}  // namespace collviz::ui
