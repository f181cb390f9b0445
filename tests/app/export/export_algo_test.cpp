// `collviz export --algo`: a round of every algorithm as PNG, the animated
// GIF (frame count, first frame against the round-0 PNG), byte-identical
// repeats, and the errors for what does not fit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "app/view/round_model.h"
#include "app/view/round_play.h"
#include "tests/app/export/export_support.h"

namespace collviz::test {
namespace {

const Op kOps[] = {Op::broadcast,  Op::scatter,        Op::gather,     Op::reduce,
                   Op::all_gather, Op::reduce_scatter, Op::all_reduce, Op::all_to_all};

long pixelsApart(const Png& a, const Png& b, int fuzz) {
  long n = 0;
  for (size_t i = 0; i + 2 < a.rgb.size() && i + 2 < b.rgb.size(); i += 3)
    for (int c = 0; c < 3; ++c)
      if (std::abs(int(a.rgb[i + c]) - int(b.rgb[i + c])) > fuzz) {
        ++n;
        break;
      }
  return n;
}

std::string shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

TEST(AlgoExport, ARoundOfEveryAlgorithmForEveryOp) {
  const std::string dir = freshDir("algo_rounds");
  for (Op op : kOps) {
    for (const std::string& algo : ui::algoChoices(op)) {
      if (algo == "native") continue;
      const std::string stem = dir + "/" + std::string(name(op)) + "_" + algo;
      const std::string base = "export --op " + std::string(name(op)) + " --algo " + algo +
                               " --ranks 4 --backend gloo --size 800x480 ";
      RunResult r1 = collviz(base + "--step 1 -o " + stem + "_1.png");
      ASSERT_EQ(r1.rc, 0) << r1.out;
      RunResult r0 = collviz(base + "--step 0 -o " + stem + "_0.png");
      ASSERT_EQ(r0.rc, 0) << r0.out;
      const Png a = loadPng(stem + "_0.png"), b = loadPng(stem + "_1.png");
      ASSERT_EQ(b.width, 800) << stem;
      ASSERT_EQ(b.height, 480) << stem;
      // Round 1 has arrows and written slots: the picture changes.
      EXPECT_GT(pixelsApart(a, b, 24), 500) << stem;
    }
  }
}

TEST(AlgoExport, GifHasEveryRoundAndItsFirstFrameIsRoundZero) {
  if (!haveTool("identify") || !haveTool("convert")) GTEST_SKIP() << "ImageMagick missing";
  const std::string dir = freshDir("algo_gif");
  const std::string base = "export --op all_reduce --algo ring --ranks 4 --backend gloo --size 800x480 ";
  for (const char* f : {"a.gif", "b.gif"}) {
    RunResult r = collviz(base + "--format gif --tween 2 -o " + dir + "/" + f);
    ASSERT_EQ(r.rc, 0) << r.out;
  }
  // 7 states (start + 6 rounds) and 2 frames in flight before each round.
  EXPECT_EQ(shell("identify " + dir + "/a.gif | wc -l"), "19\n");
  EXPECT_EQ(readFile(dir + "/a.gif"), readFile(dir + "/b.gif")) << "GIF not reproducible";
  for (const char* f : {"r0.png", "r0_again.png"}) {
    RunResult r = collviz(base + "--step 0 -o " + dir + "/" + f);
    ASSERT_EQ(r.rc, 0) << r.out;
  }
  EXPECT_EQ(readFile(dir + "/r0.png"), readFile(dir + "/r0_again.png")) << "PNG not reproducible";
  // Every frame, whole (coalesced), against the PNG of its round: frame
  // 3k is round k (k = 0..6), frames 3k-2 and 3k-1 the blocks in flight.
  shell("convert '" + dir + "/a.gif' -coalesce " + dir + "/frame_%d.png");
  std::vector<Png> rounds;
  for (int k = 0; k <= 6; ++k) {
    const std::string png = dir + "/r" + std::to_string(k) + (k == 0 ? ".png" : "_step.png");
    if (k > 0) {
      RunResult r = collviz(base + "--step " + std::to_string(k) + " -o " + png);
      ASSERT_EQ(r.rc, 0) << r.out;
    }
    rounds.push_back(loadPng(png));
  }
  auto frame = [&](int i) { return loadPng(dir + "/frame_" + std::to_string(i) + ".png"); };
  for (int k = 0; k <= 6; ++k) {
    SCOPED_TRACE("round " + std::to_string(k) + " (frame " + std::to_string(3 * k) + ")");
    const Png f = frame(3 * k), &png = rounds[std::size_t(k)];
    ASSERT_EQ(f.width, png.width);
    ASSERT_EQ(f.height, png.height);
    // A 256-colour palette keeps the article's colours; only anti-aliased
    // edges move to their nearest palette colour.
    const long apart = pixelsApart(f, png, 40);
    EXPECT_LE(apart, long(png.width) * png.height / 100) << apart << " pixels differ by more than 40 levels";
    // And it is not the neighbouring round's picture (which differs a lot).
    if (k > 0) { EXPECT_GT(pixelsApart(f, rounds[std::size_t(k - 1)], 40), 3 * apart + 500); }
    if (k < 6) { EXPECT_GT(pixelsApart(f, rounds[std::size_t(k + 1)], 40), 3 * apart + 500); }
    if (k == 0) continue;
    // The tweens: blocks on their way, a picture of its own between the two rounds.
    for (int i = 3 * k - 2; i < 3 * k; ++i) {
      const Png t = frame(i);
      EXPECT_GT(pixelsApart(t, rounds[std::size_t(k - 1)], 40), 200) << "tween frame " << i;
      EXPECT_GT(pixelsApart(t, png, 40), 200) << "tween frame " << i;
    }
    EXPECT_GT(pixelsApart(frame(3 * k - 2), frame(3 * k - 1), 40), 50) << "the blocks did not move";
  }
}

// A reader meets the question first (issue 57): without --step an
// algorithm's figure is round 0, as the window opens it, and the page
// opens at round 0 with its slider's label filled in.
TEST(AlgoExport, WithoutStepTheStartAndThePageOpensAtRoundZero) {
  const std::string dir = freshDir("algo_start");
  const std::string base = "export --op all_reduce --algo ring --ranks 4 --backend gloo --size 800x480 ";
  RunResult plain = collviz(base + "-o " + dir + "/plain.svg");
  ASSERT_EQ(plain.rc, 0) << plain.out;
  RunResult zero = collviz(base + "--step 0 -o " + dir + "/zero.svg");
  ASSERT_EQ(zero.rc, 0) << zero.out;
  RunResult last = collviz(base + "--step 6 -o " + dir + "/last.svg");
  ASSERT_EQ(last.rc, 0) << last.out;
  EXPECT_EQ(readFile(dir + "/plain.svg"), readFile(dir + "/zero.svg")) << "without --step: not round 0";
  EXPECT_NE(readFile(dir + "/plain.svg"), readFile(dir + "/last.svg"));
  RunResult page = collviz(base + "--format html -o " + dir + "/ring.html");
  ASSERT_EQ(page.rc, 0) << page.out;
  const std::string html = readFile(dir + "/ring.html");
  EXPECT_NE(html.find("class=\"cv-fig cv-rounds\" id=\"f1\" data-ranks=\"4\" data-state=\"0\""), std::string::npos)
      << html.substr(0, 2000);
  EXPECT_NE(html.find("value=\"0\" aria-label=\"round 0/6\""), std::string::npos) << "the slider's label";
  EXPECT_EQ(html.find("aria-label=\"round {0}/{1}\""), std::string::npos) << "a label never filled in";
  // The page follows the reader's light or dark: the run's notice about
  // what `auto` chose is no news on stderr (--backend gloo named it here; auto below).
  RunResult autoPage = collviz("export --op all_reduce --ranks 2 --size 800x480 --format html -o " + dir + "/auto.html");
  ASSERT_EQ(autoPage.rc, 0) << autoPage.out;
  EXPECT_EQ(autoPage.out.find("unavailable"), std::string::npos) << autoPage.out;
}

// collviz's help names every format export writes (issue 57: it said PNG/SVG only).
TEST(AlgoExport, HelpNamesEveryFormat) {
  RunResult help = collviz("export --help");
  EXPECT_EQ(help.rc, 0) << help.out;
  for (const char* f : {"PNG", "SVG", "HTML", "GIF", "png, svg, html or gif"})
    EXPECT_NE(help.out.find(f), std::string::npos) << f << "\n" << help.out;
  RunResult top = collviz("--help");
  for (const char* f : {"HTML", "PDF"}) EXPECT_NE(top.out.find(f), std::string::npos) << f << "\n" << top.out;
}

TEST(AlgoExport, ErrorsNameWhatIsAllowed) {
  const std::string dir = freshDir("algo_errors");
  struct Case {
    std::string args, says;
  };
  const Case cases[] = {
      {"--op all_to_all --algo ring -o " + dir + "/x.png", "algorithms for all_to_all"},
      {"--op all_reduce --algo ring --step 9 -o " + dir + "/x.png", "allowed: 0 to 6"},
      {"--op all_reduce --format gif -o " + dir + "/x.gif", "--format gif animates"},
      {"--op all_reduce --algo ring --tween 3 -o " + dir + "/x.png", "--tween applies"},
      {"--op all_reduce --algo ring --step 1 --format gif -o " + dir + "/x.gif", "--step picks one round"},
  };
  for (const Case& c : cases) {
    RunResult r = collviz("export --backend gloo --ranks 4 " + c.args);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.args << "\n" << r.out;
  }
}

}  // namespace
}  // namespace collviz::test
