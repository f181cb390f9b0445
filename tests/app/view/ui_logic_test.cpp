// Lecture keys, the run cache, text fallback and shader error messages
// without a window.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/view/axis_ticks.h"
#include "app/lang/backend_line.h"
#include "app/lang/lang.h"
#include "app/view/diagram_model.h"
#include "app/view/keys.h"
#include "app/view/runs.h"
#include "app/view/value_fetch.h"
#include "engine/verify/held_values.h"
#include "app/view/shader_sources.h"
#include "app/view/status_text.h"
#include "engine/job/nccl_log/nccl_log.h"
#include "app/view/text.h"

namespace collviz::ui {
namespace {

TEST(Keys, ArrowsWalkTheOpListAndWrap) {
  AppState s;
  s.entry = 0;
  applyLectureKey(s, LectureKey::prev_op);
  EXPECT_EQ(s.entry, kDecompositionEntry);
  applyLectureKey(s, LectureKey::next_op);
  EXPECT_EQ(s.entry, 0);
  applyLectureKey(s, LectureKey::next_op);
  EXPECT_EQ(s.entry, 1);
  EXPECT_EQ(s.runSpec().op, Op::scatter);
}

TEST(Keys, StepsWalkTheDecompositionThenMoveOn) {
  AppState s;
  s.entry = kDecompositionEntry - 1;  // all-to-all
  applyLectureKey(s, LectureKey::step_forward);
  EXPECT_EQ(s.entry, kDecompositionEntry);
  EXPECT_EQ(s.view.stage, 0);
  EXPECT_EQ(s.program(), Program::all_reduce_decomposed);
  EXPECT_EQ(s.runSpec().op, Op::all_reduce);
  applyLectureKey(s, LectureKey::step_forward);
  EXPECT_EQ(s.view.stage, 1);
  applyLectureKey(s, LectureKey::step_forward);
  EXPECT_EQ(s.view.stage, 2);
  applyLectureKey(s, LectureKey::step_back);
  EXPECT_EQ(s.view.stage, 1);
  applyLectureKey(s, LectureKey::step_forward);
  applyLectureKey(s, LectureKey::step_forward);
  EXPECT_EQ(s.entry, 0);
}

// However it is reached (← →, End, the list), the decomposition opens at its
// first state, so the first ↓ walks it instead of leaving for 01 Broadcast
// (issue 57); ↑ from 01 Broadcast arrives at its end.
TEST(Keys, TheDecompositionOpensAtItsFirstState) {
  for (LectureKey k : {LectureKey::prev_op, LectureKey::last}) {
    AppState s;
    s.entry = 0;
    applyLectureKey(s, k);
    ASSERT_EQ(s.entry, kDecompositionEntry);
    EXPECT_EQ(s.view.stage, 0) << int(k);
    applyLectureKey(s, LectureKey::step_forward);
    EXPECT_EQ(s.entry, kDecompositionEntry) << "the first step left the decomposition";
    EXPECT_EQ(s.view.stage, 1);
  }
  AppState s;
  s.entry = kDecompositionEntry - 1;
  applyLectureKey(s, LectureKey::next_op);
  EXPECT_EQ(s.view.stage, 0);
  applyLectureKey(s, LectureKey::next_op);
  EXPECT_EQ(s.entry, 0);
  EXPECT_EQ(s.view.stage, 2);  // an op shows its whole picture
  applyLectureKey(s, LectureKey::step_back);
  EXPECT_EQ(s.entry, kDecompositionEntry);
  EXPECT_EQ(s.view.stage, 2);
}

// The bandwidth axis (issue 57): round ticks, 1, 2 or 5 times a power of
// ten, from 0 to the first at or past the top, labelled without noise.
TEST(AxisTicks, RoundNumbersFromZeroPastTheTop) {
  const std::vector<double> small = roundTicks(0.0342 * 4 / 1.1, 4);  // the sweep that read 0.0342, 0.0684 …
  ASSERT_GE(small.size(), 3u);
  const double step = small[1] - small[0];
  EXPECT_DOUBLE_EQ(small[0], 0);
  EXPECT_NEAR(step, 0.05, 1e-12);
  EXPECT_GE(small.back(), 0.0342 * 4 / 1.1);
  EXPECT_LE(small.size(), 5u);
  EXPECT_EQ(tickLabel(small[1], step), "0.05");
  EXPECT_EQ(tickLabel(small[2], step), "0.10");
  for (double top : {0.0007, 0.9, 1.0, 3.3, 17.0, 99.0, 123456.0}) {
    const std::vector<double> t = roundTicks(top, 4);
    const double s = t[1] - t[0];
    const double mantissa = s / std::pow(10.0, std::floor(std::log10(s)));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
        << top << ": step " << s;
    EXPECT_GE(t.back(), top * (1 - 1e-9)) << top;
    EXPECT_LT(t[t.size() - 2], top) << top << ": a tick past the top too many";
    EXPECT_LE(t.size(), 5u) << top;
  }
  EXPECT_EQ(tickLabel(40, 20), "40");
  EXPECT_EQ(tickLabel(1.5, 0.5), "1.5");
}

// A chosen algorithm stays with its op (issue 57: "01 Broadcast · ring ·
// round 0/6" after ring on all-reduce, and a silent drop to native).
TEST(Keys, AnAlgorithmStaysWithItsOp) {
  AppState s;
  s.entry = int(Op::all_reduce);
  s.view.algo = "ring";
  s.view.round = 3;
  applyLectureKey(s, LectureKey::next_op);  // all-to-all
  EXPECT_EQ(s.view.algo, "native");
  for (int i = 0; i < 3; ++i) applyLectureKey(s, LectureKey::next_op);  // the decomposition, broadcast, scatter
  EXPECT_EQ(s.entry, int(Op::scatter));
  EXPECT_EQ(s.view.algo, "native");
  openEntry(s, int(Op::broadcast));
  EXPECT_EQ(s.view.algo, "native") << "ring followed the viewer to broadcast";
  s.view.algo = "binary_tree";
  openEntry(s, int(Op::all_reduce));
  EXPECT_EQ(s.view.algo, "ring");
  EXPECT_EQ(s.view.round, 0);
  openEntry(s, int(Op::broadcast));
  EXPECT_EQ(s.view.algo, "binary_tree");
}

TEST(Keys, CharactersMapToLectureKeys) {
  AppState s;
  s.spec.ranks = 4;
  LectureKey k;
  int rank = -1;
  ASSERT_TRUE(keyForChar('3', &k, &rank));
  applyLectureKey(s, k, rank);
  EXPECT_EQ(s.view.trace_rank, 3);
  ASSERT_TRUE(keyForChar('7', &k, &rank));
  applyLectureKey(s, k, rank);
  EXPECT_EQ(s.view.trace_rank, 3);  // no R7 with four ranks
  ASSERT_TRUE(keyForChar('a', &k, &rank));
  applyLectureKey(s, k, rank);
  EXPECT_EQ(s.view.trace_rank, -1);
  ASSERT_TRUE(keyForChar('t', &k, &rank));
  applyLectureKey(s, k, rank);
  EXPECT_EQ(s.view.theme, ThemeKind::dark);
  ASSERT_TRUE(keyForChar('f', &k, &rank));
  applyLectureKey(s, k, rank);
  EXPECT_TRUE(s.fullscreen);
  for (int i = 0; i < 50; ++i) applyLectureKey(s, LectureKey::zoom_in);
  EXPECT_FLOAT_EQ(s.view.zoom, 3.0f);
  EXPECT_TRUE(applyLectureKey(s, LectureKey::rerun));
  EXPECT_FALSE(keyForChar('q', &k, &rank));
}

// A runner that answers when the test says so.
class FakeRunner : public Runner {
 public:
  uint64_t run(const RunKey& k) override {
    sent.push_back(k);
    return ++next_id;
  }
  std::shared_ptr<const Snapshot> latest() const override { return latest_; }
  bool busy() const override { return false; }
  void answer(uint64_t request, const OpSpec& spec) {
    auto s = std::make_shared<Snapshot>();
    s->seq = ++seq;
    s->request = request;
    s->spec = spec;
    latest_ = s;
  }
  std::vector<RunKey> sent;
  uint64_t next_id = 0, seq = 0;
  std::shared_ptr<const Snapshot> latest_;
};

TEST(Runs, CachesResultsAndPrefetchesWhenIdle) {
  FakeRunner fake;
  Runs runs(fake);
  RunKey a{Program::single, OpSpec{}, BackendKind::gloo, {}, "native"};
  RunKey b = a;
  b.spec.op = Op::broadcast;
  runs.request(a);
  runs.poll({a, b});
  EXPECT_EQ(fake.sent.size(), 1u);  // no prefetch while a request is out
  EXPECT_TRUE(runs.waiting(a));
  fake.answer(1, a.spec);
  runs.poll({a, b});
  EXPECT_FALSE(runs.waiting(a));
  ASSERT_NE(runs.find(a), nullptr);
  EXPECT_EQ(runs.find(a)->request, 1u);
  ASSERT_EQ(fake.sent.size(), 2u);  // idle: b is fetched
  EXPECT_EQ(fake.sent[1], b);
  fake.answer(2, b.spec);
  runs.poll({a, b});
  EXPECT_NE(runs.find(b), nullptr);
  EXPECT_EQ(fake.sent.size(), 2u);  // everything cached: nothing more to run
}

// At big sizes the other ops are not run ahead (seconds each, and memory).
TEST(Runs, NoPrefetchAboveAFewMiB) {
  FakeRunner fake;
  Runs runs(fake);
  RunKey a{Program::single, OpSpec{}, BackendKind::gloo, {}, "native"};
  a.spec.elems = 10000000;
  RunKey b = a;
  b.spec.op = Op::broadcast;
  runs.request(a);
  fake.answer(1, a.spec);
  runs.poll({a, b});
  EXPECT_EQ(fake.sent.size(), 1u);
}

TEST(Runs, ReplacedRequestsAreForgotten) {
  FakeRunner fake;
  Runs runs(fake);
  RunKey a{Program::single, OpSpec{}, BackendKind::gloo, {}, "native"};
  RunKey b = a;
  b.spec.ranks = 3;
  runs.request(a);
  runs.request(b);  // the engine drops a's queued request
  fake.answer(2, b.spec);
  runs.poll({});
  EXPECT_FALSE(runs.busy());
  EXPECT_EQ(runs.find(a), nullptr);
  EXPECT_NE(runs.find(b), nullptr);
}

// A runner whose fetchValues answers from a table and counts the calls.
class FetchRunner : public FakeRunner {
 public:
  FetchedValues fetchValues(uint64_t seq, int step, int rank, BufferSide side, int64_t first,
                            int64_t count) const override {
    ++calls;
    FetchedValues f;
    f.first = first;
    if (seq != fresh_seq || step != 0 || side != BufferSide::output) {
      f.status = FetchedValues::Status::stale;
      return f;
    }
    f.status = FetchedValues::Status::ok;
    for (int64_t i = first; i < first + count; ++i) {
      const float v = float(1000 * rank + i);
      const auto* p = reinterpret_cast<const std::byte*>(&v);
      f.bytes.insert(f.bytes.end(), p, p + sizeof v);
    }
    return f;
  }
  mutable int calls = 0;
  uint64_t fresh_seq = 0;
};

// A tooltip's exact values: held ones from the snapshot, others asked of the
// engine once per snapshot and range, and "stale" said when the engine says so.
TEST(ValueFetch, HeldValuesFirstThenTheEngineOnce) {
  OpSpec spec;
  spec.op = Op::all_reduce;
  spec.ranks = 2;
  spec.elems = 1000;
  auto snap = std::make_shared<Snapshot>();
  snap->seq = 9;
  snap->spec = spec;
  snap->verified = true;
  StepResult step;
  step.spec = spec;
  std::vector<float> all(2000);
  for (int r = 0; r < 2; ++r) {
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = float(1000 * r + int(i));
    RankResult rr;
    rr.rank = r;
    for (BufferView* b : {&rr.input, &rr.output}) {
      b->present = true;
      holdValues(*b, reinterpret_cast<const std::byte*>(all.data()), all.size(), DType::f32,
                 spec.elems, false);
      b->labels.resize(2);
    }
    step.ranks.push_back(rr);
  }
  snap->steps.push_back(step);
  const DiagramModel m = buildModel(Program::single, spec, snap);
  ASSERT_TRUE(m.ran());
  FetchRunner fake;
  fake.fresh_seq = 9;
  ValueFetcher values(fake);
  // The first elements of block 1 of rank 1's output are held: no call.
  EXPECT_EQ(values.line(m, 1, 1, 1, 0, 3), "elements 0–2 (exact): 2000, 2001, 2002");
  EXPECT_EQ(fake.calls, 0);
  // The middle is not: one call, then the same answer from the cache.
  EXPECT_EQ(values.line(m, 1, 1, 0, 500, 2), "elements 500–501 (exact): 1500, 1501");
  EXPECT_EQ(values.line(m, 1, 1, 0, 500, 2), "elements 500–501 (exact): 1500, 1501");
  EXPECT_EQ(fake.calls, 1);
  EXPECT_EQ(values.fetches(), 1);
  // A newer run has used the memory: said so.
  fake.fresh_seq = 10;
  EXPECT_NE(values.line(m, 0, 0, 1, 400, 2).find("newer run"), std::string::npos);
  EXPECT_EQ(fake.calls, 2);
  // Past the block or the buffer: nothing; a range stops at its block's end.
  EXPECT_EQ(values.line(m, 1, 0, 0, 1000, 2), "");
  EXPECT_EQ(values.line(m, 1, 0, 2, 0, 2), "");
  EXPECT_EQ(values.line(m, 1, 0, 0, 998, 5), "elements 998–999 (exact): 998, 999");
  EXPECT_EQ(elementAt(1000, 0.0f), 0);
  EXPECT_EQ(elementAt(1000, 0.5f), 500);
  EXPECT_EQ(elementAt(1000, 1.0f), 999);
}

TEST(Progress, TextNamesThePhaseFractionAndStep) {
  Progress p;
  p.request = 3;
  p.phase = Progress::Phase::op;
  EXPECT_EQ(progressText(p, 1.25), "running the op · 1.2 s");
  p.phase = Progress::Phase::verify;
  p.fraction = 0.42;
  p.step = 1;
  p.steps = 3;
  EXPECT_EQ(progressText(p, 12), "checking 42% · step 2 of 3 · 12.0 s");
  Snapshot s;
  EXPECT_EQ(cancelledNote(&s), "");
  s.cancelled = true;
  EXPECT_NE(cancelledNote(&s).find("cancelled"), std::string::npos);
}

// Runs::cancel reaches the runner with the pending request's id only.
class CancelRunner : public FakeRunner {
 public:
  bool cancel(uint64_t id) override {
    cancelled.push_back(id);
    return true;
  }
  std::vector<uint64_t> cancelled;
};

TEST(Runs, CancelSendsThePendingRequest) {
  CancelRunner fake;
  Runs runs(fake);
  RunKey a{Program::single, OpSpec{}, BackendKind::gloo, {}, "native"};
  RunKey b = a;
  b.spec.ranks = 3;
  EXPECT_FALSE(runs.cancel(a));  // nothing in flight
  runs.request(a);
  runs.request(b);
  EXPECT_EQ(runs.pendingId(b), 2u);
  EXPECT_TRUE(runs.cancel(b));
  EXPECT_EQ(fake.cancelled, std::vector<uint64_t>{2});
}

TEST(Text, AsciiFallbackKeepsSubscriptsLegible) {
  EXPECT_EQ(asciiFallback("Σ₀ → A₁₂ — x·y"), "S_0 -> A_12 - x*y");
  EXPECT_EQ(asciiFallback("Σᵢ"), "S_i");
  EXPECT_EQ(asciiFallback("plain"), "plain");
  EXPECT_EQ(asciiFallback("↻ run again · 12.3 µs ← →"), "(r) run again * 12.3 us <- ->");
}

// CJK runs (set in the CJK font at the measured size by the SVG and PDF
// writers): ideographs and full-width punctuation apart from Latin, in order.
TEST(Text, CjkRunsSplitChineseFromLatin) {
  auto shown = [](const std::string& t) {
    std::string out;
    for (const TextRun& r : cjkRuns(t)) out += (r.cjk ? "{" : "[") + r.text + (r.cjk ? "}" : "]");
    return out;
  };
  EXPECT_EQ(shown("H中"), "[H]{中}");
  EXPECT_EQ(shown("每行一张 GPU：R0 的 Σ₀"), "{每行一张}[ GPU]{：}[R0 ]{的}[ Σ₀]");
  EXPECT_EQ(shown("plain · text"), "[plain · text]");
  EXPECT_EQ(shown(""), "");
  EXPECT_TRUE(isCjk(U'中'));
  EXPECT_TRUE(isCjk(U'，'));
  EXPECT_FALSE(isCjk(U'Σ'));
  EXPECT_FALSE(isCjk(U'→'));
}

// Every non-ASCII symbol in a string the app draws has an ASCII spelling.
// Chinese text is drawn only with a CJK font (without one the UI is in
// English), so its code points need none.
bool hasCjk(const std::string& s) {
  for (char32_t c : toCodePoints(s))
    if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xff00 && c <= 0xffef)) return true;
  return false;
}

