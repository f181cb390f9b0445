#include "app/files/export_set.h"

#include <algorithm>

#include "app/lang/lang.h"

#include "app/view/heading.h"
#include "app/view/round_layout.h"

namespace collviz::ui {

std::string exportFileName(Program program, Op op, const ViewSettings& view,
                           const std::string& ext) {
  std::string name = fileStem(program, op);
  if (program == Program::all_reduce_decomposed) name += "_step" + std::to_string(view.stage);
  if (isRoundView(program, op, view)) {
    std::string algo = view.algo;  // an MSCCL file's "msccl:NAME" as msccl-NAME
    std::replace(algo.begin(), algo.end(), ':', '-');
    name += "_" + algo + (ext == "gif" ? "" : "_round" + std::to_string(view.round));
  }
  if (view.trace_rank >= 0)
    name += std::string(view.trace_mode == TraceMode::goes ? "_trace_from_r" : "_trace_r") +
            std::to_string(view.trace_rank);
  return name + "." + ext;
}

std::string exportCaption(Program program, Op op, int ranks, const ViewSettings& view) {
  Heading h = headingFor(program, op);
  std::string c = program == Program::single ? h.number + " " + h.title + " — " + h.phrase
                                             : h.title + " — " + h.phrase;
  if (program == Program::all_reduce_decomposed) {
    c += " · " + trf("state {0}: ", {std::to_string(view.stage)}) +
         tr(kDecompositionStates[view.stage < 0 ? 0 : view.stage > 2 ? 2 : view.stage]);
  }
  if (isRoundView(program, op, view)) {
    OpSpec s;  // the rounds depend on the op and N only
    s.op = op;
    s.ranks = ranks;
    c += " · " + view.algo + " · " + trf("round {0}/{1}", {std::to_string(view.round), std::to_string(algoRounds(view.algo, s))});
  }
  if (view.trace_rank >= 0 && view.trace_rank < ranks)
    c += " · " + trf(view.trace_mode == TraceMode::goes ? "trace: where {0}'s data goes" : "trace: what reaches {0}",
                     {"R" + std::to_string(view.trace_rank)});
  return c;
}

std::vector<ExportItem> articleSet(const OpSpec& base, TraceMode trace_mode, const std::string& ext) {
  std::vector<ExportItem> items;
  auto add = [&](Program program, Op op, ViewSettings view) {
    OpSpec spec = base;
    spec.op = op;
    items.push_back({program, spec, view, exportFileName(program, op, view, ext),
                     exportCaption(program, op, base.ranks, view)});
  };
  for (int i = 0; i < kOpCount; ++i) add(Program::single, Op(i), {});
  for (int r = 0; r < base.ranks; ++r) {
    ViewSettings v;
    v.trace_rank = r;
    v.trace_mode = trace_mode;
    add(Program::single, Op::all_to_all, v);
  }
  for (int step = 0; step <= 2; ++step) {
    ViewSettings v;
    v.stage = step;
    add(Program::all_reduce_decomposed, Op::all_reduce, v);
  }
  // An algorithm round by round: ring all-reduce, every round.
  OpSpec ring = base;
  ring.op = Op::all_reduce;
  const int rounds = algoRounds("ring", ring);
  for (int k = 0; k <= rounds; ++k) {
    ViewSettings v;
    v.algo = "ring";
    v.round = k;
    add(Program::single, Op::all_reduce, v);
  }
  return items;
}

std::string indexMarkdown(const std::vector<ExportItem>& items, const std::string& settings) {
  std::string md = "# " + render(say("collviz figures")) + "\n\n";
  md += render(say("Drawn by `collviz export --all` from real runs: {0}.", settings)) + "\n";
  md += render(say("Arrows show data relations, not the algorithm.")) + "\n";
  for (const ExportItem& it : items) {
    md += "\n## " + it.caption + "\n\n";
    md += "![" + it.caption + "](" + it.file + ")\n";
  }
  return md;
}

}  // namespace collviz::ui
