// Writing exported files: PNG encoding (stb_image_write) and an atomic write
// (a temporary file in the same directory, then rename), so a failure
// leaves nothing half-written behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/status.h"

namespace collviz::ui {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // top row first
};

// PNG bytes; deterministic (no time or text chunks).
std::vector<uint8_t> encodePng(const Image& img);
// Write `bytes` to `path` through `path`'s directory: all or nothing.
Status writeFileAtomic(const std::string& path, const void* bytes, size_t size);
inline Status writeFileAtomic(const std::string& path, const std::string& text) {
  return writeFileAtomic(path, text.data(), text.size());
}
// Can a file be created in `path`'s directory? (Checked before running.)
Status checkWritable(const std::string& path);

}  // namespace collviz::ui
