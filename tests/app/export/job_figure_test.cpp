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
