#include "app/export/gif_export.h"

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

}  // namespace collviz::ui
