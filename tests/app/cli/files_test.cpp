// Files collviz writes cannot be redirected: a link planted at the target's
// name or at any temporary name an older collviz used (".NAME.tmp<PID>")
// leaves the link's target untouched; replacing a file keeps its mode; a
// failed write leaves nothing behind. Where the test runs as root, the links
// are planted by another user (nobody, 65534) in a directory that user owns,
// as an attacker would.
#include <gtest/gtest.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/files/safe_file.h"
#include "cli_process.h"

namespace {

namespace fs = std::filesystem;
using namespace collviz::test;

constexpr uid_t kOther = 65534;
const std::string kSecret = "root's file: must never change\n";

struct Dirs {
  fs::path root, victim_dir, victim, out;
  explicit Dirs(const std::string& name) {
    root = fs::temp_directory_path() / ("collviz_files_" + name + std::to_string(::getpid()));
    fs::remove_all(root);
    victim_dir = root / "private";
    out = root / "shared";
    fs::create_directories(victim_dir);
    fs::create_directories(out);
    victim = victim_dir / "victim";
    std::ofstream(victim) << kSecret;
    ::chmod(victim.c_str(), 0600);
    ::chmod(root.c_str(), 0755);
    ::chmod(victim_dir.c_str(), 0755);  // the link can be followed; the file is 0600
    if (::geteuid() == 0) ::chown(out.c_str(), kOther, kOther);
  }
  ~Dirs() { fs::remove_all(root); }
};

// Plant symlinks to `target` at `names` inside `dir`: as `nobody` when we are
// root (a separate process), else as ourselves.
bool plantLinks(const fs::path& dir, const std::vector<std::string>& names,
                const fs::path& target) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setresgid(kOther, kOther, kOther) != 0 ||
                             ::setresuid(kOther, kOther, kOther) != 0))
      ::_exit(3);
    for (const auto& n : names)
      if (::symlink(target.c_str(), (dir / n).c_str()) != 0) ::_exit(4);
    ::_exit(0);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// Every name an older collviz could have used for `files` if it gets a pid
// within the next `window` pids.
std::vector<std::string> oldTemporaryNames(const std::vector<std::string>& files, int window) {
  int last = 0;
  std::ifstream("/proc/sys/kernel/ns_last_pid") >> last;
  std::vector<std::string> names;
  for (const auto& f : files)
    for (int p = last + 1; p <= last + window; ++p) names.push_back("." + f + ".tmp" + std::to_string(p));
  return names;
}

void expectVictimUntouched(const Dirs& d) {
  EXPECT_EQ(slurp(d.victim), kSecret) << "the planted link redirected a write";
  struct stat st {};
  ASSERT_EQ(::stat(d.victim.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

class LinkAttack : public SubreaperTest {};

TEST_F(LinkAttack, ExportDoesNotWriteThroughPlantedLinks) {
  Dirs d("one");
  std::vector<std::string> names = oldTemporaryNames({"fig.svg"}, 3000);
  names.push_back("fig.svg");
  ASSERT_TRUE(plantLinks(d.out, names, d.victim));
  Cli c("collviz_files_cli_", {"export", "--op", "all_gather", "--backend", "gloo", "-o",
                               (d.out / "fig.svg").string()});
  ASSERT_EQ(c.wait(), 0) << c.err;
  expectVictimUntouched(d);
  EXPECT_FALSE(fs::is_symlink(d.out / "fig.svg"));
  EXPECT_NE(slurp(d.out / "fig.svg").find("<svg"), std::string::npos);
  expectNoOrphans(c);
}

TEST_F(LinkAttack, ExportAllDoesNotWriteThroughPlantedLinks) {
  Dirs d("all");
  {  // the set's file names, from a clean run
    Cli c("collviz_files_cli_", {"export", "--all", "--format", "svg", "--backend", "gloo", "--ranks",
                                 "2", "-o", (d.root / "clean").string()});
    ASSERT_EQ(c.wait(), 0) << c.err;
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(d.root / "clean")) files.push_back(e.path().filename());
  ASSERT_GE(files.size(), 10u);
  std::vector<std::string> names = oldTemporaryNames(files, 400);
  names.insert(names.end(), files.begin(), files.end());
  ASSERT_TRUE(plantLinks(d.out, names, d.victim));
  Cli c("collviz_files_cli_", {"export", "--all", "--format", "svg", "--backend", "gloo", "--ranks",
                               "2", "-o", d.out.string()});
  ASSERT_EQ(c.wait(), 0) << c.err;
  expectVictimUntouched(d);
  for (const auto& f : files) EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(d.out / f))) << f;
}

TEST(SafeFile, ReplacingKeepsTheModeAndLeavesNoTemporary) {
  Dirs d("mode");
  const fs::path f = d.victim_dir / "out.txt";
  std::ofstream(f) << "old";
  ::chmod(f.c_str(), 0600);
  ASSERT_TRUE(collviz::ui::writeFileAtomic(f.string(), std::string("new contents")));
  EXPECT_EQ(slurp(f), "new contents");
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(std::distance(fs::directory_iterator(d.victim_dir), fs::directory_iterator()), 2);
}

TEST(SafeFile, NoReplaceRefusesAnExistingName) {
  Dirs d("noreplace");
  const fs::path f = d.victim_dir / "victim";
  EXPECT_FALSE(collviz::ui::writeFileAtomic(f.string(), "x", 1, collviz::ui::Replace::no));
  expectVictimUntouched(d);
  EXPECT_EQ(std::distance(fs::directory_iterator(d.victim_dir), fs::directory_iterator()), 1);
}

// A write that fails half-way (the file size limit) leaves nothing behind and
// the old file as it was.
TEST(SafeFile, FailedWriteLeavesNothing) {
  Dirs d("fail");
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    const std::string big(1 << 20, 'x');
    const auto st = collviz::ui::writeFileAtomic(d.victim.string(), big);
    ::_exit(!st && st.message().find("cannot write") != std::string::npos ? 0 : 1);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the write did not fail as it should";
  expectVictimUntouched(d);
  EXPECT_EQ(std::distance(fs::directory_iterator(d.victim_dir), fs::directory_iterator()), 1);
}

}  // namespace
