#include "app/files/image_file.h"

#include <stb_image_write.h>  // the implementation is in libstb

namespace collviz::ui {

namespace {
void append(void* ctx, void* data, int size) {
  auto* out = static_cast<std::vector<uint8_t>*>(ctx);
  const auto* p = static_cast<const uint8_t*>(data);
  out->insert(out->end(), p, p + size);
}
}  // namespace

std::vector<uint8_t> encodePng(const Image& img) {
  std::vector<uint8_t> out;
  stbi_write_png_to_func(append, &out, img.width, img.height, 3, img.rgb.data(), img.width * 3);
  return out;
}

}  // namespace collviz::ui
