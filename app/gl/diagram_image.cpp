#include "app/gl/diagram_image.h"

#include "app/view/tile_tip.h"

#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "app/files/svg_writer.h"
#include "app/lang/lang.h"
#include "app/gl/style.h"
#include "app/view/round_layout.h"

namespace collviz::ui {

namespace {
// Makes `ctx` current for a scope and puts the caller's back.
struct ContextScope {
  ImGuiContext* prev;
  explicit ContextScope(ImGuiContext* ctx) : prev(ImGui::GetCurrentContext()) {
    ImGui::SetCurrentContext(ctx);
  }
  ~ContextScope() { ImGui::SetCurrentContext(prev); }
};

// How text sits in an SVG or PDF with these fonts: baselines, em, and the
// CJK runs' family and size (SvgParams, PdfParams).
template <class Params>
void textParams(const Fonts& fonts, Params* p) {
  if (!fonts.unicode) p->em_per_size = 1.0f;  // ImGui's own font: no metrics to match
  for (int s = 0; s < 3; ++s) {
    ImFont* f = fonts.font(TextStyle(s));
    if (f && f->FontSize > 0) p->ascent[s] = f->Ascent / f->FontSize;
    p->cjk_em[s] = fonts.cjk_scale[s].em;
  }
  if (!fonts.cjk_family.empty()) p->cjk_family = fonts.cjk_family;
}

float fontScaleOf(const ExportView& v) { return v.font_scale > 0 ? v.font_scale : v.scale; }

// A file's status block: the figure's notes, and with `status` the
// machine's lines that concern the figure (status_text.h).
StatusLineParams statusParams(const ExportView& v, const Fonts& fonts) {
  StatusLineParams p;
  p.shown = v.snapshot.get();
  p.with_time = v.status_time;
  p.font_notice = fonts.notice;
  p.machine = v.status;
  p.figure = true;
  p.rounds = isRoundView(v.program, v.spec.op, v.view);
  p.scale = v.scale;
  // Notes wrap to the image's width: the height and the lines agree.
  p.x = 18 * v.scale;
  p.max_width = float(v.width) - 2 * p.x;
  p.measure = [&fonts](const std::string& t, TextStyle s, float size) { return fonts.measure(t, s, size); };
  return p;
}

CaptionParams captionParams(const ExportView& v, const Fonts& fonts) {
  CaptionParams p;
  p.text = v.caption;
  p.scale = v.caption_scale > 0 ? v.caption_scale : v.scale;
  p.x = 18 * p.scale;
  p.width = float(v.width) - 2 * p.x;
  p.measure = [&fonts](const std::string& t, TextStyle s, float size) { return fonts.measure(t, s, size); };
  if (!v.counter.empty()) {  // at the right of the last line, as the live lecture sets it
    p.counter = v.counter;
    p.counter_right = float(v.width) - p.x;
    p.width -= captionCounterWidth(p) + 18 * p.scale;
  }
  return p;
}
}  // namespace

float exportStatusHeight(const ExportView& v, const Fonts& fonts) {
  if (!v.status && !v.notes) return 0;
  return statusBlockHeight(statusLineCount(statusParams(v, fonts)), v.scale);
}

Status DiagramImage::init(bool gl) {
  if (ctx_) return Status::Ok();
  ImGuiContext* prev = ImGui::GetCurrentContext();
  ctx_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(ctx_);
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::GetIO().LogFilename = nullptr;
  gl_ = gl;
  Status s;
  if (gl) {
    ImGui_ImplOpenGL3_Init("#version 330");
    s = view_.init();
  }
  ImGui::SetCurrentContext(prev);
  if (!s) destroy();
  return s;
}

void DiagramImage::destroy() {
  if (!ctx_) return;
  {
    ContextScope scope(ctx_);
    if (gl_) {
      view_.destroy();
      fbo_.destroy();
      ImGui_ImplOpenGL3_Shutdown();
    }
  }
  ImGui::DestroyContext(ctx_);  // keeps the caller's context current
  ctx_ = nullptr;
  gl_ = false;
  fonts_ = Fonts{};
}

void DiagramImage::ensureFonts(float scale, const std::string& glyphs) {
  if (fonts_.scale == scale && fonts_.regular && fonts_.glyph_text == glyphs) return;
  fonts_.load(scale, glyphs);
  if (gl_) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
}

FigureText DiagramImage::figureText(const ExportView& v, const Theme& theme) const {
  FigureTextParams p;
  p.caption = captionParams(v, fonts_);
  p.status = statusParams(v, fonts_);
  p.with_status = v.status || v.notes;
  p.caption_drawn = v.caption_drawn;
  return FigureText(std::move(p), theme);
}

DiagramInputs DiagramImage::inputs(const ExportView& v, const Theme& theme, float below_h) const {
  ViewSettings view = v.view;
  view.theme = v.theme;
  DiagramInputs in{v.program, v.spec, v.snapshot, view, theme, v.scale,
                   {float(v.width), std::max(1.0f, float(v.height) - below_h)}};
  in.fill_background = true;
  return in;
}

void DiagramImage::checkFit(const ExportView& v, const Scene& scene, float diagram_h) {
  warning_.clear();
  if (scene.width > v.width + 0.5f || scene.height > diagram_h + 0.5f) {
    const int need_w = int(std::ceil(scene.width));
    const int need_h = int(std::ceil(scene.height + (v.height - diagram_h)));
    // Beyond the largest --size (export_command.cpp's kMaxSide) a larger
    // size cannot help: only a smaller scale can (issue 38: 34223 px wide
    // was told to use a larger --size).
    constexpr int kLargestSide = 32768;
    warning_ = need_w > kLargestSide || need_h > kLargestSide
                   ? render(say("the diagram needs {0}x{1} pixels and is cut off at {2}x{3}; an image beyond "
                                "{4}x{4} pixels (--size x --scale) is refused: use a smaller --scale with a larger --size",
                                need_w, need_h, v.width, v.height, kLargestSide))
                   : render(say("the diagram needs {0}x{1} pixels and is cut off at {2}x{3}; use a larger --size or "
                                "a smaller --scale",
                                need_w, need_h, v.width, v.height));
  }
}

float DiagramImage::belowTop(const ExportView& v, const Scene& scene, float status_h) const {
  const float top = float(v.height) - status_h;
  return v.crop ? std::min(top, std::ceil(scene.height)) : top;
}

DiagramImage::Box DiagramImage::cropBox(const ExportView& v, const Scene& scene,
                                        const std::vector<TextItem>& below) const {
  if (!v.crop) return {0, 0, v.width, v.height};
  float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
  auto add = [&](float x, float y) {
    x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
  };
  for (const TileInstance& t : scene.tiles) {
    if (t.fill.a <= 0 && (t.border.a <= 0 || t.border_width <= 0)) continue;  // draws nothing
    add(t.rect.x, t.rect.y), add(t.rect.x + t.rect.w, t.rect.y + t.rect.h);
  }
  for (const CurveInstance& c : scene.curves)  // the control points hold the curve
    for (Vec2 q : {c.p0, c.p1, c.p2, c.p3}) add(q.x - c.width, q.y - c.width), add(q.x + c.width, q.y + c.width);
  for (const Triangle& t : scene.triangles)
    for (Vec2 q : {t.a, t.b, t.c}) add(q.x, q.y);
  auto text = [&](const TextItem& t) {
    if (t.text.empty()) return;
    const float w = fonts_.measure(t.text, t.style, t.size);
    const float x = t.anchor.x - t.align_x * w, y = t.anchor.y - t.align_y * t.size;
    add(x, y), add(x + w, y + t.size);
  };
  for (const TextItem& t : scene.texts) text(t);
  for (const TextItem& t : below) text(t);
  if (x1 < x0) return {0, 0, v.width, v.height};  // nothing drawn: the whole image
  const float m = kCropMargin * v.scale;
  const int bx0 = std::max(0, int(std::floor(x0 - m))), by0 = std::max(0, int(std::floor(y0 - m)));
  const int bx1 = std::min(v.width, int(std::ceil(x1 + m))), by1 = std::min(v.height, int(std::ceil(y1 + m)));
  if (bx1 - bx0 < 1 || by1 - by0 < 1) return {0, 0, v.width, v.height};
  return {bx0, by0, bx1 - bx0, by1 - by0};
}

namespace {
bool sameView(const ExportView& a, const ExportView& b) {
  auto seq = [](const ExportView& v) { return v.snapshot ? v.snapshot->seq : 0; };
  return a.program == b.program && a.spec == b.spec && a.snapshot == b.snapshot && seq(a) == seq(b) &&
         a.view == b.view && a.theme == b.theme && a.width == b.width && a.height == b.height &&
         a.scale == b.scale && a.font_scale == b.font_scale && a.status == b.status &&
         a.status_time == b.status_time && a.caption == b.caption && a.caption_drawn == b.caption_drawn &&
         a.caption_scale == b.caption_scale && a.counter == b.counter &&
         a.glyphs == b.glyphs && a.notes == b.notes && a.crop == b.crop;
}
}  // namespace

Result<Image> DiagramImage::renderPng(const ExportView& v) {
  cache_valid_ = false;  // fbo_ is about to hold this view
  Box box;
  if (Status s = draw(v, &box); !s) return s.error();
  GLint prev_fbo = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev_fbo);
  Image img{v.width, v.height, fbo_.readRgb()};
  glBindFramebuffer(GL_FRAMEBUFFER, GLuint(prev_fbo));
  if (box.w == img.width && box.h == img.height) return img;
  Image cut{box.w, box.h, std::vector<uint8_t>(std::size_t(box.w) * box.h * 3)};
  for (int y = 0; y < box.h; ++y)
    std::copy_n(img.rgb.data() + (std::size_t(box.y + y) * img.width + box.x) * 3, std::size_t(box.w) * 3,
                cut.rgb.data() + std::size_t(y) * box.w * 3);
  return cut;
}