TEST(Text, AsciiFallbackCoversEverySymbolInTheSources) {
  namespace fs = std::filesystem;
  for (const auto& e : fs::recursive_directory_iterator(COLLVIZ_SOURCE_DIR "/app")) {
    const std::string ext = e.path().extension();
    if (ext != ".cpp" && ext != ".h") continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      const std::string code = line.substr(0, line.find("//"));
      for (std::size_t q = code.find('"'); q != std::string::npos;) {
        const std::size_t end = code.find('"', q + 1);
        if (end == std::string::npos) break;
        const std::string literal = code.substr(q + 1, end - q - 1);
        if (hasCjk(literal)) {
          q = code.find('"', end + 1);
          continue;
        }
        const std::string ascii = asciiFallback(literal);
        EXPECT_EQ(std::count(ascii.begin(), ascii.end(), '?'),
                  std::count(literal.begin(), literal.end(), '?'))
            << e.path().filename() << ": no ASCII for a symbol in \"" << literal << "\"";
        q = code.find('"', end + 1);
      }
    }
  }
  EXPECT_EQ(codePoints("Σ₀A"), 3);
}

TEST(Shaders, AllFilesAreEmbedded) {
  for (const char* f : {"shaders/tile.vert", "shaders/tile.frag", "shaders/curve.vert",
                        "shaders/curve.frag", "shaders/solid.vert", "shaders/solid.frag"}) {
    const ShaderSource* s = findShader(f);
    ASSERT_NE(s, nullptr) << f;
    EXPECT_EQ(std::string(s->text).rfind("#version 330 core", 0), 0u) << f;
  }
}

