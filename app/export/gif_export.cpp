#include "app/export/gif_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/group/memory_budget.h"

#include "app/cli/cli_common.h"
#include "app/files/gif_writer.h"
#include "app/view/round_layout.h"

namespace collviz::ui {

// Every round of the view's algorithm, from the start to the last, with
// `tween` frames of the blocks in flight before each round. Frames are
// encoded as they are drawn (the palette from the first and last, which hold
// every colour the others show): only the compressed file is held.
Result<std::vector<uint8_t>> renderRoundsGif(DiagramImage& image, ExportView v, int tween) {
  const int rounds = algoRounds(v.view.algo, v.spec);
  auto at = [&](int k, int i) {
    v.view.round = k;
    v.view.tween = i > 0 ? float(i) / float(tween + 1) : 0.0f;
    return image.renderPng(v);
  };
  auto first = at(0, 0), last = at(rounds, 0);
  if (!first) return first.error();
  if (!last) return last.error();
  GifEncoder gif;
  if (Status st = gif.begin(first->width, first->height,
                            gifPalette({&*first, &*last}, themeColours(makeTheme(v.theme))));
      !st)
    return st.error();
  for (int k = 0; k <= rounds; ++k) {
    if (g_interrupted) return Error{say("interrupted")};
    for (int i = 1; k > 0 && i <= tween; ++i) {
      auto img = at(k, i);
      if (!img) return img.error();
      if (Status st = gif.add(*img, std::max(3, 60 / (tween + 1))); !st) return st.error();
    }
    auto img = at(k, 0);
    if (!img) return img.error();
    if (Status st = gif.add(*img, k == rounds ? 250 : 120); !st) return st.error();
  }
  return gif.finish();
}

// A GIF's frames (the start, each round and --tween frames before each)
// times its pixels, estimated before anything runs: at most kMaxGifPixels
// in all (the time to draw them, and the file: frames are encoded as they
// are drawn, so the compressed file, at most about a byte a pixel, is what
// is held) and within the memory this process can get. A refusal names the
// --tween and the --size that fit.
constexpr double kMaxGifPixels = 100.0 * 1000 * 1000;

Status checkGifSize(int width, int height, float scale, int tween, int rounds, const std::string& sizeText,
                    const std::string& scaleText, int minSide) {
  const double frame = double(width) * height;
  const double frames = 1.0 + double(rounds) * (tween + 1);
  double cap = kMaxGifPixels;
  Text what = say("at most {0} megapixels in all frames", int(kMaxGifPixels / 1e6));
  if (auto lim = memoryLimit(); lim && double(lim->bytes) / 2.0 < cap) {
    cap = double(lim->bytes) / 2.0;
    what = say("what fits in {0} ({1} megapixels at 2 bytes each)", lim->what, int(cap / 1e6));
  }
  if (frames * frame <= cap) return {};
  const long long fit_tween = std::llround(std::floor((cap / frame - 1.0) / std::max(1, rounds))) - 1;
  const double side = std::sqrt(cap / frames / (double(width) / height));
  Text fits;
  if (fit_tween >= 0) fits = say("--tween {0} fits at this size", std::min<long long>(fit_tween, 30));
  if (side * (double(width) / height) >= minSide && side >= minSide) {
    const Text size = say("--size {0}x{1} at --tween {2}", int(side * width / height / scale),
                          int(side / scale), tween);
    fits = fits.empty() ? size : say("{0}, or {1}", fits, size);
  }
  if (fits.empty()) fits = say("fewer ranks (fewer rounds)");
  char mp[32];
  std::snprintf(mp, sizeof mp, "%.0f", frames * frame / 1e6);
  return Error{say("--format gif: {0} rounds with --tween {1} make {2} frames of {3}x{4} pixels ({5} megapixels); "
                   "allowed: {6}; {7} (--size {8}, --scale {9})",
                   rounds, tween, (long long)frames, width, height, mp, what, fits, sizeText, scaleText)};
}

}  // namespace collviz::ui
