// Lecture scripts, playing them, captions, and the string table, without a
// window: every shipped script loads, bad scripts name file:line and the
// field, and no tr("...") in app/ is missing from the table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "app/lang/lang.h"
#include "app/lecture/deck.h"
#include "app/lecture/player.h"
#include "app/view/caption.h"
#include "engine/collectives.h"
#include "engine/group/protocol.h"

namespace collviz::lecture {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> shipped() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(COLLVIZ_SOURCE_DIR "/assets/lectures"))
    if (e.path().extension() == ".toml") out.push_back(e.path().string());
  return out;
}

TEST(Lecture, EveryShippedScriptLoadsInBothLanguages) {
  ASSERT_GE(shipped().size(), 2u);
  for (const std::string& f : shipped()) {
    Result<Lecture> l = loadLecture(f);
    ASSERT_TRUE(l) << l.error().message;
    EXPECT_FALSE(l->title.en.empty()) << f;
    EXPECT_FALSE(l->title.zh.empty()) << f;
    for (const Step& s : l->steps) {
      EXPECT_FALSE(s.caption.en.empty()) << f << ":" << s.line;
      EXPECT_FALSE(s.caption.zh.empty()) << f << ":" << s.line;
    }
  }
}

TEST(Lecture, TheArticleTourFollowsTheArticle) {
  Result<Lecture> l = loadLecture(COLLVIZ_SOURCE_DIR "/assets/lectures/article_tour.toml");
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_EQ(l->steps.size(), 15u);
  for (int i = 0; i < kOpCount; ++i) EXPECT_EQ(l->steps[i].spec.op, Op(i));
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(l->steps[8 + r].spec.op, Op::all_to_all);
    EXPECT_EQ(l->steps[8 + r].trace_rank, r);
  }
  for (int st = 0; st < 3; ++st) {
    EXPECT_EQ(l->steps[12 + st].program, Program::all_reduce_decomposed);
    EXPECT_EQ(l->steps[12 + st].state, st);
    EXPECT_EQ(l->steps[12 + st].trace_rank, -1);
  }
  EXPECT_NE(l->steps[0].caption.zh.find("整份复制"), std::string::npos);
  EXPECT_NE(l->steps[7].caption.zh.find("按列交换"), std::string::npos);
}

TEST(Lecture, AuthorAndDateForTheTitleSlide) {
  auto l = parseLecture("title = \"T\"\nauthor = \"Ada\"\ndate.en = \"May 2026\"\ndate.zh = \"2026年5月\"\n"
                        "[[step]]\nop = \"broadcast\"\n",
                        "t.toml");
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->author.in(Lang::en), "Ada");
  EXPECT_EQ(l->date.in(Lang::zh), "2026年5月");
  auto bad = parseLecture("author = 3\n[[step]]\nop = \"broadcast\"\n", "t.toml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("t.toml:1"), std::string::npos) << bad.error().message;
}

TEST(Lecture, FactsCarryOverCaptionsDoNot) {
  auto l = parseLecture("[[step]]\nop = \"gather\"\nranks = 6\ncaption = \"one\"\n[[step]]\nop = \"scatter\"\n",
                        "x.toml");
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->steps[1].spec.ranks, 6);
  EXPECT_EQ(l->steps[1].spec.op, Op::scatter);
  EXPECT_TRUE(l->steps[1].caption.empty());
  EXPECT_EQ(l->steps[1].line, 5);
}

struct Bad {
  const char* text;
  const char* message;  // what the error must contain
};