TEST(Shaders, ErrorsNameTheFileAndLine) {
  EXPECT_EQ(annotateShaderLog("shaders/tile.frag", "0:12(5): error: `x' undeclared\n"),
            "shaders/tile.frag:12: error: `x' undeclared\n");
  EXPECT_EQ(annotateShaderLog("shaders/tile.frag", "0(7) : error C1008: undefined variable \"y\""),
            "shaders/tile.frag:7: error C1008: undefined variable \"y\"\n");
  EXPECT_EQ(annotateShaderLog("shaders/a.vert", "ERROR: 0:3: 'z' : undeclared identifier"),
            "shaders/a.vert:3: 'z' : undeclared identifier\n");
}


TEST(StatusLine, ANarrowViewCutsTheDevicesNeverTheVerdict) {
  Snapshot s;
  s.backend = {"gloo", "0.5.0", "CPU (2 cores), one process per rank", "tcp on 127.0.0.1 (loopback), full mesh", ""};
  s.verified = true;
  StatusLineParams p;
  p.shown = &s;
  p.max_width = 400;
  p.measure = [](const std::string& t, TextStyle, float size) { return 0.5f * size * float(codePoints(t)); };
  const std::vector<TextItem> items = statusLineTexts(p, makeTheme(ThemeKind::light));
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items.back().text, "✓ verified against the oracle");
  std::string line;
  float right = 0;
  for (const TextItem& t : items) {
    line += t.text;
    right = std::max(right, t.anchor.x + p.measure(t.text, t.style, t.size));
  }
  EXPECT_NE(line.find("…"), std::string::npos) << line;  // the devices were cut
  EXPECT_LE(right, 400.5f) << line;
}

