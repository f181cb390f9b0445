#include "app/files/gif_writer.h"

#include <gif_lib.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

namespace collviz::ui {

namespace {

uint32_t hexOf(Rgba c) {
  auto ch = [](float v) { return uint32_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return ch(c.r) << 16 | ch(c.g) << 8 | ch(c.b);
}

uint32_t pixel(const Image& img, std::size_t i) {
  return uint32_t(img.rgb[3 * i]) << 16 | uint32_t(img.rgb[3 * i + 1]) << 8 | img.rgb[3 * i + 2];
}

std::vector<uint32_t> choosePalette(const std::vector<const Image*>& images, const std::vector<uint32_t>& exact) {
  std::unordered_map<uint32_t, uint64_t> counts;
  for (const Image* im : images)
    for (std::size_t i = 0; i < std::size_t(im->width) * im->height; ++i) ++counts[pixel(*im, i)];
  std::vector<uint32_t> palette;
  for (uint32_t c : exact)
    if (counts.count(c) && std::find(palette.begin(), palette.end(), c) == palette.end() && palette.size() < 256)
      palette.push_back(c);
  std::vector<std::pair<uint64_t, uint32_t>> rest;
  for (auto [c, n] : counts)
    if (std::find(palette.begin(), palette.end(), c) == palette.end()) rest.push_back({n, c});
  std::sort(rest.begin(), rest.end(), [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (std::size_t i = 0; i < rest.size() && palette.size() < 256; ++i) palette.push_back(rest[i].second);
  if (palette.empty()) palette.push_back(0);
  while (palette.size() & (palette.size() - 1)) palette.push_back(palette.back());  // giflib: a power of two
  return palette;
}

int nearest(const std::vector<uint32_t>& palette, uint32_t c) {
  int best = 0;
  long best_d = -1;
  for (int i = 0; i < int(palette.size()); ++i) {
    const long dr = long(palette[i] >> 16 & 255) - long(c >> 16 & 255);
    const long dg = long(palette[i] >> 8 & 255) - long(c >> 8 & 255);
    const long db = long(palette[i] & 255) - long(c & 255);
    const long d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
    if (best_d < 0 || d < best_d) best_d = d, best = i;
  }
  return best;
}

int writeToVector(GifFileType* gif, const GifByteType* data, int size) {
  auto* out = static_cast<std::vector<uint8_t>*>(gif->UserData);
  out->insert(out->end(), data, data + size);
  return size;
}

}  // namespace

std::vector<uint32_t> themeColours(const Theme& t) {
  std::vector<uint32_t> out;
  for (Rgba c : {t.background, t.text, t.muted_text, t.root_text, t.row_box, t.row_border, t.neutral_fill,
                 t.neutral_border, t.flow_neutral, t.bad})
    out.push_back(hexOf(c));
  for (int i = 0; i < kPaletteSize; ++i) {
    out.push_back(hexOf(letterColor(i)));
    out.push_back(hexOf(tileFill(t, i)));
  }
  return out;
}

std::vector<uint32_t> gifPalette(const std::vector<const Image*>& samples, const std::vector<uint32_t>& exact) {
  return choosePalette(samples, exact);
}

Result<std::vector<uint8_t>> encodeGif(const std::vector<GifFrame>& frames, const std::vector<uint32_t>& exact) {
  if (frames.empty()) return Error{"a GIF needs at least one frame"};
  std::vector<const Image*> all;
  for (const GifFrame& f : frames) all.push_back(&f.image);
  GifEncoder enc;
  if (Status st = enc.begin(frames[0].image.width, frames[0].image.height, choosePalette(all, exact)); !st)
    return st.error();
  for (const GifFrame& f : frames)
    if (Status st = enc.add(f.image, f.delay_cs); !st) return st.error();
  return enc.finish();
}

GifEncoder::~GifEncoder() {
  int err = 0;
  if (gif_) EGifCloseFile(static_cast<GifFileType*>(gif_), &err);
}

Error GifEncoder::failed(const char* what) {
  auto* gif = static_cast<GifFileType*>(gif_);
  std::string msg = std::string("giflib: ") + what + ": " + GifErrorString(gif ? gif->Error : 0);
  int err = 0;
  if (gif) EGifCloseFile(gif, &err);
  gif_ = nullptr;
  return Error{msg};
}

Status GifEncoder::begin(int w, int h, std::vector<uint32_t> palette) {
  width_ = w;
  height_ = h;
  palette_ = std::move(palette);
  std::vector<GifColorType> colours(palette_.size());
  for (std::size_t i = 0; i < palette_.size(); ++i)
    colours[i] = {GifByteType(palette_[i] >> 16), GifByteType(palette_[i] >> 8 & 255), GifByteType(palette_[i] & 255)};
  int err = 0;
  GifFileType* gif = EGifOpen(&out_, writeToVector, &err);
  if (!gif) return Error{std::string("giflib: ") + GifErrorString(err)};
  gif_ = gif;
  EGifSetGifVersion(gif, true);
  ColorMapObject* map = GifMakeMapObject(int(colours.size()), colours.data());
  const int screen = EGifPutScreenDesc(gif, w, h, 8, 0, map);
  GifFreeMapObject(map);
  if (screen != GIF_OK) return failed("screen");
  // Loop forever (the NETSCAPE2.0 application extension).
  const GifByteType loop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
      EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") != GIF_OK || EGifPutExtensionBlock(gif, 3, loop) != GIF_OK ||
      EGifPutExtensionTrailer(gif) != GIF_OK)
    return failed("loop extension");
  return Status::Ok();
}

Status GifEncoder::add(const Image& image, int delay_cs) {
  auto* gif = static_cast<GifFileType*>(gif_);
  if (!gif) return Error{"giflib: the GIF was not begun"};
  if (image.width != width_ || image.height != height_) return Error{"GIF frames differ in size"};
  GraphicsControlBlock gcb{};
  gcb.DisposalMode = DISPOSE_DO_NOT;
  gcb.DelayTime = delay_cs;
  gcb.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType ext[4];
  const std::size_t len = EGifGCBToExtension(&gcb, ext);
  if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, int(len), ext) != GIF_OK) return failed("frame delay");
  if (EGifPutImageDesc(gif, 0, 0, width_, height_, false, nullptr) != GIF_OK) return failed("frame");
  std::vector<GifPixelType> line(std::size_t(width_), 0);
  for (int y = 0; y < height_; ++y) {
    for (int x = 0; x < width_; ++x) {
      const uint32_t c = pixel(image, std::size_t(y) * width_ + x);
      auto it = index_.find(c);
      if (it == index_.end()) it = index_.emplace(c, nearest(palette_, c)).first;
      line[std::size_t(x)] = GifPixelType(it->second);
    }
    if (EGifPutLine(gif, line.data(), width_) != GIF_OK) return failed("pixels");
  }
  return Status::Ok();
}

Result<std::vector<uint8_t>> GifEncoder::finish() {
  auto* gif = static_cast<GifFileType*>(gif_);
  if (!gif) return Error{"giflib: the GIF was not begun"};
  gif_ = nullptr;
  int err = 0;
  if (EGifCloseFile(gif, &err) != GIF_OK) return Error{std::string("giflib: closing: ") + GifErrorString(err)};
  return std::move(out_);
}

}  // namespace collviz::ui
