#include "app/export/gif_writer.h"

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

std::vector<uint32_t> choosePalette(const std::vector<GifFrame>& frames, const std::vector<uint32_t>& exact) {
  std::unordered_map<uint32_t, uint64_t> counts;
  for (const GifFrame& f : frames)
    for (std::size_t i = 0; i < std::size_t(f.image.width) * f.image.height; ++i) ++counts[pixel(f.image, i)];
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

Result<std::vector<uint8_t>> encodeGif(const std::vector<GifFrame>& frames, const std::vector<uint32_t>& exact) {
  if (frames.empty()) return Error{"a GIF needs at least one frame"};
  const int w = frames[0].image.width, h = frames[0].image.height;
  for (const GifFrame& f : frames)
    if (f.image.width != w || f.image.height != h) return Error{"GIF frames differ in size"};
  const std::vector<uint32_t> palette = choosePalette(frames, exact);
  std::vector<GifColorType> colours(palette.size());
  for (std::size_t i = 0; i < palette.size(); ++i)
    colours[i] = {GifByteType(palette[i] >> 16), GifByteType(palette[i] >> 8 & 255), GifByteType(palette[i] & 255)};

  std::vector<uint8_t> out;
  int err = 0;
  GifFileType* gif = EGifOpen(&out, writeToVector, &err);
  if (!gif) return Error{std::string("giflib: ") + GifErrorString(err)};
  auto fail = [&](const char* what) -> Error {
    std::string msg = std::string("giflib: ") + what + ": " + GifErrorString(gif->Error);
    EGifCloseFile(gif, &err);
    return Error{msg};
  };
  EGifSetGifVersion(gif, true);
  ColorMapObject* map = GifMakeMapObject(int(colours.size()), colours.data());
  const int screen = EGifPutScreenDesc(gif, w, h, 8, 0, map);
  GifFreeMapObject(map);
  if (screen != GIF_OK) return fail("screen");
  // Loop forever (the NETSCAPE2.0 application extension).
  const GifByteType loop[] = {1, 0, 0};
  if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
      EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") != GIF_OK || EGifPutExtensionBlock(gif, 3, loop) != GIF_OK ||
      EGifPutExtensionTrailer(gif) != GIF_OK)
    return fail("loop extension");
  std::unordered_map<uint32_t, int> index;
  std::vector<GifPixelType> line(std::size_t(w), 0);
  for (const GifFrame& f : frames) {
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.DelayTime = f.delay_cs;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    const std::size_t len = EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, int(len), ext) != GIF_OK) return fail("frame delay");
    if (EGifPutImageDesc(gif, 0, 0, w, h, false, nullptr) != GIF_OK) return fail("frame");
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const uint32_t c = pixel(f.image, std::size_t(y) * w + x);
        auto it = index.find(c);
        if (it == index.end()) it = index.emplace(c, nearest(palette, c)).first;
        line[std::size_t(x)] = GifPixelType(it->second);
      }
      if (EGifPutLine(gif, line.data(), w) != GIF_OK) return fail("pixels");
    }
  }
  if (EGifCloseFile(gif, &err) != GIF_OK) return Error{std::string("giflib: closing: ") + GifErrorString(err)};
  return out;
}

}  // namespace collviz::ui
