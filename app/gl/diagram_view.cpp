#include "app/gl/diagram_view.h"

#include "app/view/tile_tip.h"
#include "app/gl/wrapped_text.h"
#include "app/lang/lang.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>

#include "app/view/fit.h"
#include "app/view/round_layout.h"
#include "app/view/trace.h"

namespace collviz::ui {

namespace {
ImU32 col(Rgba c) { return packAbgr(c); }

// The strip's bin under the mouse: its elements, smallest and largest value,
// and whether they checked out.
void drawBinTooltip(const BlockOverview& o, const HitBox& hit, float local_x) {
  const int bins = o.bins();
  if (bins == 0 || hit.rect.w <= 0) return;
  const int k = std::clamp(int((local_x - hit.rect.x) / hit.rect.w * float(bins)), 0, bins - 1);
  ImGui::Separator();
  ImGui::Text("%s", trf("bin {0} of {1}: elements {2}–{3}",
                        {std::to_string(k + 1), std::to_string(bins), std::to_string(o.binFirst(k)),
                         std::to_string(o.binFirst(k + 1) - 1)}).c_str());
  char range[64];
  std::snprintf(range, sizeof range, "%g … %g", double(o.lo[k]), double(o.hi[k]));
  ImGui::Text("%s", trf("values from {0}", {range}).c_str());
  if (o.ok[k]) ImGui::TextDisabled("%s", tr("every element decoded as expected"));
  else ImGui::TextColored(ImVec4(0.85f, 0.15f, 0.2f, 1), "%s", tr("elements here did not decode as expected"));
}
}  // namespace

namespace {
// The inputs' models, built once; `at(u, view)` lays them out at scale u.
struct Laid {
  bool rounds = false;
  float cjk_em_per_px = 0;  // the fonts' (LayoutParams::cjk_em_per_px)
  RoundModel rm;
  DiagramModel model;
  TraceSets trace;
  Laid(const DiagramInputs& in) : rounds(isRoundView(in.program, in.spec.op, in.view)) {
    if (rounds) {
      rm = buildRoundModel(in.spec, in.view.algo, in.view.round, in.snapshot);
      model = roundDiagramModel(rm);
    } else {
      model = buildModel(in.program, in.spec, in.snapshot);
      trace = computeTrace(model, in.view.trace_rank, in.view.trace_mode);
    }
  }
  Scene at(const DiagramInputs& in, const MeasureText& measure, float u, const ViewSettings& view) const {
    const LayoutParams p{in.size, u, measure, in.scale, cjk_em_per_px};
    return rounds ? layoutRounds(rm, model, view, in.theme, p) : layoutDiagram(model, trace, view, in.theme, p);
  }
};

// A CJK glyph's em per pixel of text size: DejaVu's em per size (as the
// SVG and PDF set it) times the CJK font's factor; 0 without a CJK font.
float cjkEmPerPx(const Fonts& fonts) {
  const CjkScale& c = fonts.cjk_scale[int(TextStyle::regular)];
  return fonts.unicode && c.measured ? 2048.0f / 2384.0f * c.em : 0.0f;
}

MeasureText measureOf(const Fonts& fonts) {
  return [&fonts](const std::string& t, TextStyle s, float size) { return fonts.measure(t, s, size); };
}

float fitOf(const Laid& laid, const DiagramInputs& in, const MeasureText& measure) {
  ViewSettings still = in.view;
  still.tween = 0;  // blocks in flight do not change where things go
  still.zoom = 1;
  return fitScale([&](float u) { return laid.at(in, measure, u, still); }, {in.size, in.scale, measure});
}
}  // namespace

float fittedScale(const DiagramInputs& in, const Fonts& fonts) {
  Laid laid(in);
  laid.cjk_em_per_px = cjkEmPerPx(fonts);
  return fitOf(laid, in, measureOf(fonts));
}

Scene layoutScene(const DiagramInputs& in, const Fonts& fonts, DiagramModel* model_out) {
  const MeasureText measure = measureOf(fonts);
  Laid laid(in);
  laid.cjk_em_per_px = cjkEmPerPx(fonts);
  float u = in.scale * in.view.zoom;
  if (in.fit) u = (in.fitted > 0 ? in.fitted : fitOf(laid, in, measure)) * in.view.zoom;
  Scene scene = laid.at(in, measure, u, in.view);
  if (model_out) *model_out = std::move(laid.model);
  return scene;
}

void drawSceneTexts(ImDrawList* dl, ImVec2 o, const std::vector<TextItem>& texts, const Fonts& fonts) {
  for (const TextItem& t : texts) {
    ImFont* f = fonts.font(t.style);
    std::string s = fonts.display(t.text);
    ImVec2 sz = f->CalcTextSizeA(t.size, FLT_MAX, 0.0f, s.c_str(), s.c_str() + s.size());
    ImVec2 pos(o.x + t.anchor.x - sz.x * t.align_x, o.y + t.anchor.y - sz.y * t.align_y);
    dl->AddText(f, t.size, ImVec2(float(int(pos.x + 0.5f)), float(int(pos.y + 0.5f))), col(t.color),
                s.c_str(), s.c_str() + s.size());
  }
}

void DiagramView::renderCallback(const ImDrawList*, const ImDrawCmd* cmd) {
  const auto* self = static_cast<const DiagramView*>(cmd->UserCallbackData);
  const ImGuiIO& io = ImGui::GetIO();
  // Clip to the panel, like ImGui's own draw commands (y flipped for GL).
  const ImVec4& c = cmd->ClipRect;
  float sx = io.DisplayFramebufferScale.x, sy = io.DisplayFramebufferScale.y;
  float fb_h = io.DisplaySize.y * sy;
  glEnable(GL_SCISSOR_TEST);
  glScissor(GLint(c.x * sx), GLint(fb_h - c.w * sy), GLsizei((c.z - c.x) * sx),
            GLsizei((c.w - c.y) * sy));
  self->renderer_.draw(self->origin_, {io.DisplaySize.x, io.DisplaySize.y}, cmd->UserCallback == &overlayCallback);
}

void DiagramView::overlayCallback(const ImDrawList* list, const ImDrawCmd* cmd) { renderCallback(list, cmd); }

// A straight copy from the cache: on a software rasterizer far cheaper than
// drawing a textured quad (no sampling, no blending).
void DiagramView::blitCallback(const ImDrawList*, const ImDrawCmd* cmd) {
  const auto* self = static_cast<const DiagramView*>(cmd->UserCallbackData);
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec4& c = cmd->ClipRect;
  float sx = io.DisplayFramebufferScale.x, sy = io.DisplayFramebufferScale.y;
  float fb_h = io.DisplaySize.y * sy;
  GLint draw_fbo = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fbo);
  glEnable(GL_SCISSOR_TEST);
  glScissor(GLint(c.x * sx), GLint(fb_h - c.w * sy), GLsizei((c.z - c.x) * sx),
            GLsizei((c.w - c.y) * sy));
  const GLint w = GLint(self->blit_size_.x), h = GLint(self->blit_size_.y);
  const GLint x0 = GLint(self->origin_.x * sx), y0 = GLint(fb_h - (self->origin_.y + self->blit_size_.y) * sy);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, self->blit_from_);
  glBlitFramebuffer(0, 0, w, h, x0, y0, x0 + GLint(w * sx), y0 + GLint(h * sy), GL_COLOR_BUFFER_BIT,
                    GL_NEAREST);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(draw_fbo));
}