const Offscreen* DiagramImage::cached(const ExportView& v) {
  if (cache_valid_ && sameView(cached_, v)) return &fbo_;
  cache_valid_ = false;
  if (!draw(v)) return nullptr;
  cached_ = v;
  cache_valid_ = true;
  return &fbo_;
}

Status DiagramImage::draw(const ExportView& v, Box* crop) {
  if (!ctx_ || !gl_) return Error{"DiagramImage: no GL renderer (init(true) first)"};
  if (Status s = fbo_.resize(v.width, v.height); !s) return s;
  ContextScope scope(ctx_);
  // Text is measured the same at any atlas scale; it is drawn sharp when the
  // atlas is built near the scale the fit picks (in steps of 1/4).
  if (!fonts_.regular || fonts_.glyph_text != v.glyphs) ensureFonts(fontScaleOf(v), v.glyphs);
  const Theme theme = makeTheme(v.theme);
  figure_ = figureText(v, theme);  // the texts under the diagram: built once, placed once
  const float status_h = figure_.height();
  DiagramInputs in = inputs(v, theme, status_h);
  float font_scale = fontScaleOf(v);
  if (in.fit) {
    in.fitted = fittedScale(in, fonts_);
    if (v.font_scale == 0) font_scale = std::max(v.scale, std::round(in.fitted * in.view.zoom * 4) / 4);
  }
  ensureFonts(font_scale, v.glyphs);
  applyStyle(theme, font_scale);

  GLint prev_fbo = 0, prev_viewport[4];
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev_fbo);
  glGetIntegerv(GL_VIEWPORT, prev_viewport);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(v.width), float(v.height));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover, no tooltip
  // Two frames: ImGui settles a new window's layout in its first. The scene
  // is the same in both (DiagramView lays out only when its inputs change).
  std::vector<TextItem> below;
  for (int pass = 0; pass < 2; ++pass) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::Begin("collviz export", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoInputs);
    const Scene& scene = view_.Draw(in, fonts_);
    if (pass == 1) checkFit(v, scene, in.size.y);
    if (status_h > 0) {
      ImDrawList* dl = ImGui::GetWindowDrawList();
      const float top = belowTop(v, scene, status_h);
      dl->AddRectFilled(ImVec2(0, top), io.DisplaySize, packAbgr(theme.background));
      if (pass == 0) below = figure_.place(top, scene.bad_blocks);
      drawSceneTexts(dl, ImVec2(0, 0), below, fonts_);
    }
    if (crop && pass == 1) *crop = cropBox(v, scene, below);
    ImGui::End();
    ImGui::PopStyleVar(2);
    ImGui::Render();
  }
  fbo_.bind();
  glDisable(GL_SCISSOR_TEST);
  glClearColor(theme.background.r, theme.background.g, theme.background.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  glBindFramebuffer(GL_FRAMEBUFFER, GLuint(prev_fbo));
  glViewport(prev_viewport[0], prev_viewport[1], prev_viewport[2], prev_viewport[3]);
  return Status::Ok();
}

