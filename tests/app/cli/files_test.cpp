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

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/files/output_dir.h"
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

// Issue 39: the directory-link defence (app/files/output_dir.h) with the link
// swapped while it is opened. Another user's link and one's own are
// swapped at pub/deck as fast as rename allows while OutputDir opens
// pub/deck over and over: what it opens is one's own folder or a refusal,
// never the other user's target. (Before, the link was checked, then
// followed by name and checked again: swapped in between and back, the
// other's target was opened; following the checked inode's own text closes
// that.) Root only: a link owned by another user needs root to plant.
TEST(OutputDirLink, ALinkSwappedWhileOpenedIsNeverFollowedToTheOthersTarget) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to plant a link owned by another user";
  Dirs d("swap");
  const fs::path pub = d.root / "pub", mine = d.root / "mine", theirs = d.root / "theirs";
  fs::create_directories(pub);
  fs::create_directories(mine);
  fs::create_directories(theirs);
  // The two links, made once (fixed inodes), hard-linked into place in turn.
  fs::create_directory_symlink(mine, d.root / "own_link");
  fs::create_directory_symlink(theirs, d.root / "their_link");
  ASSERT_EQ(::lchown((d.root / "their_link").c_str(), kOther, kOther), 0);
  struct stat t {};
  ASSERT_EQ(::stat(theirs.c_str(), &t), 0);
  const std::string deck = (pub / "deck").string(), tmp = (pub / "next").string();
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    for (bool own = true; !stop; own = !own) {
      const std::string from = (d.root / (own ? "own_link" : "their_link")).string();
      ::unlink(tmp.c_str());
      if (::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, tmp.c_str(), 0) == 0) ::rename(tmp.c_str(), deck.c_str());
    }
  });
  int opened_mine = 0, refused = 0, opened_theirs = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < until) {
    auto od = collviz::ui::OutputDir::open(deck, false);
    if (!od) {
      ++refused;
      continue;
    }
    struct stat got {};
    ASSERT_EQ(::fstat(od->fd(), &got), 0);
    if (got.st_ino == t.st_ino && got.st_dev == t.st_dev) ++opened_theirs;
    else ++opened_mine;
  }
  stop = true;
  swapper.join();
  std::printf("opened one's own folder %d times, refused %d, opened the other's %d\n", opened_mine, refused,
              opened_theirs);
  EXPECT_EQ(opened_theirs, 0) << "a link swapped in while opened was followed to another user's folder";
  EXPECT_GT(opened_mine, 0);
  EXPECT_GT(refused, 0);
}

// The same defence with collviz run by a user who is not root (nobody,
// dropped to by setpriv): another user's link (65533) is refused, one's own
// is followed. Root only (to plant another user's link and drop to nobody).
TEST_F(LinkAttack, AsNotRootAnotherUsersLinkIsRefusedAndOnesOwnFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to plant a link owned by another user and to run as nobody";
  if (std::system("command -v setpriv >/dev/null") != 0) GTEST_SKIP() << "setpriv (util-linux) not found";
  Dirs d("nonroot");
  const fs::path pub = d.root / "pub", target = d.root / "target";
  fs::create_directories(pub);
  fs::create_directories(target);
  ::chmod(pub.c_str(), 01777);
  ::chown(target.c_str(), kOther, kOther);
  fs::create_directory_symlink(target, pub / "deck");
  ASSERT_EQ(::lchown((pub / "deck").c_str(), kOther - 1, kOther - 1), 0);
  fs::create_directory_symlink(target, pub / "own");
  ASSERT_EQ(::lchown((pub / "own").c_str(), kOther, kOther), 0);
  const std::string script = (d.root / "run.sh").string();
  std::ofstream(script) << "#!/bin/sh\nexec setpriv --reuid=" << kOther << " --regid=" << kOther
                        << " --clear-groups env HOME=" << d.root.string() << " " << COLLVIZ_CLI
                        << " export --all --ranks 2 --backend gloo --format svg -o \"$1\"\n";
  ::chmod(script.c_str(), 0755);
  auto run = [&](const fs::path& out) {
    const std::string cmd = script + " " + out.string() + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    std::string text;
    char buf[4096];
    while (p && std::fgets(buf, sizeof buf, p)) text += buf;
    const int st = p ? ::pclose(p) : -1;
    return std::make_pair(WIFEXITED(st) ? WEXITSTATUS(st) : -1, text);
  };
  const auto [rc, err] = run(pub / "deck");
  EXPECT_EQ(rc, 2) << err;
  EXPECT_NE(err.find("it is a link owned by user " + std::to_string(kOther - 1)), std::string::npos) << err;
  EXPECT_TRUE(fs::is_empty(target)) << "nobody wrote through another user's link";
  const auto [rc2, err2] = run(pub / "own");
  EXPECT_EQ(rc2, 0) << err2;
  EXPECT_FALSE(fs::is_empty(target)) << "nobody's own link was not followed: " << err2;
}

}  // namespace