const Scene& DiagramView::Draw(const DiagramInputs& in, const Fonts& fonts) {
  Key key{in.snapshot ? in.snapshot->seq : 0, in.snapshot.get(), in.program, in.spec, in.view,
          in.theme.kind, in.scale, in.size.x, in.size.y, fonts.scale, fonts.unicode, in.fit};
  const Theme& theme = in.theme;
  if (!have_key_ || !(key == key_)) {
    // Compute once, draw every frame: only here do layout and upload run.
    Key still = key;
    still.view.tween = 0;
    still.view.zoom = 1;
    DiagramInputs fitted_in = in;
    if (in.fit && in.fitted == 0) {
      if (!have_fit_ || !(still == fit_key_)) {
        fitted_ = fittedScale(in, fonts);
        fit_key_ = still;
        have_fit_ = true;
      }
      fitted_in.fitted = fitted_;
    }
    scene_ = layoutScene(fitted_in, fonts, &model_);
    renderer_.upload(scene_);
    key_ = key;
    have_key_ = true;
    ++rebuilds_;
  }

  ImVec2 o = ImGui::GetCursorScreenPos();
  origin_ = {o.x, o.y};
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (in.fill_background)
    dl->AddRectFilled(o, ImVec2(o.x + std::max(scene_.width, in.size.x), o.y + std::max(scene_.height, in.size.y)),
                    col(theme.background));
  const bool fits = scene_.width <= in.size.x + 0.5f && scene_.height <= in.size.y + 0.5f;
  if (in.cached_framebuffer && fits) {
    blit_from_ = in.cached_framebuffer;
    blit_size_ = in.size;
    dl->AddCallback(&DiagramView::blitCallback, this);
    dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  } else {
    // The scene, its texts, then the overlay (blocks in flight) and its texts.
    const std::size_t split = std::min(scene_.overlay_texts, scene_.texts.size());
    dl->AddCallback(&DiagramView::renderCallback, this);
    dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
    drawSceneTexts(dl, o, {scene_.texts.begin(), scene_.texts.begin() + long(split)}, fonts);
    if (scene_.overlay_tiles < scene_.tiles.size() || split < scene_.texts.size()) {
      dl->AddCallback(&DiagramView::overlayCallback, this);
      dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
      drawSceneTexts(dl, o, {scene_.texts.begin() + long(split), scene_.texts.end()}, fonts);
    }
  }
  // Reserve the space (scrolls when zoomed past the panel).
  ImGui::InvisibleButton("##diagram", ImVec2(std::max(scene_.width, in.size.x), std::max(scene_.height, in.size.y)));
  values_ = in.values;
  if (in.tooltips && ImGui::IsItemHovered()) {
    ImVec2 m = ImGui::GetMousePos();
    Vec2 local{m.x - o.x, m.y - o.y};
    for (int i = 0; i < int(scene_.hits.size()); ++i) {
      if (scene_.hits[i].rect.contains(local)) {
        drawTooltip(i, fonts, local.x);
        break;
      }
    }
  }
  return scene_;
}