Result<PdfPage> DiagramImage::pdfPage(const ExportView& v) {
  ExportView bare = v;
  bare.caption_drawn = false;
  auto img = renderPng(bare);
  if (!img) return img.error();
  PdfPage page{std::move(*img), {}};
  page.texts = figure_.captionAt(float(v.height) - figure_.height());  // what draw() built and left out
  return page;
}

PdfParams DiagramImage::pdfParams(int width, int height, ThemeKind kind) {
  PdfParams p;
  p.width = width;
  p.height = height;
  p.background = makeTheme(kind).background;
  ContextScope scope(ctx_);
  textParams(fonts_, &p);
  return p;
}

MeasureText DiagramImage::measure(const std::string& glyphs) {
  {
    ContextScope scope(ctx_);
    if (!fonts_.regular || fonts_.glyph_text != glyphs) ensureFonts(1.0f, glyphs);
  }
  return [this](const std::string& t, TextStyle s, float size) { return fonts_.measure(t, s, size); };
}

Result<Image> DiagramImage::renderTextSlide(int width, int height, ThemeKind kind,
                                            const std::vector<TextItem>& texts, const std::string& glyphs) {
  if (!ctx_ || !gl_) return Error{"DiagramImage: no GL renderer (init(true) first)"};
  cache_valid_ = false;
  if (Status s = fbo_.resize(width, height); !s) return s.error();
  ContextScope scope(ctx_);
  float largest = 1;
  for (const TextItem& t : texts) largest = std::max(largest, t.size);
  ensureFonts(std::max(1.0f, std::round(largest / 27.0f * 4) / 4), glyphs);  // the heading font is 27 px at 1x
  const Theme theme = makeTheme(kind);
  GLint prev_fbo = 0, prev_viewport[4];
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev_fbo);
  glGetIntegerv(GL_VIEWPORT, prev_viewport);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(width), float(height));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  drawSceneTexts(ImGui::GetForegroundDrawList(), ImVec2(0, 0), texts, fonts_);
  ImGui::Render();
  fbo_.bind();
  glDisable(GL_SCISSOR_TEST);
  glClearColor(theme.background.r, theme.background.g, theme.background.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  Image img{width, height, fbo_.readRgb()};
  glBindFramebuffer(GL_FRAMEBUFFER, GLuint(prev_fbo));
  glViewport(prev_viewport[0], prev_viewport[1], prev_viewport[2], prev_viewport[3]);
  return img;
}