TEST(StatusLine, AFigureKeepsOnlyTheNotesOfWhatItDraws) {
  const std::string gloo =
      "reduce_scatter: gloo::ReduceScatterHalvingDoubling on a scratch copy of the input; avg: Gloo has "
      "no average, collviz runs sum and divides by N in each rank after the call; bf16: not supported by Gloo";
  OpSpec s;
  s.op = Op::broadcast;
  s.redop = RedOp::avg;  // broadcast does not reduce: avg is not drawn
  EXPECT_EQ(notesForFigure(gloo, Program::single, s, false), "");
  s.op = Op::reduce_scatter;
  EXPECT_EQ(notesForFigure(gloo, Program::single, s, false),
            "reduce_scatter: gloo::ReduceScatterHalvingDoubling on a scratch copy of the input; avg: Gloo has "
            "no average, collviz runs sum and divides by N in each rank after the call");
  EXPECT_EQ(notesForFigure(gloo, Program::single, s, true).rfind("avg:", 0), 0u);  // rounds: no op call
  s.op = Op::all_reduce;
  s.redop = RedOp::sum;
  s.dtype = DType::bf16;
  EXPECT_EQ(notesForFigure(gloo, Program::all_reduce_decomposed, s, false),
            "reduce_scatter: gloo::ReduceScatterHalvingDoubling on a scratch copy of the input; bf16: not "
            "supported by Gloo");
  const std::string nccl =
      "gather/scatter/all_to_all: native ncclGather/ncclScatter/ncclAlltoAll; avg: ncclAvg; blocking "
      "communicator, watchdog abort; GPU sharing: host-id route (NCCL_HOSTID per slot; socket transport on "
      "loopback, host bandwidth, not NVLink); FAULT INJECTED: COLLVIZ_FAULT=swap (results are wrong on purpose)";
  s = OpSpec{};
  s.op = Op::gather;
  EXPECT_EQ(notesForFigure(nccl, Program::single, s, false),
            "gather/scatter/all_to_all: native ncclGather/ncclScatter/ncclAlltoAll; FAULT INJECTED: "
            "COLLVIZ_FAULT=swap (results are wrong on purpose)");

  // Without --status a verified figure has no line under it; a file never
  // says another backend is unavailable, nor the transport.
  Snapshot snap;
  snap.spec = s;
  snap.backend = {"gloo", "0.5.0", "CPU (2 cores)", "tcp on 127.0.0.1 (loopback), full mesh", gloo};
  snap.verified = true;
  snap.notice = "NCCL unavailable (cudaGetDeviceCount: no driver); using Gloo on CPU";
  StatusLineParams p;
  p.shown = &snap;
  p.figure = true;
  p.machine = false;
  EXPECT_EQ(statusLineCount(p), 0);
  p.machine = true;
  std::string all;
  for (const TextItem& t : statusLineTexts(p, makeTheme(ThemeKind::light))) all += t.text + "\n";
  EXPECT_NE(all.find("gloo 0.5.0"), std::string::npos) << all;
  EXPECT_NE(all.find("CPU (2 cores)"), std::string::npos) << all;
  for (const char* no : {"unavailable", "tcp on", "reduce_scatter", "avg", "bf16"})
    EXPECT_EQ(all.find(no), std::string::npos) << no << " in " << all;
  p.figure = false;  // the window: the transport and the notice, but no note of another op
  EXPECT_EQ(statusLineCount(p), 2);
  all.clear();
  for (const TextItem& t : statusLineTexts(p, makeTheme(ThemeKind::light))) all += t.text + "\n";
  EXPECT_NE(all.find("tcp on"), std::string::npos) << all;
  EXPECT_NE(all.find("unavailable"), std::string::npos) << all;
}

