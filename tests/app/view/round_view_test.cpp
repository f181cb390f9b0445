// The algorithm view without GL: the round model, the layout's arrows and
// Σ tiles, the keys and play, and (with real rank workers) the arrows held
// against the transfers the engine counted.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <chrono>
#include <string>
#include <vector>

#include "app/view/link_view.h"
#include "app/view/round_layout.h"
#include "app/view/round_model.h"
#include "app/view/round_play.h"
#include "engine/engine.h"
#include "tests/app/view/view_spec.h"

namespace collviz::ui {
namespace {

ViewSettings roundView(const std::string& algo, int round, float tween = 0) {
  ViewSettings v;
  v.algo = algo;
  v.round = round;
  v.tween = tween;
  return v;
}

Scene layout(const RoundModel& rm, const ViewSettings& v) {
  LayoutParams p{{1200, 700}, 1.0f, nullptr};
  return layoutRounds(rm, roundDiagramModel(rm), v, makeTheme(ThemeKind::light), p);
}

const HitBox* hit(const Scene& s, int column, int row, int block) {
  for (const HitBox& h : s.hits)
    if (h.column == column && h.row == row && h.block == block) return &h;
  return nullptr;
}

bool inRow(const Scene& s, int column, int row, float y) {
  const HitBox* h = hit(s, column, row, 0);
  return h && y >= h->rect.y - 8 && y <= h->rect.y + h->rect.h + 8;
}

TEST(RoundModel, RingAllReduceN4EveryRoundFourArrowsToTheNextRank) {
  const OpSpec s = spec(Op::all_reduce, 4);
  ASSERT_EQ(algoRounds("ring", s), 6);
  for (int k = 1; k <= 6; ++k) {
    const RoundModel rm = buildRoundModel(s, "ring", k, nullptr);
    ASSERT_EQ(rm.arrows.size(), 4u) << "round " << k;
    std::vector<bool> from(4, false);
    for (const RoundArrow& a : rm.arrows) {
      EXPECT_EQ(a.to, (a.from + 1) % 4) << "round " << k;
      EXPECT_EQ(a.src.size(), 1u);
      EXPECT_EQ(a.reduce, k <= 3);
      from[std::size_t(a.from)] = true;
    }
    EXPECT_EQ(from, std::vector<bool>(4, true));
    // The layout: the grid's 4 arrows start in the sender's row and end in
    // the receiver's, and the link view draws the same 4.
    const Scene sc = layout(rm, roundView("ring", k));
    ASSERT_EQ(sc.curves.size(), 8u);
    ASSERT_EQ(sc.triangles.size(), 8u);
    for (int i = 0; i < 4; ++i) {
      const RoundArrow& a = rm.arrows[std::size_t(i)];
      EXPECT_TRUE(inRow(sc, 0, a.from, sc.curves[std::size_t(i)].p0.y)) << "round " << k << " arrow " << i;
      EXPECT_TRUE(inRow(sc, 1, a.to, sc.triangles[std::size_t(i)].a.y)) << "round " << k << " arrow " << i;
    }
  }
  EXPECT_EQ(buildRoundModel(s, "ring", 0, nullptr).arrows.size(), 0u);
}

TEST(RoundModel, RingReducedRegionStripesAreItsContributors) {
  const OpSpec s = spec(Op::all_reduce, 4);
  for (int k = 1; k <= 3; ++k) {
    const RoundModel rm = buildRoundModel(s, "ring", k, nullptr);
    const Scene sc = layout(rm, roundView("ring", k));
    for (const RoundArrow& a : rm.arrows) {
      const int slot = a.dst[0];
      const BlockLabel& l = rm.now[std::size_t(a.to)][std::size_t(slot)];
      EXPECT_EQ(rm.marks[std::size_t(a.to)][std::size_t(slot)], SlotMark::reduced);
      ASSERT_EQ(l.kind, BlockLabel::Kind::reduced);
      // k+1 contributors, consecutive in ring order, ending at the receiver.
      EXPECT_EQ(std::popcount(l.contributors), k + 1);
      for (int j = 0; j <= k; ++j) EXPECT_TRUE(l.contributors >> ((a.to - j + 4) % 4) & 1u);
      // The tile drawn there carries exactly those stripes.
      const HitBox* h = hit(sc, 1, a.to, slot);
      ASSERT_NE(h, nullptr);
      bool found = false;
      for (const TileInstance& t : sc.tiles)
        if (t.rect.x == h->rect.x && t.rect.y == h->rect.y && (t.flags & kTileStripes))
          found = found || t.stripes == l.contributors;
      EXPECT_TRUE(found) << "round " << k << " R" << a.to << " slot " << slot;
      EXPECT_EQ(l.text(RedOp::sum).find("+") != std::string::npos, k < 3);  // "A₁+B₁" until complete
    }
  }
}

TEST(RoundModel, BarAndNames) {
  const OpSpec s = spec(Op::all_reduce, 4);
  EXPECT_EQ(buildRoundModel(s, "ring", 2, nullptr).bar, "reduce-scatter 2/3 · all-gather 0/3");
  EXPECT_EQ(buildRoundModel(s, "ring", 5, nullptr).bar, "reduce-scatter 3/3 · all-gather 2/3");
  EXPECT_EQ(buildRoundModel(s, "ring", 5, nullptr).name, "all-gather 2/3");
  EXPECT_EQ(buildRoundModel(s, "ring", 99, nullptr).round, 6);
  // One phase through every round: no bar, and the name without a counter.
  const RoundModel bruck = buildRoundModel(spec(Op::all_to_all, 4), "bruck", 2, nullptr);
  EXPECT_EQ(bruck.bar, "");
  EXPECT_EQ(bruck.name, "");  // the phase is the algorithm's name: said once
  EXPECT_EQ(bruck.title, "bruck · step 2/4 · round 1/2");
  EXPECT_EQ(buildRoundModel(s, "ring", 3, nullptr).title, "ring · round 3/6 · reduce-scatter 3/3");
  EXPECT_EQ(buildRoundModel(spec(Op::all_to_all, 3), "pairwise", 1, nullptr).title,
            "pairwise · step 1/3 · local: own block");
  EXPECT_FALSE(buildRoundModel(spec(Op::all_to_all, 4), "ring", 1, nullptr).error.empty());
  EXPECT_EQ(algoRounds("native", s), 0);
  EXPECT_TRUE(isRoundView(Program::single, Op::all_reduce, roundView("ring", 0)));
  EXPECT_FALSE(isRoundView(Program::single, Op::all_to_all, roundView("ring", 0)));
}

TEST(RoundModel, TravellingBlocksWhilePlaying) {
  const OpSpec s = spec(Op::all_reduce, 4);
  const RoundModel rm = buildRoundModel(s, "ring", 1, nullptr);
  const Scene rest = layout(rm, roundView("ring", 1));
  const Scene moving = layout(rm, roundView("ring", 1, 0.5f));
  EXPECT_EQ(moving.tiles.size(), rest.tiles.size() + 4);  // one tile per block sent
}

// The texts drawn inside one slot's tile, less the badges of a written
// slot ("+", "→", a slot number).
std::vector<std::string> textsIn(const Scene& s, int column, int row, int slot) {
  std::vector<std::string> out;
  const HitBox* h = hit(s, column, row, slot);
  if (!h) return out;
  for (const TextItem& t : s.texts)
    if (t.anchor.x > h->rect.x && t.anchor.x < h->rect.x + h->rect.w && t.anchor.y > h->rect.y &&
        t.anchor.y < h->rect.y + h->rect.h &&
        t.text != "+" && t.text != "→" && t.text.find_first_not_of("0123456789") != std::string::npos)
      out.push_back(t.text);  // the value, not the written slot's badge
  return out;
}

// While the blocks travel (0 < tween < 1) a slot they are going to keeps its
// old value: the "after" column shows what the "before" column shows there,
// and the new value only once they have arrived (tween 0, the round's rest).
// Seen failing with the destination showing its new value at every tween.
TEST(RoundModel, ADestinationChangesOnlyWhenItsBlocksArrive) {
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (const char* algo : {"ring", "tree", "halving_doubling"}) {
    SCOPED_TRACE(algo);
    const OpSpec s = spec(Op::all_reduce, 4);
    const RoundModel rm = buildRoundModel(s, algo, 1, nullptr);
    ASSERT_TRUE(rm.error.empty()) << rm.error;
    // At rest nothing travels: the before column holds the old values, the
    // after column the new ones.
    const Scene rest = layout(rm, roundView(algo, 1));
    int changed = 0;
    for (float tween : {0.1f, 0.5f, 0.9f}) {
      const Scene moving = layout(rm, roundView(algo, 1, tween));
      for (int r = 0; r < s.ranks; ++r)
        for (int k = 0; k < rm.slots; ++k) {
          if (rm.marks[std::size_t(r)][std::size_t(k)] == SlotMark::none) continue;
          const auto old_value = textsIn(rest, 0, r, k), new_value = textsIn(rest, 1, r, k),
                     shown = textsIn(moving, 1, r, k);
          for (const std::string& x : old_value)
            EXPECT_TRUE(has(shown, x)) << "R" << r << " slot " << k << " at tween " << tween
                                       << ": the old value " << x << " is not shown";
          for (const std::string& x : new_value)
            if (!has(old_value, x)) {
              ++changed;
              EXPECT_FALSE(has(shown, x)) << "R" << r << " slot " << k << " at tween " << tween
                                          << " shows its new value " << x << " while its blocks travel";
            }
        }
    }
    EXPECT_GT(changed, 0) << "no written slot changes its value in round 1: the test checks nothing";
  }
}

TEST(RoundModel, TracePerRound) {
  const OpSpec s = spec(Op::all_reduce, 4);
  const RoundModel rm = buildRoundModel(s, "ring", 2, nullptr);
  ViewSettings v = roundView("ring", 2);
  v.trace_rank = 1;
  v.trace_mode = TraceMode::goes;  // where R1's data is
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < rm.slots; ++k)
      EXPECT_EQ(roundSlotLit(rm, rm.now, v, r, k), bool(rm.now[std::size_t(r)][std::size_t(k)].contributors & 2u));
  v.trace_mode = TraceMode::reaches;  // what reached R1
  EXPECT_TRUE(roundSlotLit(rm, rm.now, v, 1, 0));
  EXPECT_FALSE(roundSlotLit(rm, rm.now, v, 2, 0));
  for (const RoundArrow& a : rm.arrows) EXPECT_EQ(roundArrowLit(rm, v, a), a.to == 1);
}

TEST(RoundPlay, KeysStepAndPlay) {
  AppState st;
  st.entry = int(Op::all_reduce);
  LectureKey k;
  int rank = 0;
  ASSERT_TRUE(keyForChar('l', &k, &rank));
  EXPECT_EQ(k, LectureKey::next_algo);
  applyLectureKey(st, k);
  EXPECT_EQ(st.view.algo, algoChoices(Op::all_reduce)[1]);
  st.view.algo = "ring";
  st.rounds = algoRounds("ring", st.runSpec());
  applyLectureKey(st, LectureKey::step_forward);
  applyLectureKey(st, LectureKey::step_forward);
  EXPECT_EQ(st.view.round, 2);
  EXPECT_EQ(st.entry, int(Op::all_reduce));  // ↓ stepped a round, not the op
  applyLectureKey(st, LectureKey::last);
  EXPECT_EQ(st.view.round, 6);
  applyLectureKey(st, LectureKey::step_forward);
  EXPECT_EQ(st.view.round, 6);
  applyLectureKey(st, LectureKey::first);
  EXPECT_EQ(st.view.round, 0);
  ASSERT_TRUE(keyForChar('p', &k, &rank));
  applyLectureKey(st, k);
  EXPECT_TRUE(st.playing);
  st.play_speed = 8;
  bool moved = false;
  for (int f = 0; f < 600 && st.playing; ++f) {
    advancePlay(st, 1.0f / 60);
    moved = moved || st.view.tween > 0;
  }
  EXPECT_TRUE(moved);
  EXPECT_FALSE(st.playing);
  EXPECT_EQ(st.view.round, 6);
  EXPECT_EQ(st.view.tween, 0.0f);
  // Without an algorithm the keys step the ops as before.
  st.rounds = 0;
  applyLectureKey(st, LectureKey::step_forward);
  EXPECT_EQ(st.entry, int(Op::all_reduce) + 1);
}

// One unit per view (issue 57): the heading's "this round" and the bars
// say one number the same way ("9.20 ms" twice, not "9199.0 µs" over "9.20 ms").
TEST(LinkView, RoundTimesInOneUnit) {
  EXPECT_EQ(roundTimeText(9199.0, 9199.0), "9.20 ms");
  EXPECT_EQ(roundTimeText(700.0, 9199.0), "0.70 ms");
  EXPECT_EQ(roundTimeText(700.0, 900.0), "700 µs");
  EXPECT_EQ(roundTimeText(8.25, 40.0), "8.2 µs");
  const OpSpec s = spec(Op::all_reduce, 4);
  RoundModel rm = buildRoundModel(s, "ring", 2, nullptr);
  rm.round_us = {350, 9199, 700, 400, 420, 380};
  const Scene sc = layout(rm, roundView("ring", 2));
  std::string all;
  int ms = 0;
  for (const TextItem& t : sc.texts) {
    EXPECT_EQ(t.text.find("µs"), std::string::npos) << t.text;
    if (t.text.find("ms") != std::string::npos) ++ms;
    all += t.text + " ";
  }
  EXPECT_NE(all.find("this round: 9.20"), std::string::npos) << all;
  EXPECT_GE(ms, 2) << all;
}

// The "+" and "→" badges read on a projector (issue 57: 12 px dots): their
// signs as large as the legend's text, not the 11 px they were.
TEST(RoundModel, BadgesAreLargeEnoughToReadFromAfar) {
  const OpSpec s = spec(Op::all_reduce, 4);
  for (int k : {1, 4}) {  // a reduce round ("+") and an all-gather round ("→")
    const RoundModel rm = buildRoundModel(s, "ring", k, nullptr);
    const Scene sc = layout(rm, roundView("ring", k));
    int badges = 0;
    for (const TextItem& t : sc.texts)
      if (t.text == "+" || t.text == "→") {
        ++badges;
        EXPECT_GE(t.size, 15.0f * sc.scale * 0.99f) << "round " << k << ": badge " << t.text << " at " << t.size;
      }
    EXPECT_GE(badges, 4) << "round " << k;
  }
}

// One rule for partial sums (issue 57): the article's full form while it
// fits at kFullLabelFloor of its size (N = 4: every tile), and a figure that
// draws a short form explains each one in its key, as the full label.
TEST(RoundModel, PartialSumsAreWrittenInFullOrExplainedInTheKey) {
  auto shortForm = [](const std::string& t) {
    return t.rfind("Σ", 0) == 0 && (t.find('{') != std::string::npos || t.find('(') != std::string::npos ||
                                     t.find("…") != std::string::npos);
  };
  {
    const OpSpec s = spec(Op::all_reduce, 4);
    const Scene sc = layout(buildRoundModel(s, "ring", 3, nullptr), roundView("ring", 3));
    int full = 0;
    for (const TextItem& t : sc.texts) {
      EXPECT_FALSE(shortForm(t.text)) << t.text;
      EXPECT_EQ(t.text.find("short labels"), std::string::npos) << t.text;
      full += t.text.find("₁+") != std::string::npos || t.text.find("₀+") != std::string::npos;
    }
    EXPECT_GT(full, 0) << "no partial sum written in full";
  }
  for (int n : {8, 12}) {
    const OpSpec s = spec(Op::all_reduce, n);
    const int k = algoRounds("ring", s) / 2;
    const Scene sc = layout(buildRoundModel(s, "ring", k, nullptr), roundView("ring", k));
    std::string key;
    std::vector<std::string> shorts;
    for (const TextItem& t : sc.texts) {
      if (t.text.find("short labels") != std::string::npos || !key.empty()) key += t.text + " ";
      if (shortForm(t.text)) shorts.push_back(t.text);
    }
    for (const std::string& f : shorts)
      if (std::count(shorts.begin(), shorts.end(), f) && key.find(f + " = ") == std::string::npos && key.find("…") == std::string::npos)
        ADD_FAILURE() << "N=" << n << ": " << f << " drawn, not in the key: " << key;
  }
}

TEST(LinkView, RanksOnACircle) {
  const Vec2 c{100, 100};
  const Vec2 top = linkNodePosition(c, 50, 0, 4), right = linkNodePosition(c, 50, 1, 4);
  EXPECT_NEAR(top.x, 100, 1e-3);
  EXPECT_NEAR(top.y, 50, 1e-3);
  EXPECT_NEAR(right.x, 150, 1e-3);
  EXPECT_EQ(byteText(96), "96 B");
  EXPECT_EQ(byteText(1536), "1.5 KiB");
}

// With real rank workers: every round's arrows are the transfers the engine
// counted (same order, sender, receiver, first slot, slot count, reduce),
// and the labels are the snapshot's, decoded from the bytes.
TEST(RoundModelEngine, ArrowsMatchTheEngineTransfers) {
  Engine engine;
  struct Case {
    Op op;
    const char* algo;
    int n;
  };
  const Case cases[] = {{Op::all_to_all, "bruck", 4},          {Op::all_to_all, "bruck", 5},
                        {Op::all_reduce, "halving_doubling", 4}, {Op::all_reduce, "halving_doubling", 6},
                        {Op::reduce_scatter, "halving_doubling", 4}, {Op::all_reduce, "ring", 4}};
  for (const Case& c : cases) {
    Request r;
    r.spec = spec(c.op, c.n);
    r.backend = BackendKind::gloo;
    r.algo = c.algo;
    auto snap = engine.waitFor(engine.submit(r), std::chrono::seconds(60));
    ASSERT_TRUE(snap);
    ASSERT_TRUE(snap->error.empty()) << snap->error;
    const int rounds = algoRounds(c.algo, r.spec);
    ASSERT_EQ(int(snap->steps.size()), rounds);
    for (int k = 1; k <= rounds; ++k) {
      const RoundModel rm = buildRoundModel(r.spec, c.algo, k, snap);
      ASSERT_TRUE(rm.ran()) << c.algo << " N=" << c.n;
      const auto& tr = snap->steps[std::size_t(k - 1)].transfers;
      const auto& local = snap->steps[std::size_t(k - 1)].local;
      std::vector<RoundArrow> msgs, copies;
      for (const RoundArrow& a : rm.arrows) (a.local ? copies : msgs).push_back(a);
      EXPECT_EQ(rm.local, tr.empty());
      ASSERT_EQ(msgs.size(), tr.size()) << c.algo << " N=" << c.n << " round " << k;
      for (std::size_t i = 0; i < tr.size(); ++i) {
        const RoundArrow& a = msgs[i];
        EXPECT_EQ(a.from, tr[i].from);
        EXPECT_EQ(a.to, tr[i].to);
        EXPECT_EQ(a.src.front(), tr[i].block);
        EXPECT_EQ(int(a.src.size()), tr[i].blocks);
        EXPECT_EQ(a.src, tr[i].src_slots);
        EXPECT_EQ(a.dst, tr[i].dst_slots);
        EXPECT_EQ(a.reduce, tr[i].reduce);
        EXPECT_EQ(a.bytes, tr[i].bytes);
      }
      ASSERT_EQ(copies.size(), local.size());
      for (std::size_t i = 0; i < local.size(); ++i) {
        EXPECT_EQ(copies[i].from, local[i].rank);
        EXPECT_EQ(copies[i].src, local[i].from);
        EXPECT_EQ(copies[i].dst, local[i].to);
      }
      for (int q = 0; q < c.n; ++q)
        for (int j = 0; j < rm.slots; ++j)
          EXPECT_EQ(rm.now[std::size_t(q)][std::size_t(j)].text(RedOp::sum),
                    snap->steps[std::size_t(k - 1)].ranks[std::size_t(q)].output.labels[std::size_t(j)].text(RedOp::sum));
    }
  }
}

// Is the tile at `h` outlined (a transparent tile 2 px larger all round)?
bool outlined(const Scene& sc, const HitBox& h) {
  for (const TileInstance& t : sc.tiles)
    if (t.fill.a == 0 && t.border_width > 2 && std::abs(t.rect.x - (h.rect.x - 2)) < 0.01f &&
        std::abs(t.rect.y - (h.rect.y - 2)) < 0.01f && std::abs(t.rect.w - (h.rect.w + 4)) < 0.01f)
      return true;
  return false;
}

// Bruck N = 4, message round 1 (step 2, after the local rotation): the
// slots outlined in every rank's "before" column are exactly its transfer's
// src_slots, and their labels are what the receiver shows at dst_slots after.
TEST(RoundModelEngine, BruckN4Round1OutlinesAreTheSentSlots) {
  Engine engine;
  Request r;
  r.spec = spec(Op::all_to_all, 4);
  r.backend = BackendKind::gloo;
  r.algo = "bruck";
  auto snap = engine.waitFor(engine.submit(r), std::chrono::seconds(60));
  ASSERT_TRUE(snap);
  ASSERT_TRUE(snap->error.empty()) << snap->error;
  ASSERT_EQ(snap->steps.size(), 4u);  // rotate, 2 rounds, rotate back
  EXPECT_FALSE(snap->steps[0].local.empty());
  const RoundModel rm = buildRoundModel(r.spec, "bruck", 2, snap);
  ASSERT_TRUE(rm.ran());
  EXPECT_FALSE(rm.local);
  EXPECT_EQ(rm.title, "bruck · step 2/4 · round 1/2");
  // The rotation is drawn: R1's buffer before the round is B₁ B₂ B₃ B₀.
  std::string r1;
  for (const BlockLabel& l : rm.before[1]) r1 += l.text(RedOp::sum) + " ";
  EXPECT_EQ(r1, "B₁ B₂ B₃ B₀ ");
  const Scene sc = layout(rm, roundView("bruck", 2));
  const StepResult& step = snap->steps[1];
  ASSERT_EQ(step.transfers.size(), 4u);
  for (const Transfer& t : step.transfers) {
    SCOPED_TRACE("R" + std::to_string(t.from));
    std::vector<int> drawn;
    for (int k = 0; k < rm.slots; ++k) {
      const HitBox* h = hit(sc, 0, t.from, k);
      ASSERT_TRUE(h);
      if (outlined(sc, *h)) drawn.push_back(k);
    }
    EXPECT_EQ(drawn, t.src_slots);
    EXPECT_EQ(t.src_slots, (std::vector<int>{1, 3}));
    for (std::size_t i = 0; i < t.src_slots.size(); ++i)
      EXPECT_EQ(rm.before[std::size_t(t.from)][std::size_t(t.src_slots[i])].text(RedOp::sum),
                step.ranks[std::size_t(t.to)].output.labels[std::size_t(t.dst_slots[i])].text(RedOp::sum));
  }
  // The local step before it: its moved slots are outlined, the after column
  // badges name the source slot, and it sends nothing.
  const RoundModel rot = buildRoundModel(r.spec, "bruck", 1, snap);
  EXPECT_TRUE(rot.local);
  EXPECT_EQ(rot.title, "bruck · step 1/4 · local: rotate by r");
  const Scene rs = layout(rot, roundView("bruck", 1));
  bool badge = false;
  for (const TextItem& t : rs.texts) badge = badge || t.text == "←1";
  EXPECT_TRUE(badge);
}

}  // namespace
}  // namespace collviz::ui
