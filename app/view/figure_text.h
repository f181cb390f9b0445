// What an exported figure sets under its diagram: a lecture step's caption,
// then the status block (the figure's notes; with --status the machine's
// lines). Built once per draw, already in the reader's language and wrapped
// to the image's width (caption.h, status_text.h: the part that asks lang/
// and wraps); sized before the diagram is laid out, and placed once its
// scene says where the diagram ends and how many blocks it marked. The
// painter (gl/diagram_image) draws what `place` hands it and asks nothing.
#pragma once

#include <string>
#include <vector>

#include "app/view/caption.h"
#include "app/view/palette.h"
#include "app/view/scene.h"
#include "app/view/status_text.h"

namespace collviz::ui {

struct FigureTextParams {
  CaptionParams caption;      // text "": no caption; x, width, scale and measure set (y is place's)
  StatusLineParams status;    // x, max_width, scale and measure set (y and bad_blocks are place's)
  bool with_status = false;   // a status block at all (--status, or the figure's notes)
  bool caption_drawn = true;  // false: its room kept, its text left to the caller (a PDF page)
};

// Height of a status block of `lines` lines (0 for none), pixels.
float statusBlockHeight(int lines, float scale);

class FigureText {
 public:
  FigureText() = default;
  FigureText(FigureTextParams p, const Theme& theme);

  float captionHeight() const { return caption_h_; }
  float statusHeight() const { return status_h_; }
  float height() const { return status_h_ + caption_h_; }  // the room under the diagram

  // The caption (when drawn) and the status block from `top` down. The
  // block was built for a diagram that marks no block; `bad_blocks` > 0
  // builds it again with the marks (its height stays what was sized).
  std::vector<TextItem> place(float top, int bad_blocks) const;
  std::vector<TextItem> captionAt(float top) const;  // drawn or not

 private:
  FigureTextParams p_;
  Theme theme_;
  std::vector<std::string> caption_;
  std::vector<StatusLine> status_;
  float caption_h_ = 0, status_h_ = 0;
};

}  // namespace collviz::ui
