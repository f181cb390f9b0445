// DiagramView: one diagram (model + view settings + theme) drawn at a size
// and scale. Layout is recomputed and uploaded to the GPU only when its
// inputs change (snapshot seq, spec, view settings, size, fonts). The tiles,
// flows and nodes go through DiagramRenderer's shaders via an ImDrawList
// callback; text is drawn with ImGui's fonts on top, so the same code draws
// into an offscreen ImGui frame (export) as into the window.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "app/view/diagram_layout.h"
#include "app/view/diagram_model.h"
#include "app/view/value_fetch.h"
#include "app/gl/diagram_renderer.h"
#include "app/gl/fonts.h"

namespace collviz::ui {

struct DiagramInputs {
  Program program = Program::single;
  OpSpec spec;
  std::shared_ptr<const Snapshot> snapshot;  // may be null or not match
  ViewSettings view;
  Theme theme;         // made once per frame or export (makeTheme)
  float scale = 1.0f;  // the UI scale (view.zoom multiplies the fitted scale)
  Vec2 size;           // pixels
  // Fit the diagram to `size` (app/view/fit.h); off: laid out at `scale`
  // times zoom as it comes.
  bool fit = true;
  float fitted = 0;  // the scale the fit already chose for these inputs (0: fit now)
  // Paint the theme's background first. Off in the window, whose background
  // is already that colour (every full-size layer costs on llvmpipe); on
  // when drawing into an empty target (export).
  bool fill_background = false;
  // The window's cache: this view already drawn into a framebuffer of
  // `size` (DiagramImage::cached). Non-zero: copied to the screen in one
  // blit when the scene fits, instead of drawing tiles, flows and text
  // again every frame.
  unsigned cached_framebuffer = 0;
  // Exact values under the mouse in a big block's tooltip (null: none).
  ValueFetcher* values = nullptr;
  // Hovering a block shows its tooltip; off on a live lecture's projected
  // slide (the audience sees no popup where the mouse rests).
  bool tooltips = true;
};

// The scene `in` lays out to with `fonts`' text measure: what Draw shows, and
// what the SVG export writes (app/files/svg_writer.h), so the two stay in step.
Scene layoutScene(const DiagramInputs& in, const Fonts& fonts, DiagramModel* model = nullptr);
// The scale the fit picks for `in` (zoom not applied; `in.fitted` ignored).
float fittedScale(const DiagramInputs& in, const Fonts& fonts);
// A scene's text, with ImGui's fonts, with the scene's origin at `origin`.
void drawSceneTexts(ImDrawList* dl, ImVec2 origin, const std::vector<TextItem>& texts,
                    const Fonts& fonts);

class DiagramView {
 public:
  Status init() { return renderer_.init(); }
  void destroy() {
    renderer_.destroy();
    have_key_ = false;  // upload again after the next init
  }
  // Draw at the current ImGui cursor, taking `in.size`; shows tooltips for
  // hovered blocks. Returns the scene (for counts such as bad blocks).
  const Scene& Draw(const DiagramInputs& in, const Fonts& fonts);
  const DiagramModel& model() const { return model_; }
  int rebuilds() const { return rebuilds_; }
  int uploads() const { return renderer_.uploads(); }

 private:
  struct Key {
    uint64_t seq = 0;
    const Snapshot* snap = nullptr;
    Program program = Program::single;
    OpSpec spec;
    ViewSettings view;
    ThemeKind theme = ThemeKind::light;  // a theme's colours follow its kind
    float scale = 0, w = 0, h = 0, font_scale = 0;
    bool unicode = false, fit = true;
    bool operator==(const Key&) const = default;
  };
  static void renderCallback(const ImDrawList* list, const ImDrawCmd* cmd);
  static void overlayCallback(const ImDrawList* list, const ImDrawCmd* cmd);
  static void blitCallback(const ImDrawList* list, const ImDrawCmd* cmd);
  // local_x: the mouse's x in the diagram (which bin of a block's strip).
  void drawTooltip(int hit, const Fonts& fonts, float local_x) const;

  DiagramRenderer renderer_;
  DiagramModel model_;
  ValueFetcher* values_ = nullptr;  // the last Draw's
  Scene scene_;
  Key key_;
  bool have_key_ = false;
  Vec2 origin_;  // where the scene is drawn this frame (screen pixels)
  unsigned blit_from_ = 0;  // the cache's framebuffer this frame
  Vec2 blit_size_;
  int rebuilds_ = 0;
  // The fit's choice for the key without the play's tween: playing lays out
  // every frame, but fits once.
  Key fit_key_;
  bool have_fit_ = false;
  float fitted_ = 0;
};

}  // namespace collviz::ui
