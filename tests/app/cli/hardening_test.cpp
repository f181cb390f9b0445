// Hardening, second round (issue 27): what a hostile or careless user tries,
// end to end through the collviz binary. Each test fails on the code before
// the fix (the closing note of the issue says how each was run against the
// old build). Fast: SVG where a picture is needed (no X server), small sizes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_process.h"  // Cli, workersInGroup, expectNoOrphans

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Sh {
  int rc = -1;
  std::string out, err;
  double seconds = 0;
};

// A fresh directory per test, removed at the end.
class Hardening : public collviz::test::SubreaperTest {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("collviz_hardening_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // `bash -c "ENV collviz ARGS"`, killed after `limit_s`; stdout and stderr
  // to files unless the command redirects them itself.
  Sh collviz(const std::string& args, const std::string& env = "", int limit_s = 60,
             const std::string& redirect = "", const std::string& prefix = "") {
    const fs::path o = dir_ / "stdout", e = dir_ / "stderr";
    const std::string cmd = prefix + "timeout -s KILL " + std::to_string(limit_s) + " env -u DISPLAY " + env +
                            " " COLLVIZ_CLI " " + args + " " +
                            (redirect.empty() ? ">'" + o.string() + "'" : redirect) + " 2>'" +
                            e.string() + "'";
    const auto t0 = std::chrono::steady_clock::now();
    const int st = std::system(cmd.c_str());
    Sh r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(o);
    r.err = slurp(e);
    fs::remove(o);
    return r;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  fs::path dir_;
};

json parsed(const Sh& r) {
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout is not one JSON document: " << r.out << "\n" << r.err;
  return j;
}

// ---- 10: the command-line contract ----------------------------------------

// Under --json every error is a JSON document with error and exit_code.
TEST_F(Hardening, JsonErrorsCarryTheirExitCode) {
  struct Case {
    std::string args, says;
  };
  const Case cases[] = {
      {"run --json --op scatter --algo ring -N 4 --backend gloo", "--algo ring does not run scatter"},
      {"algos --json -N 0", "--ranks 0 is out of range"},
      {"algos --json -N 17", "allowed: 1 to 16"},
      {"run --json --algo ring --dtype bf16 -N 2 --backend gloo", "bf16"},
      {"run --json --dtype bf16 -N 2 --backend gloo", "bf16"},
  };
  for (const Case& c : cases) {
    const Sh r = collviz(c.args);
    EXPECT_EQ(r.rc, 2) << c.args << ": " << r.err;
    const json j = parsed(r);
    ASSERT_TRUE(j.is_object()) << c.args;
    EXPECT_EQ(j.value("exit_code", -1), 2) << c.args << ": " << r.out;
    EXPECT_NE(j.value("error", "").find(c.says), std::string::npos) << c.args << ": " << r.out;
  }
  // A refused algorithm run says which algorithm was refused.
  const json j = parsed(collviz("run --json --algo ring --dtype bf16 -N 2 --backend gloo"));
  EXPECT_EQ(j.value("algo", ""), "ring") << j.dump();
}

// Output that cannot be written is an error, not a silent success.
TEST_F(Hardening, StdoutThatCannotBeWrittenFails) {
  for (const std::string args : {"algos", "run -N 2 --backend gloo", "algos --json"}) {
    const Sh r = collviz(args, "", 60, "> /dev/full");
    EXPECT_NE(r.rc, 0) << args;
    EXPECT_NE(r.err.find("cannot write the output to stdout"), std::string::npos) << args << ": " << r.err;
  }
}

TEST_F(Hardening, NegativeStepIsRefused) {
  const Sh r = collviz("export --op all_reduce --algo ring -N 4 --step -1 --backend gloo -o " + path("x.svg"));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--step -1 is out of range"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("x.svg")));
}

// The window's hosts (collviz --hosts …, issue 33): a bad value is refused
// with what is allowed before any window or display is looked for; before a
// subcommand they would be lost, so that is refused too; a good value gets
// as far as the display.
TEST_F(Hardening, TheWindowsHostsAreCheckedOnTheCommandLine) {
  struct Case {
    std::string args, says;
  };
  for (const Case& c : {Case{"--hosts a:0", "host a: slots '0' is not allowed; allowed: a whole number from 1 to 1024"},
                        Case{"--hosts a:2 --map-by diagonal", "--map-by diagonal is not a mapping; allowed: slot, node"},
                        Case{"--iface eth0", "--map-by, --iface and --launcher-agent need --hosts or --hostfile"},
                        Case{"--hostfile " + path("none"), "cannot be read; allowed: a readable file"},
                        Case{"--hosts a:2 run -N 2 --backend gloo",
                             "--hosts before the command is the window's; give it after the command: collviz run --hosts"}}) {
    const Sh r = collviz(c.args, "-u WAYLAND_DISPLAY", 30);
    EXPECT_EQ(r.rc, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
  const Sh ok = collviz("--hosts a:2,b:2 --map-by node", "-u WAYLAND_DISPLAY", 30);
  EXPECT_EQ(ok.rc, 1) << ok.err;
  EXPECT_NE(ok.err.find("no display"), std::string::npos) << ok.err;
}

// ---- 9: faults --------------------------------------------------------------

// A bad COLLVIZ_FAULT is the user's input: exit 2 saying what is allowed, in
// every command, before any worker starts.
TEST_F(Hardening, BadFaultIsRefusedOnceInTheParent) {
  for (const std::string args :
       {std::string("run -N 4 --backend gloo"), "export -N 4 --backend gloo -o " + path("f.svg"),
        std::string("run -N 4 --algo ring --backend gloo")}) {
    const Sh r = collviz(args, "COLLVIZ_FAULT=bogus");
    EXPECT_EQ(r.rc, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("COLLVIZ_FAULT=bogus: unknown fault"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("allowed: skip"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("never said hello"), std::string::npos) << r.err;
  }
  const Sh r = collviz("run -N 4 --backend gloo", "COLLVIZ_FAULT=rank:7,skip");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("0 to 3"), std::string::npos) << r.err;
}

// delay_ms beyond the deadline is caught (documented as caught): every rank
// asleep after a collective that finished at once is hung, not slow, and
// not verified.
TEST_F(Hardening, DelayPastTheDeadlineIsCaught) {
  // Before: the CPU the ranks used early in the first window (the
  // collective) counted as progress for the whole window, the next look came
  // a window later, and the reply after 3.4 s passed as verified.
  const Sh r = collviz("run -N 4 --backend gloo --deadline-ms 2000", "COLLVIZ_FAULT=delay_ms:3400");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("did not finish: no progress for 2000 ms (hung)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("slow, not hung"), std::string::npos) << r.err;
}

// ---- 3: algorithm rounds judged by progress, with time for their bytes ----

TEST_F(Hardening, BigRoundsWithAShortDeadlineVerify) {
  // 4 x 32 MiB through ring's rounds with --deadline-ms 100: the native op
  // passes with that deadline (its deadline scales with its bytes), and so
  // must the rounds.
  for (const std::string algo : {"native", "ring"}) {
    const Sh r = collviz("bench --algo " + algo + " --ranks 4 -b 32M -e 32M -n 4 -w 1 --deadline-ms 100 "
                         "--backend gloo");
    EXPECT_EQ(r.rc, 0) << algo << ": " << r.err;
    EXPECT_NE(r.out.find("Wrong elements       : 0 OK"), std::string::npos) << algo << ": " << r.out << r.err;
  }
}

// ---- 6: lecture scripts as hostile input ------------------------------------

TEST_F(Hardening, DeepNestingIsRefusedNotACrash) {
  std::string dotted = "[[step]]\na", header = "[[step]]\n[a";
  for (int i = 0; i < 40000; ++i) dotted += ".a", header += ".a";
  write("dotted.toml", dotted + " = 1\n");
  write("header.toml", header + "]\n");
  write("arrays.toml", "[[step]]\nop = " + std::string(40000, '[') + "\n");
  for (const char* f : {"dotted.toml", "header.toml", "arrays.toml"}) {
    const Sh r = collviz("lecture " + path(f) + " --export " + path("deck") + " --format svg");
    EXPECT_EQ(r.rc, 2) << f << ": " << r.err;
    EXPECT_NE(r.err.find(path(f) + ":2: keys or tables nested more than 16 levels deep"), std::string::npos)
        << f << ": " << r.err.substr(0, 300);
  }
  EXPECT_FALSE(fs::exists(path("deck")));
}

// Only regular files of bounded size: /dev/zero is not read for ever, a FIFO
// does not block.
TEST_F(Hardening, OnlyRegularScriptsOfBoundedSize) {
  ASSERT_EQ(::mkfifo(path("fifo.toml").c_str(), 0600), 0);
  write("big.toml", std::string((1 << 20) + 1, '#'));
  struct Case {
    std::string file, says;
  };
  const Case cases[] = {{"/dev/zero", "/dev/zero: cannot read the lecture script: is a character device; "
                                      "allowed: a regular file"},
                        {path("fifo.toml"), "is a FIFO; allowed: a regular file"},
                        {path("big.toml"), "allowed: a script of at most 1.0 MiB"},
                        {dir_.string(), "is a directory; allowed: a regular file"}};
  for (const Case& c : cases) {
    const Sh r = collviz("lecture " + c.file, "", 20);
    EXPECT_EQ(r.rc, 2) << c.file << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.file << ": " << r.err;
  }
}

// Control characters are refused with file:line, never echoed raw.
TEST_F(Hardening, ControlCharactersAreRefusedWithFileAndLine) {
  struct Case {
    std::string name, script, says;
  };
  const Case cases[] = {
      {"caption", "[[step]]\nop = \"gather\"\ncaption = \"ring the bell\\u0007\"\n",
       ":3: step.caption: control character U+0007 at character 14"},
      {"zh", "[[step]]\ncaption.zh = \"\\u001b[2J\"\n", ":2: step.caption.zh: control character U+001B"},
      {"title", "title = \"a\\u0000b\"\n[[step]]\n", ":1: title: control character U+0000"},
      {"key", "[[step]]\n\"evil\\u001b]0;x\\u0007\" = 1\n", ":2: a key in step holds control character U+001B"},
      {"c1", "[[step]]\nnotes = \"\\u009b31m\"\n", ":2: step.notes: control character U+009B"},
  };
  for (const Case& c : cases) {
    write(c.name + ".toml", c.script);
    const Sh r = collviz("lecture " + path(c.name + ".toml") + " --export " + path("deck") + " --format svg");
    EXPECT_EQ(r.rc, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(path(c.name + ".toml") + c.says), std::string::npos) << c.name << ": " << r.err;
    for (char ch : r.err)
      EXPECT_FALSE(static_cast<unsigned char>(ch) < 0x20 && ch != '\n') << c.name << ": raw control in " << r.err;
  }
  EXPECT_FALSE(fs::exists(path("deck")));
}

// A step the backend refuses is the script's error (exit 2 with its
// file:line, as `collviz run` exits 2 for the same spec), found before
// anything is written.
TEST_F(Hardening, StepTheBackendRefusesWritesNothing) {
  write("bf16.toml", "[[step]]\nop = \"all_reduce\"\n[[step]]\nop = \"gather\"\ndtype = \"bf16\"\n"
                     "backend = \"gloo\"\n");
  const Sh r = collviz("lecture " + path("bf16.toml") + " --export " + path("deck") + " --format svg");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(path("bf16.toml") + ":3: step 2: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bf16"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("deck"))) << "wrote the deck before finding the refused step";
}

// ---- 7: fonts ---------------------------------------------------------------

TEST_F(Hardening, BadFontsFallBackWithANotice) {
  // A CJK font that is no font: English and a notice, not an ImGui abort.
  for (const std::string font : {std::string("/dev/zero"), path("empty.ttc")}) {
    write("empty.ttc", "");
    const Sh r = collviz("export --lang zh -N 2 --backend gloo -o " + path("zh.svg"),
                         "COLLVIZ_CJK_FONT=" + font);
    EXPECT_EQ(r.rc, 0) << font << ": " << r.err;
    EXPECT_NE(r.err.find("COLLVIZ_CJK_FONT=" + font), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("showing English"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(path("zh.svg")));
  }
  // A corrupt DejaVu: the built-in font, with a notice naming the file.
  fs::create_directories(dir_ / "fonts");
  std::string noise(100000, '\0');
  for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = char((i * 2654435761u) >> 13);
  write("fonts/DejaVuSans.ttf", noise);
  write("fonts/DejaVuSans-Bold.ttf", noise);
  const Sh r = collviz("export -N 2 --backend gloo -o " + path("bad_font.svg"), "COLLVIZ_FONT_DIR=" + path("fonts"));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find(path("fonts") + "/DejaVuSans.ttf is not a TrueType or OpenType font"), std::string::npos)
      << r.err;
}

// ---- 5: GIF size estimated up front -----------------------------------------

TEST_F(Hardening, HugeGifIsRefusedBeforeAnythingRuns) {
  const Sh r = collviz("export --op all_reduce --algo ring -N 16 --format gif --tween 30 --backend gloo -o " +
                           path("x.gif"),
                       "", 30);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("make 931 frames of 1200x700 pixels"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--tween 2 fits at this size"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 10);
  EXPECT_FALSE(fs::exists(path("x.gif")));
}

// ---- 11: a directory link another user planted ------------------------------

TEST_F(Hardening, PlantedDirectoryLinkIsNotFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to plant a link owned by another user";
  fs::create_directories(dir_ / "pub");
  fs::create_directories(dir_ / "victim");
  ::chmod(path("pub").c_str(), 01777);
  write("victim/index.md", "precious\n");
  fs::create_directory_symlink(dir_ / "victim", dir_ / "pub" / "deck");
  ASSERT_EQ(::lchown(path("pub/deck").c_str(), 65534, 65534), 0);
  write("lecture.toml", "[[step]]\nop = \"gather\"\nranks = 2\n");
  for (const std::string args :
       {"export --all -N 2 --format svg --backend gloo -o " + path("pub/deck"),
        "lecture " + path("lecture.toml") + " --format svg --export " + path("pub/deck")}) {
    const Sh r = collviz(args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("refusing to write through " + path("pub/deck") + ": it is a link owned by user 65534"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(slurp(dir_ / "victim" / "index.md"), "precious\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "victim"), fs::directory_iterator()), 1);
  }
  // A link of one's own is followed as before.
  fs::create_directory_symlink(dir_ / "victim", dir_ / "mine");
  const Sh r = collviz("lecture " + path("lecture.toml") + " --format svg --export " + path("mine"));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(slurp(dir_ / "victim" / "index.md"), "precious\n");
}

// ---- 4: memory admission counts what rounds hold -----------------------------

// Every refusal suggests a size that runs: before, ring at the suggested
// --elems failed with "mmap: Cannot allocate memory" (its admission counted a
// native op's buffers, not the rounds' working buffers and copies).
TEST_F(Hardening, RoundsRunAtTheSizeTheirRefusalSuggests) {
  const std::string limit = "ulimit -v 600000; ";
  const Sh refused = collviz("run --algo ring -N 4 -E 100000000 --backend gloo --values none", "", 60, "", limit);
  EXPECT_EQ(refused.rc, 2) << refused.err;
  const auto at = refused.err.find("the largest that fits is --elems ");
  ASSERT_NE(at, std::string::npos) << refused.err;
  const long long fits = std::atoll(refused.err.c_str() + at + 33);
  ASSERT_GT(fits, 0) << refused.err;
  const Sh ran = collviz("run --algo ring -N 4 -E " + std::to_string(fits) + " --backend gloo --values none", "",
                         120, "", limit);
  EXPECT_EQ(ran.rc, 0) << "--elems " << fits << ": " << ran.err;
  EXPECT_NE(ran.out.find("verified"), std::string::npos) << ran.out.substr(0, 300);
}

// ---- 8: small address-space limits ------------------------------------------

// Out of memory in the renderer is the same clear message and exit code as
// elsewhere, not an abort (134) or a crash (139).
TEST_F(Hardening, SmallAddressSpaceIsAClearOutOfMemory) {
  for (const int kb : {300000, 400000, 500000, 700000}) {
    const Sh r = collviz("export -N 2 --backend gloo -o " + path("v.png"), "", 60, "",
                         "ulimit -v " + std::to_string(kb) + "; ");
    EXPECT_EQ(r.rc, 1) << kb << ": " << r.err;
    EXPECT_NE(r.err.find("out of memory"), std::string::npos) << kb << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("v.png")));
  }
}

// ---- 1: headless export in-process, with the signal contract of `run` ------

// Without a display, the pid the user holds is collviz itself (no xvfb-run
// shell): SIGTERM and SIGINT end it within a second with 143/130, no worker
// left, no X server started, no file written.
TEST_F(Hardening, HeadlessExportObeysSignals) {
  using namespace std::chrono_literals;
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string out = path("s" + std::to_string(sig) + ".png");
    collviz::test::Cli c("collviz_hardening_sig_",
                         {"export", "-N", "4", "--backend", "gloo", "--deadline-ms", "30000", "-o", out}, 60s,
                         {"DISPLAY=", "WAYLAND_DISPLAY=", "COLLVIZ_FAULT=delay_ms:20000"});
    // Until the four workers run (the op then waits on the delay), at most 30 s.
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (collviz::test::workersInGroup(c.pid, c.pid).size() < 4 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(10ms);
    ASSERT_EQ(collviz::test::workersInGroup(c.pid, c.pid).size(), 4u) << "the workers never started: " << c.err;
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(c.pid, sig), 0);
    const int rc = c.wait(10s);
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(rc, 128 + sig) << c.err;
    EXPECT_LT(took, 1s) << c.err;
    collviz::test::expectNoOrphans(c);
    EXPECT_FALSE(fs::exists(out)) << "a file after the signal";
    EXPECT_EQ(c.err.find("xvfb"), std::string::npos) << c.err;
  }
}

}  // namespace
