// A figure for the web: one self-contained HTML page around the SVG export's
// own drawings (one pre-drawn SVG per state: each trace choice, each round,
// the decomposition's three states), one <style>, one small <script> that
// shows one state at a time. No framework, no request, no external font.
// Without JavaScript the page shows the first state (and every round one
// under the other). Pure: the SVGs come in as text.
#pragma once

#include <string>
#include <vector>

#include "app/view/scene.h"

namespace collviz::ui {

struct HtmlTip {
  Rect rect;         // in the SVG's coordinates
  std::string text;  // plain text, lines split by '\n'
};

// One state of a figure: the SVG export of it in the light theme and, for a
// page that follows the reader's colour scheme, in the dark theme (the same
// drawing, other colours); `dark` empty: the one theme given.
struct HtmlSvg {
  std::string light, dark;
  std::vector<HtmlTip> tips;
};

enum class HtmlKind {
  trace,   // states: all, then what reaches R0..RN-1, then where R0..RN-1's data goes
  rounds,  // states: round 0 (the start) .. the last
  stages,  // the decomposition's three states, side by side
  still,   // one view, no controls
};

struct HtmlFigure {
  std::string id;  // prefix of every id inside ("f8"); unique on the page
  HtmlKind kind = HtmlKind::trace;
  std::string heading;  // <h2> above (the article page); empty: none
  std::string caption, desc, verdict;
  bool verified = true;
  int ranks = 0;
  int initial = 0;  // the state shown first
  std::vector<HtmlSvg> states;
};

// The page's words in one language (the caller translates).
struct HtmlWords {
  std::string trace, all, direction, reaches, goes;  // reaches/goes: "what reaches {0}" ({0}: the rank)
  std::string prev, next, play, pause, round;        // round: "round {0}/{1}"
  std::string states;                                // the scroll frame's name
};

struct HtmlLang {
  std::string lang;    // "en", "zh-Hans"
  std::string name;    // "English", "中文" (the switch)
  std::string title;   // <title> and, with `heading`, the <h1>
  bool heading = false;
  std::vector<std::string> intro;  // paragraphs under the heading
  std::vector<HtmlFigure> figures;
  HtmlWords words;
};

// The page: one language, or several with a switch between them (no
// JavaScript needed for it). `fixed_theme` ("light", "dark"; empty: follow
// the reader's scheme): the SVGs then carry no dark variant
// and the page does not follow prefers-color-scheme.
std::string htmlPage(const std::vector<HtmlLang>& langs, const std::string& fixed_theme);

// A lecture deck as one page: the slides' SVGs (title slide first), one at
// a time with ← → Home End, buttons and a step counter; without JavaScript
// every slide one under the other. `words.round` is the counter ("step {0}/{1}").
struct HtmlSlide {
  HtmlSvg svg;
  std::string caption;  // also as text under the slide
};
std::string deckPage(const std::string& lang, const std::string& title, const std::vector<HtmlSlide>& slides,
                     const HtmlWords& words, const std::string& theme);

// Text and attribute values as HTML (& < > " ' escaped).
std::string htmlEscape(const std::string& s);

}  // namespace collviz::ui