TEST(Lecture, BadScriptsNameFileLineFieldAndWhatIsAllowed) {
  const Bad cases[] = {
      {"[[step]]\nop = \"broadcats\"\n", "bad.toml:2: op = \"broadcats\" is not allowed; allowed: broadcast"},
      {"[[step]]\nop = \"gather\"\nranks = \"four\"\n", "bad.toml:3: ranks: must be an integer (1 to 16); got a string"},
      {"[[step]]\nranks = 40\n", "bad.toml:2: ranks = 40 is out of range; allowed: 1 to 16"},
      {"[[step]]\ntracee = 2\n", "bad.toml:2: unknown field tracee; allowed: op, ranks"},
      {"[[step]]\ntrace = 5\n", "bad.toml:1: step 1: trace = 5 is beyond ranks = 4"},
      {"[[step]]\nstate = 1\n", "bad.toml:1: step 1: state applies to op = \"all_reduce_decomposed\""},
      {"[[step]]\nop = \"gather\"\nroot = 7\n", "bad.toml:1: step 1: root = 7 is out of range; allowed: 0 to 3"},
      {"[[step]]\ndtype = \"f128\"\n", "bad.toml:2: dtype = \"f128\" is not allowed; allowed: f32"},
      {"[[step]]\nredop = \"avg\"\ndtype = \"i32\"\n", "bad.toml:1: step 1: redop avg needs a floating dtype"},
      {"[[step]]\nbackend = \"mpich\"\n", "bad.toml:2: backend = \"mpich\" is not allowed; allowed: auto, gloo, nccl, mpi"},
      {"[[step]]\ntrace_by = \"up\"\n", "bad.toml:2: trace_by = \"up\" is not allowed; allowed: destination, source"},
      {"[[step]]\ncaption.fr = \"bonjour\"\n", "bad.toml:2: caption.fr: unknown language; allowed: en, zh"},
      {"[[step]]\ncaption = 3\n", "bad.toml:2: caption: must be a string, or language variants"},
      {"[[step]]\nop = \"all_reduce\"\nalgo = \"bruck\"\n",
       "bad.toml:3: algo = \"bruck\" is not allowed for all_reduce; allowed: native, ring, tree, halving_doubling"},
      {"[[step]]\nop = \"gather\"\nalgo = \"rign\"\n", "bad.toml:3: algo = \"rign\" is not allowed for gather; allowed: native, direct"},
      {"[[step]]\nop = \"all_reduce_decomposed\"\nalgo = \"ring\"\n",
       "bad.toml:3: algo = \"ring\": all_reduce_decomposed is two native ops"},
      {"[[step]]\nop = \"all_reduce\"\nalgo = \"ring\"\nround = 7\n",
       "bad.toml:4: round = 7 is out of range for ring all_reduce at N=4; allowed: 0 to 6"},
      {"[[step]]\nop = \"all_reduce\"\nalgo = \"ring\"\nround = -1\n", "bad.toml:4: round = -1 is out of range"},
      {"[[step]]\nop = \"all_reduce\"\nround = 1\n",
       "bad.toml:3: round applies to an algorithm's rounds; set algo (for all_reduce: native, ring"},
      {"[[step]]\nop = \"all_reduce\"\nalgo = \"ring\"\n[[step]]\nalgo = \"native\"\nround = 2\n",
       "bad.toml:6: round applies to an algorithm's rounds"},
      {"title = \"t\"\nsteps = []\n", "bad.toml:2: unknown field steps; allowed: title, author, date, hosts, hostfile, map_by, iface, launcher_agent, step"},
      {"title = \"t\"\n", "bad.toml:1: no steps"},
      {"[[step]]\nop = \"gather\n", "bad.toml:2: not valid TOML"},
      {"step = 3\n", "bad.toml:1: step: must be a list of [[step]] tables; got an integer"},
  };
  for (const Bad& b : cases) {
    Result<Lecture> l = parseLecture(b.text, "bad.toml");
    ASSERT_FALSE(l) << b.text;
    EXPECT_NE(l.error().message.find(b.message), std::string::npos)
        << "script:\n" << b.text << "message: " << l.error().message << "\nwanted: " << b.message;
  }
  Result<Lecture> missing = loadLecture("/nonexistent/lecture.toml");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/nonexistent/lecture.toml: cannot read"), std::string::npos);
}

