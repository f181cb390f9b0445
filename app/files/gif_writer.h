// Animated GIF (giflib): frames of one size share one 256-colour palette.
// The palette holds the `exact` colours that appear in the frames first, so
// the article's block colours, fills and text come out exactly; the other
// slots go to the most frequent remaining colours (anti-aliased edges), and
// every pixel takes its nearest palette colour. Deterministic: the same
// frames give the same bytes.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "app/files/image_file.h"
#include "app/view/palette.h"
#include "engine/text.h"

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

// The palette for frames like `samples` (the `exact` colours found in them
// first, then their most frequent others), a power of two of at most 256.
std::vector<uint32_t> gifPalette(const std::vector<const Image*>& samples,
                                 const std::vector<uint32_t>& exact);

// Frames encoded one at a time as they are drawn, so only the compressed
// file is held, never every frame's pixels: begin with the palette, add each
// frame (of the first's size), finish for the file's bytes.
class GifEncoder {
 public:
  GifEncoder() = default;
  ~GifEncoder();
  GifEncoder(const GifEncoder&) = delete;
  GifEncoder& operator=(const GifEncoder&) = delete;
  Status begin(int width, int height, std::vector<uint32_t> palette);
  Status add(const Image& image, int delay_cs);
  Result<std::vector<uint8_t>> finish();

 private:
  Error failed(const char* what);
  void* gif_ = nullptr;  // GifFileType
  int width_ = 0, height_ = 0;
  std::vector<uint32_t> palette_;
  std::vector<uint8_t> out_;
  std::unordered_map<uint32_t, int> index_;
};

}  // namespace collviz::ui
