#include "app/export/html_export.h"

#include "app/files/export_set.h"
#include "app/gl/fonts.h"
#include "app/lang/lang.h"
#include "app/view/heading.h"
#include "app/view/round_layout.h"

namespace collviz::ui {

namespace {

HtmlSvg drawState(DiagramImage& image, ExportView v, bool follow_scheme, std::string* desc) {
  HtmlSvg s;
  if (follow_scheme) v.theme = ThemeKind::light;
  s.light = image.renderSvg(v, &s.tips, desc);
  if (follow_scheme) {
    v.theme = ThemeKind::dark;
    s.dark = image.renderSvg(v);
  }
  return s;
}

// A figure's caption on the page names the figure, not the state shown
// first: its controls choose the trace, the round or the stage.
std::string pageCaption(const ExportView& v) {
  ViewSettings view = v.view;
  view.trace_rank = -1;
  if (isRoundView(v.program, v.spec.op, view)) {
    view.algo.clear();
    return exportCaption(v.program, v.spec.op, v.spec.ranks, view) + " · " +
           render(say("{0} rounds at N = {1} · {2}", algoRounds(v.view.algo, v.spec), v.spec.ranks, v.view.algo));
  }
  if (v.program == Program::all_reduce_decomposed) {
    const Heading h = headingFor(v.program, v.spec.op);
    return h.title + " — " + h.phrase;
  }
  return exportCaption(v.program, v.spec.op, v.spec.ranks, view);
}

}  // namespace

HtmlFigure htmlFigure(DiagramImage& image, ExportView v, const std::string& id, const std::string& caption,
                      bool follow_scheme, bool traced) {
  HtmlFigure f;
  f.id = id;
  f.caption = caption;
  f.ranks = v.spec.ranks;
  if (v.snapshot) {
    f.verified = v.snapshot->verified;
    f.verdict = tr(f.verified ? "verified" : "NOT VERIFIED");
  }
  std::string desc;
  if (v.program == Program::all_reduce_decomposed) {
    f.kind = HtmlKind::stages;
    for (int k = 0; k <= 2; ++k) {
      v.view.stage = k;
      f.states.push_back(drawState(image, v, follow_scheme, k == 2 ? &desc : nullptr));
    }
    f.initial = 0;
  } else if (isRoundView(v.program, v.spec.op, v.view)) {
    f.kind = HtmlKind::rounds;
    f.initial = v.view.round;
    const int rounds = algoRounds(v.view.algo, v.spec);
    for (int k = 0; k <= rounds; ++k) {
      v.view.round = k;
      f.states.push_back(drawState(image, v, follow_scheme, k == rounds ? &desc : nullptr));
    }
  } else if (!traced) {
    f.kind = HtmlKind::still;
    v.view.trace_rank = -1;
    f.states.push_back(drawState(image, v, follow_scheme, &desc));
  } else {
    f.kind = HtmlKind::trace;
    const int n = v.spec.ranks;
    f.initial = v.view.trace_rank < 0 ? 0 : 1 + v.view.trace_rank + (v.view.trace_mode == TraceMode::goes ? n : 0);
    v.view.trace_rank = -1;
    f.states.push_back(drawState(image, v, follow_scheme, &desc));
    for (TraceMode mode : {TraceMode::reaches, TraceMode::goes})
      for (int r = 0; r < n; ++r) {
        v.view.trace_rank = r;
        v.view.trace_mode = mode;
        f.states.push_back(drawState(image, v, follow_scheme, nullptr));
      }
  }
  f.desc = desc;
  return f;
}

HtmlWords htmlWords() {
  HtmlWords w;
  w.trace = tr("trace");
  w.all = tr("All");
  w.direction = tr("trace direction");
  w.reaches = tr("what reaches {0}");
  w.goes = tr("where {0}'s data goes");
  w.prev = tr("previous round");
  w.next = tr("next round");
  w.play = tr("play");
  w.pause = tr("pause");
  w.round = tr("round {0}/{1}");
  w.states = tr("the decomposition's three states (scrolls sideways)");
  return w;
}

std::string htmlExportPage(DiagramImage& image, const std::vector<ExportView>& views, const HtmlPageOptions& o) {
  const Lang was = language();
  std::vector<HtmlLang> langs;
  for (Lang lang : o.both ? std::vector<Lang>{Lang::en, Lang::zh} : std::vector<Lang>{was}) {
    setLanguage(lang);
    HtmlLang l;
    l.lang = lang == Lang::zh ? "zh-Hans" : "en";
    l.name = lang == Lang::zh ? "中文" : "English";
    l.words = htmlWords();
    const std::string prefix = o.both ? l.lang.substr(0, 2) + "-" : "";
    for (std::size_t k = 0; k < views.size(); ++k) {
      ExportView v = views[k];
      v.glyphs = lang == Lang::zh ? uiChineseText() : std::string();
      const std::string caption = pageCaption(v);
      const bool traced = !o.article || (v.program == Program::single && v.spec.op == Op::all_to_all);
      HtmlFigure f = htmlFigure(image, v, prefix + "f" + std::to_string(k + 1), caption, o.theme.empty(), traced);
      if (o.article) {
        const Heading h = headingFor(v.program, v.spec.op);
        f.heading = (h.number == "=" ? "" : h.number + " ") + h.title + " — " + h.phrase;
        f.caption = f.heading;
      }
      l.figures.push_back(std::move(f));
    }
    l.title = o.article ? tr("Notes for Collective Operations, drawn from real runs") : l.figures.front().caption;
    if (o.article) {
      l.heading = true;
      l.intro = {render(say("Drawn by `collviz export --all --format html` from real runs: {0}.", o.settings ? o.settings() : "")),
                 render(say("Arrows show data relations, not the algorithm.")),
                 tr("Hover or focus a block for its label, contributors and values.")};
    }
    langs.push_back(std::move(l));
  }
  setLanguage(was);
  return htmlPage(langs, o.theme);
}

}  // namespace collviz::ui