TEST(Player, KeysMoveThroughTheSteps) {
  auto l = parseLecture(
      "[[step]]\nop = \"broadcast\"\n[[step]]\nop = \"scatter\"\n[[step]]\nop = \"all_reduce_decomposed\"\nstate = 1\n"
      "[[step]]\nstate = 2\n[[step]]\nop = \"all_to_all\"\ntrace = 2\n"
      "[[step]]\n[[step]]\n[[step]]\n[[step]]\n[[step]]\n[[step]]\n[[step]]\n",
      "p.toml");
  ASSERT_TRUE(l) << l.error().message;
  Player p(*l);
  ui::AppState s;
  using ui::LectureKey;
  EXPECT_TRUE(p.key(LectureKey::next_op));
  EXPECT_TRUE(p.key(LectureKey::rerun));  // Space
  EXPECT_EQ(p.index(), 2);
  p.apply(s);
  EXPECT_EQ(s.entry, ui::kDecompositionEntry);
  EXPECT_EQ(s.view.stage, 1);
  p.key(LectureKey::step_back);
  p.apply(s);
  EXPECT_EQ(s.runSpec().op, Op::scatter);
  EXPECT_EQ(s.view.stage, 2);
  p.key(LectureKey::last);
  EXPECT_EQ(p.index(), 11);
  p.key(LectureKey::next_op);  // stays at the end
  EXPECT_EQ(p.index(), 11);
  p.key(LectureKey::first);
  EXPECT_EQ(p.index(), 0);
  // G 1 2 Enter: step 12; G 5: step 5 at once (no step 50 and up).
  p.key(LectureKey::go_to);
  EXPECT_TRUE(p.typed('1'));
  EXPECT_EQ(p.index(), 0);
  p.typed('2');
  EXPECT_EQ(p.index(), 11);
  p.key(LectureKey::go_to);
  p.typed('5');
  EXPECT_EQ(p.index(), 4);
  p.apply(s);
  EXPECT_EQ(s.view.trace_rank, 2);
  p.key(LectureKey::go_to);
  p.typed('1');
  p.key(LectureKey::confirm);
  EXPECT_EQ(p.index(), 0);
  EXPECT_FALSE(p.key(LectureKey::theme));  // not a lecture key: the window's
  EXPECT_FALSE(p.typed('3'));              // not jumping: a trace key
  // The next step runs first, then the one before.
  p.go(1);
  std::vector<ui::RunKey> ahead = p.aheadKeys();
  ASSERT_GE(ahead.size(), 2u);
  EXPECT_EQ(ahead[0].program, Program::all_reduce_decomposed);
  EXPECT_EQ(ahead[1].spec.op, Op::broadcast);
}

TEST(Lecture, AlgoAndRoundCarryOverAndResetOnANewOpOrAlgo) {
  auto l = parseLecture(
      "[[step]]\nop = \"all_reduce\"\nalgo = \"ring\"\nround = 3\n"  // 1
      "[[step]]\n"                                                         // 2: carries ring, 3
      "[[step]]\nalgo = \"tree\"\n"                                       // 3: a new algo: round 0
      "[[step]]\nop = \"gather\"\n"                                       // 4: tree does not gather: native
      "[[step]]\nop = \"broadcast\"\nalgo = \"ring\"\nround = 2\n"       // 5
      "[[step]]\nop = \"all_gather\"\n"                                   // 6: ring, a new op: round 0
      "[[step]]\nop = \"all_reduce_decomposed\"\n",                       // 7: native
      "c.toml");
  ASSERT_TRUE(l) << l.error().message;
  const std::vector<Step>& st = l->steps;
  EXPECT_EQ(st[0].algo, "ring");
  EXPECT_EQ(st[0].round, 3);
  EXPECT_EQ(st[1].algo, "ring");
  EXPECT_EQ(st[1].round, 3);
  EXPECT_EQ(st[2].algo, "tree");
  EXPECT_EQ(st[2].round, 0);
  EXPECT_EQ(st[3].algo, "native");
  EXPECT_EQ(st[4].round, 2);
  EXPECT_EQ(st[5].algo, "ring");
  EXPECT_EQ(st[5].round, 0);
  EXPECT_EQ(st[6].algo, "native");
}

