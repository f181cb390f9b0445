// The footer: the decomposition's check (after all-gather = All-reduce's
// output?; in the window, before the last state, the key to the next) and
// the article's caveat about the arrows.
#include "app/view/layout_builder.h"
#include "app/lang/lang.h"

namespace collviz::ui::layout {

namespace {

// The decomposition's line: the next key, or the engine's byte comparison.
void decompositionCheck(Builder& b, float x, float y) {
  const Theme& th = b.th;
  std::string msg;
  Rgba colour = th.muted_text;
  if (b.view.stage < 2) {
    if (b.view.in_file) return;  // the key is the window's
    msg = trf("↓ / PgDn: next step ({0} of 3 shown)", {std::to_string(b.view.stage + 1)});
  } else if (!b.m.snapshot) {
    msg = tr("equals All-reduce's output? — not yet run");
  } else if (b.m.snapshot->verified) {
    msg = tr("✓ after all-gather = All-reduce's output (checked by the engine, element by element)");
    colour = letterColor(1);
  } else {
    const Snapshot& s = *b.m.snapshot;
    msg = s.all_reduce_compared && s.all_reduce_diffs != 0
              ? trf("✗ differs from All-reduce's output ({0} elements)", {std::to_string(s.all_reduce_diffs)})
              : trf("✗ the steps failed verification ({0} wrong elements)", {std::to_string(s.mismatches)});
    colour = th.bad;
  }
  b.text({x, y}, msg, colour, 15 * b.u, TextStyle::bold);
}

}  // namespace

void layoutFooter(Builder& b, const Geometry& g) {
  const float u = b.u, margin = 18 * u;
  float y = g.rowY(b.m.spec.ranks) + 6 * u;
  if (b.m.program == Program::all_reduce_decomposed) {
    decompositionCheck(b, g.cols[0].x, y);
    y += 24 * u;
  }
  b.text({b.p.size.x - margin, y}, tr("arrows show data relations, not the algorithm"),
         b.th.muted_text, 13 * u, TextStyle::regular, 1.0f, 0);
  b.s.width = std::max(b.p.size.x, g.x_end - g.gap_w + margin);
  b.s.height = y + 22 * u;
}

}  // namespace collviz::ui::layout
