// A job's figure (app/view/job_figure, written by app/files/nccl_log_svg):
// the ranks outlined are the ranks that never entered the collective the
// others wait in, and the verdict is on it, in English and 中文; a mismatch
// is outlined on the rank that differs; a rank with no dump says so. On
// dumps written as PyTorch writes them (tests/engine/job/fr_writer.h) and
// on the three real Flight Recorder runs of ../shared/data (skipped, saying
// so, where that folder is missing): each run's expected.txt names the
// missing ranks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "app/files/nccl_log_png.h"
#include "app/files/nccl_log_svg.h"
#include "app/lang/lang.h"
#include "app/view/job_call.h"
#include "app/view/job_figure.h"
#include "tests/engine/job/fr_writer.h"

namespace collviz::ui {
namespace {

namespace fs = std::filesystem;

std::set<int> ranksOf(const std::string& svg, const std::string& cls) {
  std::set<int> out;
  const std::regex re("<rect class=\"" + cls + "\" data-rank=\"(\\d+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) out.insert(std::stoi((*it)[1]));
  return out;
}

std::string escaped(std::string s) {
  std::string out;
  for (char c : s) out += c == '&' ? std::string("&amp;") : c == '<' ? std::string("&lt;") : c == '>' ? std::string("&gt;") : c == '"' ? std::string("&quot;") : std::string(1, c);
  return out;
}

struct Drawn {
  std::string svg, verdict;
};

Drawn draw(const std::vector<std::string>& paths) {
  auto job = job::read(paths);
  EXPECT_TRUE(job.ok()) << (job.ok() ? "" : job.error().message);
  if (!job.ok()) return {};
  const job::Analysis a = job::analyse(*job);
  JobFigureParams p;
  p.say = [](const Text& t) { return render(t); };
  auto fig = jobFigure(*job, a, p);
  EXPECT_TRUE(fig.ok());
  if (!fig.ok()) return {};
  return {figureToSvg(*fig), render(a.verdict)};
}

// Four ranks in one group: three enter all_reduce #4 and wait, rank 2
// never does; rank 1's #3 is Half where the others' is Float.
class Fixture : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("collviz_job_figure_test_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override {
    fs::remove_all(dir);
    setLanguage(Lang::en);
  }
  void write(int rank, bool differ) {
    test::FrDump d;
    d.groups = {{"0", "default_pg", {0, 1, 2, 3}}, {"5", "TENSOR_MODEL_PARALLEL_GROUP", {0, 1, 2, 3}}};
    const int last = rank == 2 ? 3 : 4;
    for (int s = 1; s <= last; ++s) {
      test::FrEntry e;
      e.pg = "5", e.desc = "TENSOR_MODEL_PARALLEL_GROUP", e.pgId = 1, e.seq = s, e.record = s;
      e.state = s < 4 ? "completed" : "started";
      if (differ && rank == 1 && s == 3) e.dtype = "Half";
      d.entries.push_back(e);
    }
    d.status[1] = {last, last, 3};
    std::ofstream(dir / ("_dump_" + std::to_string(rank)), std::ios::binary) << test::pickleDump(d);
  }
};

TEST_F(Fixture, TheRankThatNeverEnteredIsOutlinedAndTheVerdictIsOnTheFigure) {
  for (int r = 0; r < 4; ++r) write(r, false);
  const Drawn d = draw({dir.string()});
  EXPECT_EQ(ranksOf(d.svg, "culprit"), std::set<int>({2}));
  EXPECT_NE(d.verdict.find("rank 2 never entered all_reduce #4"), std::string::npos) << d.verdict;
  EXPECT_NE(d.svg.find(escaped(d.verdict)), std::string::npos);
  EXPECT_NE(d.svg.find("data-rank=\"2\" data-seq=\"4\" data-state=\"never\""), std::string::npos);
  for (int r : {0, 1, 3}) EXPECT_NE(d.svg.find("data-rank=\"" + std::to_string(r) + "\" data-seq=\"4\" data-state=\"started\""), std::string::npos) << r;
  EXPECT_NE(d.svg.find("data-rank=\"0\" data-seq=\"3\" data-state=\"completed\""), std::string::npos);
  setLanguage(Lang::zh);
  const Drawn zh = draw({dir.string()});
  EXPECT_NE(zh.verdict.find("从未进入"), std::string::npos) << zh.verdict;
  EXPECT_NE(zh.svg.find(escaped(zh.verdict)), std::string::npos);
  EXPECT_NE(zh.svg.find("从未进入"), std::string::npos);
}

TEST_F(Fixture, AMismatchIsOutlinedOnTheRankThatDiffersAndAMissingDumpIsSaid) {
  for (int r : {0, 1, 3}) write(r, true);  // rank 2's dump is missing
  const Drawn d = draw({dir.string()});
  EXPECT_NE(d.svg.find("class=\"mismatch\" data-rank=\"1\" data-seq=\"3\""), std::string::npos);
  EXPECT_EQ(d.svg.find("class=\"mismatch\" data-rank=\"0\""), std::string::npos);
  EXPECT_NE(d.svg.find(">no dump<"), std::string::npos);
}

// The window's click: every tile maps back to its call (a "never entered"
// tile to the call the others wait in), and a call opens as collviz's own
// op at its shape, within a backend's limits, each change said.
TEST_F(Fixture, AClickOnATileOpensItsCallAsCollvizsOwnOp) {
  for (int r = 0; r < 4; ++r) write(r, false);
  auto j = job::read({dir.string()});
  ASSERT_TRUE(j.ok()) << j.error().message;
  auto f = jobFigure(*j, job::analyse(*j), JobFigureParams{});
  ASSERT_TRUE(f.ok());
  int tiles = 0, never = -1;
  for (const NcclShape& s : f->shapes) {
    if (s.call < 0) continue;
    ++tiles;
    EXPECT_EQ(jobFigureCallAt(*f, s.x0 + s.x1 / 2, s.y0 + s.y1 / 2), s.call);
    const job::Call& c = j->calls[std::size_t(s.call)];
    EXPECT_NE(s.data.find("data-seq=\"" + std::to_string(c.seq) + "\""), std::string::npos) << s.data;
    if (s.cls == "never") never = s.call;
    else EXPECT_NE(s.data.find("data-rank=\"" + std::to_string(c.rank) + "\""), std::string::npos) << s.data;
  }
  EXPECT_EQ(tiles, 4 * 4);  // ranks 0, 1, 3: #1-#4; rank 2: #1-#3 and its "never entered" #4
  ASSERT_GE(never, 0);
  EXPECT_EQ(j->calls[std::size_t(never)].seq, 4);
  EXPECT_EQ(jobFigureCallAt(*f, 1, 1), -1);

  AppState s;
  s.view.algo = "ring";
  const JobCallOpened r = openJobCall(s, *j, never);
  ASSERT_TRUE(r.ok) << std::string(r.what);
  EXPECT_EQ(s.entry, int(Op::all_reduce));
  EXPECT_EQ(s.spec.op, Op::all_reduce);
  EXPECT_EQ(s.spec.ranks, 4);
  EXPECT_EQ(s.spec.dtype, DType::f32);
  EXPECT_GT(s.spec.elems, 0);
  EXPECT_EQ(s.view.algo, "native");
  EXPECT_NE(std::string(r.what).find("all_reduce #4 TENSOR_MODEL_PARALLEL_GROUP (5) opened as all_reduce: 4 ranks, f32"), std::string::npos)
      << std::string(r.what);

  // A backend without f32 and with room for 16 elements a rank: both said.
  BackendCaps small;
  small.name = "small";
  small.dtypes = {DType::f16};
  small.max_rank_bytes = 64;
  AppState g;
  const JobCallOpened rg = openJobCall(g, *j, never, &small);
  ASSERT_TRUE(rg.ok) << std::string(rg.what);
  EXPECT_EQ(g.spec.dtype, DType::f16);
  EXPECT_LE(g.spec.elems, 16);
  std::string changes;
  for (const Said& c : rg.changes) changes += std::string(c) + "\n";
  EXPECT_NE(changes.find("f32 run as f16: backend small has no f32"), std::string::npos) << changes;
  EXPECT_NE(changes.find("capped to"), std::string::npos) << changes;

  AppState t;
  const JobCallOpened none = openJobCall(t, *j, -1);
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(std::string(none.what), "no such call");
  EXPECT_EQ(t.entry, AppState{}.entry);
}

TEST(JobFigure, NothingToDrawIsAnError) {
  job::Job empty;
  auto fig = jobFigure(empty, job::analyse(empty), JobFigureParams{});
  ASSERT_FALSE(fig.ok());
  EXPECT_NE(fig.error().message.find("hold no rank, collective, RAS report or nccl-tests table"), std::string::npos) << fig.error().message;
}

// The real runs: the outlined ranks are exactly expected.txt's missing
// ranks, the verdict is on the figure, in both languages; the PNG draws.
TEST(JobFigure, RealFlightRecorderRunsOutlineTheExpectedRanks) {
  const fs::path root = fs::path(COLLVIZ_JOB_DATA_DIR) / "flight-recorder";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is missing: the real runs are not committed (see docs/jobs.md)";
  int runs = 0;
  for (const char* run : {"gpu_error_1st", "lock_gil_1st", "lock_gil_2nd"}) {
    const fs::path dir = root / run;
    std::ifstream in(dir / "expected.txt");
    ASSERT_TRUE(in) << dir;
    std::set<int> expected;
    std::string line;
    std::getline(in, line);  // the head
    while (std::getline(in, line)) {
      const std::string cell = line.substr(line.rfind('|') + 1);
      std::stringstream ss(cell);
      for (std::string r; std::getline(ss, r, ',');)
        if (r.find_first_of("0123456789") != std::string::npos) expected.insert(std::stoi(r));
    }
    for (Lang lang : {Lang::en, Lang::zh}) {
      setLanguage(lang);
      const Drawn d = draw({dir.string()});
      EXPECT_EQ(ranksOf(d.svg, "culprit"), expected) << run;
      EXPECT_FALSE(d.verdict.empty());
      EXPECT_NE(d.svg.find(escaped(d.verdict)), std::string::npos) << run << ": " << d.verdict;
    }
    ++runs;
  }
  setLanguage(Lang::en);
  EXPECT_EQ(runs, 3);
}

}  // namespace
}  // namespace collviz::ui