TEST(Player, AStepWithAnAlgorithmOpensTheAlgorithmViewAtItsRound) {
  auto l = parseLecture(
      "[[step]]\nop = \"all_reduce\"\nalgo = \"ring\"\nround = 3\n"
      "[[step]]\nalgo = \"native\"\n"
      "[[step]]\nalgo = \"tree\"\nround = 4\n",
      "a.toml");
  ASSERT_TRUE(l) << l.error().message;
  Player p(*l);
  ui::AppState s;
  p.apply(s);
  EXPECT_EQ(s.view.algo, "ring");
  EXPECT_EQ(s.rounds, 6);
  EXPECT_EQ(s.view.round, 3);
  EXPECT_EQ(runKeyOf(p.current()).algo, "ring");
  // The run ahead is the algorithm's run, as the algorithm view asks for it.
  std::vector<ui::RunKey> ahead = p.aheadKeys();
  ASSERT_EQ(ahead.size(), 2u);
  EXPECT_EQ(ahead[0].algo, "native");
  EXPECT_EQ(ahead[1].algo, "tree");
  s.playing = true;
  p.key(ui::LectureKey::next_op);
  p.apply(s);
  EXPECT_EQ(s.view.algo, "native");
  EXPECT_EQ(s.rounds, 0);
  EXPECT_EQ(s.view.round, 0);
  EXPECT_FALSE(s.playing);
  p.key(ui::LectureKey::next_op);
  p.apply(s);
  EXPECT_EQ(s.view.algo, "tree");
  EXPECT_EQ(s.view.round, 4);
  EXPECT_EQ(s.rounds, 4);
}

TEST(Deck, OneSlidePerStepWithItsCaption) {
  auto l = loadLecture(COLLVIZ_SOURCE_DIR "/assets/lectures/article_tour.toml");
  ASSERT_TRUE(l);
  std::vector<Slide> zh = slidesOf(*l, Lang::zh, "png");
  ASSERT_EQ(zh.size(), l->steps.size());
  EXPECT_EQ(zh[0].item.file, "step01_01_broadcast.png");
  EXPECT_EQ(zh[10].item.file, "step11_08_all_to_all_trace_r2.png");
  EXPECT_EQ(zh[13].item.file, "step14_09_all_reduce_decomposed_step1.png");
  EXPECT_NE(zh[0].item.caption.find("整份复制"), std::string::npos);
  std::string md = deckIndex(*l, zh, Lang::zh, "settings");
  EXPECT_NE(md.find("# 集合通信"), std::string::npos);
  EXPECT_NE(md.find("(step15_09_all_reduce_decomposed_step2.png)"), std::string::npos);
  // A PDF or HTML deck writes no image: index.md links its pages (issue 57:
  // it linked PNGs that were never written).
  const std::string pdf = deckIndex(*l, zh, Lang::zh, "settings", "deck.pdf");
  EXPECT_EQ(pdf.find(".png"), std::string::npos) << pdf;
  EXPECT_NE(pdf.find("(deck.pdf#page=2)"), std::string::npos);
  EXPECT_NE(pdf.find("(deck.pdf#page=16)"), std::string::npos);
  const std::string html = deckIndex(*l, zh, Lang::zh, "settings", "index.html");
  EXPECT_EQ(html.find(".png"), std::string::npos) << html;
  EXPECT_NE(html.find("(index.html#s15)"), std::string::npos);
}

TEST(Deck, TheInsideScriptShowsRingRoundByRoundThenTree) {
  auto l = loadLecture(COLLVIZ_SOURCE_DIR "/assets/lectures/allreduce_inside.toml");
  ASSERT_TRUE(l) << l.error().message;
  std::vector<Slide> en = slidesOf(*l, Lang::en, "png");
  ASSERT_EQ(en.size(), 16u);
  for (int k = 0; k <= 6; ++k) {
    const Slide& s = en[7 + k];
    EXPECT_EQ(s.item.view.algo, "ring");
    EXPECT_EQ(s.item.view.round, k);
    EXPECT_EQ(s.item.spec.ranks, 4);
    EXPECT_NE(s.item.file.find("_ring_round" + std::to_string(k) + ".png"), std::string::npos) << s.item.file;
  }
  EXPECT_NE(en[10].item.caption.find("holds the full sum"), std::string::npos);
  EXPECT_EQ(en[14].item.view.algo, "tree");
  EXPECT_EQ(en[14].item.view.round, 0);
  EXPECT_EQ(en[15].item.view.round, 4);
  EXPECT_NE(slidesOf(*l, Lang::zh, "png")[15].item.caption.find("2·ceil(log₂N)"), std::string::npos);
}

TEST(Caption, WrapsAtSpacesInEnglishAndAnywhereInChinese) {
  ui::CaptionParams p;
  p.text = "one two three four five six seven eight";
  p.width = 0.6f * 26 * 12;  // about 12 characters
  for (const std::string& line : ui::captionLines(p)) {
    EXPECT_NE(line.front(), ' ');
    EXPECT_LE(line.size(), 13u) << line;
  }
  p.text = "每个 rank 将第 i 个分片发给 Ri。Ri 按来源 rank 顺序收到数据。";
  std::vector<std::string> zh = ui::captionLines(p);
  EXPECT_GE(zh.size(), 2u);
  EXPECT_LE(int(zh.size()), ui::kCaptionMaxLines);
  EXPECT_TRUE(ui::captionLines({}).empty());
}