std::string DiagramImage::renderTextSlideSvg(int width, int height, ThemeKind kind,
                                             const std::vector<TextItem>& texts, const std::string& glyphs,
                                             const std::string& title) {
  if (!ctx_) return "";
  ContextScope scope(ctx_);
  if (!fonts_.regular || fonts_.glyph_text != glyphs) ensureFonts(1.0f, glyphs);
  SvgParams p;
  p.width = width;
  p.height = height;
  p.background = makeTheme(kind).background;
  textParams(fonts_, &p);
  p.title = title;
  return sceneToSvg(Scene{}, texts, p);
}

std::string DiagramImage::renderSvg(const ExportView& v, std::vector<HtmlTip>* tips, std::string* desc) {
  if (!ctx_) return "";
  ContextScope scope(ctx_);
  ensureFonts(fontScaleOf(v), v.glyphs);
  const Theme theme = makeTheme(v.theme);
  const FigureText figure = figureText(v, theme);
  const float status_h = figure.height();
  const DiagramInputs in = inputs(v, theme, status_h);
  DiagramModel model;
  const Scene scene = layoutScene(in, fonts_, &model);
  checkFit(v, scene, in.size.y);
  if (tips)
    for (const HitBox& hit : scene.hits) tips->push_back({hit.rect, tileTipText(tileTip(model, hit))});
  if (desc) *desc = figureDesc(model);
  SvgParams p;
  p.width = v.width;
  p.height = v.height;
  p.background = theme.background;
  textParams(fonts_, &p);
  Heading h = headingFor(v.program, v.spec.op);
  p.title = h.number + " " + h.title + " — " + h.phrase;
  const std::vector<TextItem> below =
      status_h > 0 ? figure.place(belowTop(v, scene, status_h), scene.bad_blocks) : std::vector<TextItem>{};
  const Box box = cropBox(v, scene, below);
  p.view_x = box.x, p.view_y = box.y, p.width = box.w, p.height = box.h;
  return sceneToSvg(scene, below, p);
}

}  // namespace collviz::ui
