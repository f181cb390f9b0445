#include "app/view/figure_text.h"

#include <utility>

namespace collviz::ui {

float statusBlockHeight(int lines, float scale) {
  return lines == 0 ? 0 : lines * statusLineHeight(scale) + 14 * scale;
}

FigureText::FigureText(FigureTextParams p, const Theme& theme) : p_(std::move(p)), theme_(theme) {
  if (p_.with_status) {
    status_ = statusLines(p_.status, theme_);
    status_h_ = statusBlockHeight(int(status_.size()), p_.status.scale);
  }
  if (!p_.caption.text.empty()) {
    caption_ = captionLines(p_.caption);
    caption_h_ = ui::captionHeight(caption_.size(), p_.caption.scale);
  }
}

std::vector<TextItem> FigureText::captionAt(float top) const {
  CaptionParams c = p_.caption;
  c.y = top;
  return placeCaptionLines(caption_, c, theme_);
}

std::vector<TextItem> FigureText::place(float top, int bad_blocks) const {
  std::vector<TextItem> out = p_.caption_drawn ? captionAt(top) : std::vector<TextItem>{};
  if (!p_.with_status) return out;
  StatusLineParams s = p_.status;
  s.y = top + caption_h_ + 4 * s.scale;
  std::vector<StatusLine> marked;
  if (bad_blocks != s.bad_blocks) {
    s.bad_blocks = bad_blocks;
    marked = statusLines(s, theme_);
  }
  for (TextItem& t : placeStatusLines(bad_blocks != p_.status.bad_blocks ? marked : status_, s))
    out.push_back(std::move(t));
  return out;
}

}  // namespace collviz::ui