void DiagramView::drawTooltip(int hit_index, const Fonts& fonts, float local_x) const {
  const HitBox& hit = scene_.hits[hit_index];
  const ColumnModel& column = model_.columns[hit.column];
  const TileTip tip = tileTip(model_, hit);
  ImGui::BeginTooltip();
  ImGui::PushFont(fonts.bold);
  ImGui::TextUnformatted(fonts.display(tip.head).c_str());
  ImGui::PopFont();
  ImGui::Text("%s", tip.who.c_str());
  ImGui::TextDisabled("%s", fonts.display(tip.source).c_str());
  if (!tip.bad.empty()) ImGui::TextColored(ImVec4(0.85f, 0.15f, 0.2f, 1), "%s", tip.bad.c_str());
  if (!tip.values.empty()) WrappedText(fonts.display(tip.values), ImGui::GetFontSize() * 30);
  if (!column.expected)
    if (const BufferView* b = model_.buffer(hit.column, hit.row); b && hit.block < int(b->overview.size())) {
      drawBinTooltip(b->overview[hit.block], hit, local_x);
      // The exact values where the mouse is (finer as the view zooms in),
      // from the snapshot or the ranks' memory.
      if (values_ && hit.rect.w > 0) {
        const int64_t at = elementAt(model_.spec.elems, (local_x - hit.rect.x) / hit.rect.w);
        const std::string exact = values_->line(model_, hit.column, hit.row, hit.block, at, 8);
        if (!exact.empty()) WrappedText(fonts.display(exact), ImGui::GetFontSize() * 30);
      }
    }
  ImGui::EndTooltip();
}

}  // namespace collviz::ui