// A caption of one 100 KB word (issue 27: 25 s to lay out, each character
// measured with the whole line before it): the work is bounded by the lines
// shown, and every line fits the width. Counted, not timed: the bytes the
// measure callback is given.
TEST(Caption, LongWordsLayOutInLinearTime) {
  std::size_t measured = 0;
  ui::CaptionParams p;
  p.width = 400;
  p.measure = [&](const std::string& t, ui::TextStyle, float size) {
    measured += t.size();
    std::size_t points = 0;  // code points: the last line ends in "…"
    for (unsigned char c : t) points += (c & 0xC0) != 0x80;
    return 0.6f * size * float(points);
  };
  for (const std::size_t n : {std::size_t(100000), std::size_t(1000000)}) {
    measured = 0;
    p.text = std::string(n, 'x');
    const std::vector<std::string> lines = ui::captionLines(p);
    ASSERT_EQ(int(lines.size()), ui::kCaptionMaxLines);
    for (const std::string& l : lines) EXPECT_LE(p.measure(l, ui::TextStyle::heading, ui::captionTextSize(p.scale)), p.width + 30) << l.size();
    EXPECT_LT(measured, 100000u) << n << " characters";
  }
  // Short texts wrap as before.
  p.text = "aaa bbb";
  EXPECT_EQ(ui::captionLines(p).size(), 1u);
}

// ---- the string table ----

TEST(Strings, EveryEntryHasItsChineseOnce) {
  std::set<std::string_view> seen;
  for (const Translation& t : translations()) {
    EXPECT_FALSE(t.zh.empty()) << t.en;
    // A template of placeholders, spaces and digits' punctuation only ("{0}
    // {1}/{2}", a round's name) has no words to translate and may stay.
    const bool words_only_in_args =
        t.en.find_first_not_of("{}0123456789 /") == std::string_view::npos;
    if (!words_only_in_args) EXPECT_NE(t.zh, t.en) << "not translated: " << t.en;
    EXPECT_TRUE(seen.insert(t.en).second) << "twice: " << t.en;
    // Placeholders survive translation.
    for (const char* ph : {"{0}", "{1}", "{2}", "{3}", "{4}", "{5}", "{6}", "{7}", "{8}", "{9}"})
      EXPECT_EQ(t.en.find(ph) == std::string_view::npos, t.zh.find(ph) == std::string_view::npos) << t.en;
  }
}

// Every op's phrase comes from its row in engine/collectives.h and is shown
// through tr(): a new row needs its Chinese phrase too.
TEST(Strings, EveryCollectivesPhraseIsTranslated) {
  std::set<std::string_view> table;
  for (const Translation& t : translations()) table.insert(t.en);
  for (const Collective& c : kCollectives) EXPECT_TRUE(table.count(c.phrase)) << c.name << ": " << c.phrase;
}

TEST(Strings, EnglishIsTheSourceTextUnchanged) {
  setLanguage(Lang::en);
  EXPECT_STREQ(tr("Input"), "Input");
  EXPECT_EQ(trf("what reaches {0}", {"R2"}), "what reaches R2");
  setLanguage(Lang::zh);
  EXPECT_STREQ(tr("Input"), "输入");
  EXPECT_STREQ(tr("exchange by column"), "按列交换");
  EXPECT_STREQ(tr("trace"), "追踪去向");
  EXPECT_STREQ(tr("All"), "全部");
  EXPECT_EQ(trf("what reaches {0}", {"R2"}), "到达 R2 的数据");
  EXPECT_STREQ(tr("R2"), "R2");  // not in the table: unchanged
  setLanguage(Lang::en);
}

