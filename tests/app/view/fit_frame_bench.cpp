// Frame time of the fitted layout while rounds play (CPU side): ring
// all-reduce at N = 16, laid out at the scale the fit chose, with the blocks
// in flight moving every frame, at 3840x2160 against 1920x1080, alternating
// so both see the same machine. Also the fit itself (once per change of
// size, scale or content). Prints figures; asserts nothing.
//   usage: fit_frame_bench [frames]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "app/view/fit.h"
#include "app/view/round_layout.h"
#include "app/view/round_model.h"

using namespace collviz;
using namespace collviz::ui;

namespace {
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  const int frames = argc > 1 ? std::max(10, std::atoi(argv[1])) : 300;
  OpSpec spec;
  spec.op = Op::all_reduce;
  spec.ranks = 16;
  const Theme theme = makeTheme(ThemeKind::light);
  const RoundModel rm = buildRoundModel(spec, "ring", 5, nullptr);
  const DiagramModel dm = roundDiagramModel(rm);
  struct Size {
    Vec2 px;
    float u = 0;
    std::vector<double> frame_us, fit_us;
    std::size_t items = 0;
  } sizes[2];
  sizes[0].px = {1920, 1080};
  sizes[1].px = {3840, 2160};
  ViewSettings view;
  view.algo = "ring";
  view.round = 5;
  auto layoutAt = [&](Vec2 px, float u, float tween) {
    ViewSettings v = view;
    v.tween = tween;
    return layoutRounds(rm, dm, v, theme, {px, u, nullptr});
  };
  for (int rep = 0; rep < 5; ++rep)
    for (Size& s : sizes) {
      const auto t0 = Clock::now();
      s.u = fitScale([&](float u) { return layoutAt(s.px, u, 0); }, {s.px, 1.0f, nullptr});
      s.fit_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  for (int f = 0; f < frames; ++f) {
    const float tween = 0.05f + 0.9f * float(f % 60) / 60.0f;  // the blocks on their way
    for (Size& s : sizes) {
      const auto t0 = Clock::now();
      const Scene scene = layoutAt(s.px, s.u, tween);
      s.frame_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      s.items = scene.tiles.size() + scene.texts.size() + scene.curves.size();
    }
  }
  std::printf("fitted layout, ring all_reduce N=16 round 5 playing, %d frames each, CPU side\n", frames);
  for (const Size& s : sizes)
    std::printf("  %4.0fx%-4.0f  fitted scale %.2f  %zu items  frame %8.1f us (median)  fit %8.1f us (once per change)\n",
                s.px.x, s.px.y, s.u, s.items, median(s.frame_us), median(s.fit_us));
  std::printf("  ratio 3840x2160 / 1920x1080: frame %.2f (goal <= 1.2), fit %.2f\n",
              median(sizes[1].frame_us) / median(sizes[0].frame_us), median(sizes[1].fit_us) / median(sizes[0].fit_us));
  return 0;
}