// The window's status lines concern the view on screen: under a broadcast
// no reduce_scatter or avg note; under a reduce_scatter with avg both; an
// algorithm's rounds drop the op call's note; the machine's own notes (GPU
// sharing, a fault) stay. The backend's line is the one `collviz run` prints.
TEST(StatusLine, TheWindowKeepsTheNotesOfTheViewOnScreen) {
  const Said gloo = joined({say("reduce_scatter: gloo::ReduceScatterHalvingDoubling on a scratch copy of the input"),
                            say("avg: Gloo has no average, collviz runs sum and divides by N in each rank after the call"),
                            lit("bf16: not supported by Gloo; GPU sharing: host-id route")});
  Snapshot snap;
  snap.backend = {"gloo", "0.5.0", "CPU (2 cores), one process per rank", "tcp on 127.0.0.1 (loopback), full mesh", gloo};
  snap.verified = true;
  snap.spec.op = Op::broadcast;
  snap.spec.redop = RedOp::avg;  // broadcast does not reduce: avg is not on screen
  StatusLineParams p;
  p.shown = &snap;  // the window's view: machine on, not a figure
  auto lines = [&] {  // one text line per status line
    std::string all;
    float y = -1;
    for (const TextItem& t : statusLineTexts(p, makeTheme(ThemeKind::light))) {
      if (y >= 0 && t.anchor.y != y) all += "\n";
      all += t.text;
      y = t.anchor.y;
    }
    return all;
  };
  std::string all = lines();
  EXPECT_EQ(all.rfind(backendLine(snap.backend).text() + " · ", 0), 0u) << all;
  for (const char* no : {"reduce_scatter", "avg:", "bf16"}) EXPECT_EQ(all.find(no), std::string::npos) << no << " in " << all;
  EXPECT_NE(all.find("GPU sharing: host-id route"), std::string::npos) << all;
  snap.spec.op = Op::reduce_scatter;
  all = lines();
  EXPECT_NE(all.find("reduce_scatter: gloo::ReduceScatterHalvingDoubling"), std::string::npos) << all;
  EXPECT_NE(all.find("avg: Gloo has no average"), std::string::npos) << all;
  EXPECT_EQ(all.find("bf16"), std::string::npos) << all;
  snap.spec.dtype = DType::bf16;
  EXPECT_NE(lines().find("bf16: not supported by Gloo"), std::string::npos) << lines();
  p.rounds = true;  // the ring's rounds: no reduce_scatter call
  all = lines();
  EXPECT_EQ(all.find("reduce_scatter:"), std::string::npos) << all;
  EXPECT_NE(all.find("avg: Gloo has no average"), std::string::npos) << all;
  EXPECT_EQ(notesForView(gloo, Program::single, snap.spec, true),
            "avg: Gloo has no average, collviz runs sum and divides by N in each rank after the call; bf16: not "
            "supported by Gloo; GPU sharing: host-id route");
}