// Every literal handed to tr()/trf() in app/ (and both arms of a ternary
// there) is in the table, so no UI string is left untranslated.
TEST(Strings, EveryTrLiteralInTheSourcesIsInTheTable) {
  std::set<std::string> table;
  for (const Translation& t : translations()) table.insert(std::string(t.en));
  const std::regex call(R"re(\btrf?\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+))re");
  const std::regex ternary(R"re(\btrf?\([^"();]*\?\s*"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)")re");
  const std::regex piece(R"re("((?:[^"\\]|\\.)*)")re");
  int found = 0;
  for (const auto& e : fs::recursive_directory_iterator(COLLVIZ_SOURCE_DIR "/app")) {
    if (e.path().extension() != ".cpp" || e.path().filename() == "translations.cpp") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string src = ss.str();
    auto check = [&](const std::string& s) {
      ++found;
      std::string unescaped = std::regex_replace(s, std::regex(R"(\\")"), "\"");
      unescaped = std::regex_replace(unescaped, std::regex(R"(\\n)"), "\n");
      EXPECT_TRUE(table.count(unescaped)) << e.path().filename() << ": not in the table: \"" << unescaped << "\"";
    };
    for (std::sregex_iterator m(src.begin(), src.end(), call), end; m != end; ++m) {
      std::string joined;
      const std::string lits = (*m)[1];
      for (std::sregex_iterator p(lits.begin(), lits.end(), piece); p != end; ++p) joined += (*p)[1];
      check(joined);
    }
    for (std::sregex_iterator m(src.begin(), src.end(), ternary), end; m != end; ++m) {
      check((*m)[1]);
      check((*m)[2]);
    }
  }
  EXPECT_GT(found, 80);
}

// Every message id the engine (or the app) makes with say("...") is in the
// table with its Chinese: a Text whose id is missing would be shown in
// English under --lang zh. Adjacent literals ("a " "b") are one id.
TEST(Strings, EverySayIdInTheSourcesIsInTheTable) {
  std::set<std::string> table;
  for (const Translation& t : translations()) table.insert(std::string(t.en));
  const std::regex call(R"re(\bsay\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+))re");
  const std::regex piece(R"re("((?:[^"\\]|\\.)*)")re");
  int found = 0;
  for (const char* dir : {COLLVIZ_SOURCE_DIR "/engine", COLLVIZ_SOURCE_DIR "/app"})
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const auto ext = e.path().extension();
      if ((ext != ".cpp" && ext != ".h" && ext != ".cu") || e.path().filename() == "text.h") continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string src = ss.str();
      for (std::sregex_iterator m(src.begin(), src.end(), call), end; m != end; ++m) {
        std::string joined;
        const std::string lits = (*m)[1];
        for (std::sregex_iterator p(lits.begin(), lits.end(), piece); p != end; ++p) joined += (*p)[1];
        joined = std::regex_replace(joined, std::regex(R"(\\")"), "\"");
        joined = std::regex_replace(joined, std::regex(R"(\\n)"), "\n");
        ++found;
        EXPECT_TRUE(table.count(joined)) << e.path().filename() << ": say() id not in the table: \"" << joined << "\"";
      }
    }
  EXPECT_GT(found, 10);
}

// A Text renders in the reader's language, arguments in their turn; literals
// stay as they are; English is byte for byte the English.
TEST(Strings, ATextRendersInTheReadersLanguage) {
  const collviz::Text inner = say("{0} {1} on rank {2}: {3}", "ring", "all_reduce", 3, say("shared memory too small"));
  const Error e{say("{0}; {1}", inner, lit("COLLVIZ_FAULT=hang"))};
  setLanguage(Lang::en);
  EXPECT_EQ(render(e), "ring all_reduce on rank 3: shared memory too small; COLLVIZ_FAULT=hang");
  EXPECT_EQ(e.message, render(e));
  setLanguage(Lang::zh);
  EXPECT_EQ(render(e), "ring all_reduce（rank 3）：共享内存太小；COLLVIZ_FAULT=hang");
  // A Said changed as a string after it was made is shown as the string.
  Said s = say("shared memory too small");
  EXPECT_EQ(render(s), "共享内存太小");
  s += "!";
  EXPECT_EQ(render(s), "shared memory too small!");
  // Across the worker protocol the message keeps its id and arguments.
  const Error back = protocol::errorFrom(protocol::errorMessage(e).dump());
  EXPECT_EQ(render(back), render(e));
  EXPECT_EQ(back.message, e.message);
  setLanguage(Lang::en);
}

}  // namespace
}  // namespace collviz::lecture
