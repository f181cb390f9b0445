// Exported images: PNG encoding (stb_image_write). Files are written with
// writeFileAtomic (safe_file.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/files/safe_file.h"

namespace collviz::ui {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // top row first
};

// PNG bytes; deterministic (no time or text chunks).
std::vector<uint8_t> encodePng(const Image& img);

}  // namespace collviz::ui