// On the NCCL backend the window's backend line says what NCCL chose for the
// op on screen, read from the ranks' own log (nccl_log::lastChoice, here on
// a log folder written as NCCL writes it); never under an algorithm's rounds.
TEST(StatusLine, TheWindowSaysNcclsChoiceForTheOp) {
  const std::string dir = ::testing::TempDir() + "collviz-nccl-choice";
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/nccl.h.1");
    const std::string p = "h:1:1 [0] NCCL INFO ";
    f << p << "NCCL version 2.28.9+cuda13.0\n"
      << p << "comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0\n"
      << p << "AllReduce: 1024 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..1}\n"
      << p << "AllGather: 4096 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..15}\n"
      << p << "AllReduce: 65536 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..3}\n";
  }
  auto choice = nccl_log::lastChoice(dir, Op::all_reduce);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->bytes, 65536);  // the last of the op's lines
  EXPECT_FALSE(nccl_log::lastChoice(dir, Op::scatter).has_value());  // NCCL has no scatter call of its own
  EXPECT_FALSE(nccl_log::lastChoice("", Op::all_reduce).has_value());
  Snapshot snap;
  snap.backend = {"nccl", "2.28.9", "1 x NVIDIA H200 (139 GiB)", "socket over lo", Said{}};
  snap.verified = true;
  snap.spec.op = Op::all_reduce;
  snap.nccl_choice = nccl_log::choiceText(*choice);
  StatusLineParams p;
  p.shown = &snap;
  std::string all;
  for (const TextItem& t : statusLineTexts(p, makeTheme(ThemeKind::light))) all += t.text;
  EXPECT_NE(all.find("NCCL: RING · SIMPLE · channels 0–3"), std::string::npos) << all;
  p.rounds = true;
  all.clear();
  for (const TextItem& t : statusLineTexts(p, makeTheme(ThemeKind::light))) all += t.text;
  EXPECT_EQ(all.find("NCCL: RING"), std::string::npos) << all;
  std::filesystem::remove_all(dir);
}

