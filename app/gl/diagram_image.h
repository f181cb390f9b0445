// DiagramImage: one view of one diagram as a picture, drawn by the window's
// own code (DiagramView: DiagramRenderer's shaders plus ImGui's text) into
// an offscreen framebuffer, or written as SVG from the same scene. It keeps
// an ImGui context of its own (fonts at the export's scale), so the window
// can take a screenshot between two of its frames and the command line can
// export without any window on screen.
#pragma once

#include <imgui.h>

#include <memory>
#include <string>

#include "app/files/html_writer.h"
#include "app/files/image_file.h"
#include "app/files/pdf_writer.h"
#include "app/gl/diagram_view.h"
#include "app/gl/fonts.h"
#include "app/gl/offscreen.h"
#include "app/view/figure_text.h"

namespace collviz::ui {

struct ExportView {
  Program program = Program::single;
  OpSpec spec;
  std::shared_ptr<const Snapshot> snapshot;
  ViewSettings view;
  ThemeKind theme = ThemeKind::light;
  int width = 0, height = 0;  // image pixels
  float scale = 1.0f;         // the UI scale; the diagram is fitted to the size (view.zoom on top)
  float font_scale = 0;       // scale the font atlas is built for; 0: near the fitted scale
  bool status = false;        // the machine's status block under the diagram (--status)
  bool status_time = false;   // with the op's time (varies run to run)
  std::string caption;        // a lecture step's caption, large, under the diagram
  std::string glyphs;         // text beyond Latin the fonts must hold (Chinese)
  // The figure's own notes under it (a result that failed its check, labels
  // partly from the oracle), with or without `status`; off: the diagram alone.
  bool notes = true;
  bool crop = false;  // trimmed to what is drawn plus kCropMargin (x scale) on each side
  bool caption_drawn = true;  // false: its place kept empty (a PDF page sets it as text)
  // A deck's slide as the live lecture shows it: the caption's scale (0:
  // `scale`) and the step counter at its right ("3 / 15"; "": none).
  float caption_scale = 0;
  std::string counter{};
};

inline constexpr float kCropMargin = 16.0f;  // layout units

// Height of the status block under the diagram (0 without one): an image of
// a diagram `h` pixels tall with its status block is h + this tall.
float exportStatusHeight(const ExportView& v, const Fonts& fonts);

class DiagramImage {
 public:
  DiagramImage() = default;
  ~DiagramImage() { destroy(); }
  DiagramImage(const DiagramImage&) = delete;
  DiagramImage& operator=(const DiagramImage&) = delete;

  // An ImGui context and fonts; with `gl`, also the GL drawing (needs a
  // current OpenGL 3.3 core context). The caller's ImGui context stays current.
  Status init(bool gl);
  void destroy();
  Result<Image> renderPng(const ExportView& v);  // needs init(true)
  // The view drawn into a framebuffer (the window's cache: compute once,
  // draw every frame); drawn again only when `v` differs from the last
  // call. Null on failure. Needs init(true).
  const Offscreen* cached(const ExportView& v);
  // With `tips`: each block's hover text and place; with `desc`: the figure in words.
  std::string renderSvg(const ExportView& v, std::vector<HtmlTip>* tips = nullptr, std::string* desc = nullptr);
  // A slide of text only (a deck's title slide), drawn with the same fonts.
  Result<Image> renderTextSlide(int width, int height, ThemeKind theme, const std::vector<TextItem>& texts,
                                const std::string& glyphs);
  std::string renderTextSlideSvg(int width, int height, ThemeKind theme, const std::vector<TextItem>& texts,
                                 const std::string& glyphs, const std::string& title);
  // A PDF page of the view: its picture without the caption, and the
  // caption as text where the picture left it room.
  Result<PdfPage> pdfPage(const ExportView& v);
  // How text sits in a PDF with this image's fonts (baselines, em).
  PdfParams pdfParams(int width, int height, ThemeKind theme);
  // Text measured with this image's fonts (loaded for `glyphs`).
  MeasureText measure(const std::string& glyphs);
  // After a render: non-empty when the diagram did not fit the image.
  const std::string& warning() const { return warning_; }
  const std::string& fontNotice() const { return fonts_.notice; }

 private:
  void ensureFonts(float scale, const std::string& glyphs);
  // The caption and status block under the diagram, in the reader's
  // language and wrapped, measured with the fonts loaded now.
  FigureText figureText(const ExportView& v, const Theme& theme) const;
  // The diagram's inputs, `below_h` pixels left under it for the figure's texts.
  DiagramInputs inputs(const ExportView& v, const Theme& theme, float below_h) const;
  void checkFit(const ExportView& v, const Scene& scene, float diagram_h);
  // Where the caption and status block start: under the diagram's area, or
  // with `crop` right under what the diagram drew.
  float belowTop(const ExportView& v, const Scene& scene, float status_h) const;
  // With `crop`: the pixels kept (what is drawn plus the margin), else the image.
  struct Box {
    int x = 0, y = 0, w = 0, h = 0;
  };
  Box cropBox(const ExportView& v, const Scene& scene, const std::vector<TextItem>& below) const;
  Status draw(const ExportView& v, Box* crop = nullptr);  // into fbo_

  ExportView cached_;  // what fbo_ holds (texture())
  bool cache_valid_ = false;

  ImGuiContext* ctx_ = nullptr;
  bool gl_ = false;
  Fonts fonts_;
  DiagramView view_;
  Offscreen fbo_;
  std::string warning_;
  FigureText figure_;  // the last draw's texts under the diagram (pdfPage sets its caption)
};

}  // namespace collviz::ui