// The notes as the worker sends them (a joined() message): filtered on the
// items' English keys, shown in the reader's language; a plain-string part
// (notes from before messages) still splits into its items.
TEST(StatusLine, AFiguresNotesAreInTheReadersLanguage) {
  const Said notes = joined({say("FAULT INJECTED: COLLVIZ_FAULT={0} (results are wrong on purpose)", "swap"),
                             say("reduce_scatter: gloo::ReduceScatterHalvingDoubling on a scratch copy of the input"),
                             say("avg: Gloo has no average, collviz runs sum and divides by N in each rank after the call"),
                             lit("bf16: not supported by Gloo; f16: as it is")});
  OpSpec s;
  s.op = Op::reduce_scatter;
  s.redop = RedOp::sum;
  s.dtype = DType::bf16;
  const std::string en =
      "FAULT INJECTED: COLLVIZ_FAULT=swap (results are wrong on purpose); reduce_scatter: "
      "gloo::ReduceScatterHalvingDoubling on a scratch copy of the input; bf16: not supported by Gloo";
  EXPECT_EQ(notesForFigure(notes, Program::single, s, false), en);
  EXPECT_EQ(notesForFigure(Said(std::string(notes)), Program::single, s, false), en);  // a plain string
  setLanguage(Lang::zh);
  const std::string zh = notesForFigure(notes, Program::single, s, false);
  setLanguage(Lang::en);
  EXPECT_EQ(zh,
            "已注入故障：COLLVIZ_FAULT=swap（结果是故意出错的）；reduce_scatter：在输入的临时副本上运行 "
            "gloo::ReduceScatterHalvingDoubling；bf16: not supported by Gloo");
}

}  // namespace
}  // namespace collviz::ui
