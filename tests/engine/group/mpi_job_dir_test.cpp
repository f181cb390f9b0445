// An MPI job's folders (engine/group/mpi_job_dir.h), without MPI: made
// private, told to mpirun, removed with all inside, and swept at the next
// start when their collviz died — only then: a living collviz's folder, a
// link named like one, another name and a folder just made are left.
#include <gmock/gmock.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/group/exit_cleanup.h"
#include "engine/group/mpi_job_dir.h"

namespace collviz {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct TempBase {
  fs::path path;
  TempBase() {
    std::string t = (fs::temp_directory_path() / "collviz_jobdir_XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempBase() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Open MPI's layout, made inside `dir`.
void fill(const std::string& dir) {
  fs::create_directories(dir + "/ompi.h.0/pid.1/1/0");
  std::ofstream(dir + "/ompi.h.0/pid.1/contact.txt") << "x";
  std::ofstream(dir + "/vader_segment.h.0.1.0") << "x";
}

// A folder made by a child process that then dies, as a killed collviz's.
std::string orphanedDir(const std::string& base) {
  int p[2];
  EXPECT_EQ(::pipe(p), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    auto d = MpiJobDir::make(base);
    std::string path = d ? d->path() : "";
    fill(path);
    [[maybe_unused]] auto n = ::write(p[1], path.data(), path.size());
    ::_exit(0);  // no destructor: the folder stays, its lock dies with us
  }
  ::close(p[1]);
  char buf[4096] = {};
  const ssize_t n = ::read(p[0], buf, sizeof buf);
  ::close(p[0]);
  ::waitpid(child, nullptr, 0);
  return std::string(buf, std::size_t(std::max<ssize_t>(n, 0)));
}

TEST(MpiJobDir, MadePrivateAndRemovedWithAllInside) {
  TempBase base;
  std::string path;
  {
    auto d = MpiJobDir::make(base.path.string());
    ASSERT_TRUE(d) << d.error().text.english();
    path = d->path();
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_THAT(path, HasSubstr("collviz-mpi-" + std::to_string(::geteuid()) + "-"));
    fill(path);
  }
  EXPECT_FALSE(fs::exists(path)) << "the job's folder outlived the job";
}

TEST(MpiJobDir, MpirunIsToldToPutEverythingThere) {
  auto f = makeMpiJobFiles();
  ASSERT_TRUE(f) << f.error().text.english();
  const auto env = f->env();
  const std::string session = f->session.path();
  const std::string seg = f->segments.empty() ? session : f->segments.path();
  EXPECT_THAT(env, ::testing::Contains("TMPDIR=" + session));
  EXPECT_THAT(env, ::testing::Contains("OMPI_MCA_orte_tmpdir_base=" + session));
  EXPECT_THAT(env, ::testing::Contains("OMPI_MCA_btl_vader_backing_directory=" + seg));
}

TEST(MpiJobDir, OnlyTheFoldersOfDeadJobsAreSwept) {
  TempBase base;
  const std::string b = base.path.string();
  const std::string dead = orphanedDir(b);
  ASSERT_FALSE(dead.empty());
  ASSERT_TRUE(fs::exists(dead + "/ompi.h.0/pid.1/contact.txt"));
  auto living = MpiJobDir::make(b);
  ASSERT_TRUE(living);
  fill(living->path());
  // Named like ours but a link (to a folder that must survive), another
  // uid's name, and one just made with no lock yet (another collviz between
  // mkdtemp and its lock).
  const fs::path target = base.path / "target";
  fs::create_directories(target / "keep");
  const std::string pre = "collviz-mpi-" + std::to_string(::geteuid()) + "-";
  fs::create_directory_symlink(target, base.path / (pre + "link00"));
  fs::create_directories(base.path / ("collviz-mpi-" + std::to_string(::geteuid() + 1) + "-other0"));
  fs::create_directories(base.path / (pre + "fresh0"));

  EXPECT_EQ(sweepStaleMpiJobDirs(b), 1);
  EXPECT_FALSE(fs::exists(dead)) << "a dead job's folder was not swept";
  EXPECT_TRUE(fs::exists(living->path() + "/ompi.h.0/pid.1/contact.txt")) << "a living job's folder was swept";
  EXPECT_TRUE(fs::exists(target / "keep")) << "the sweep followed a link";
  EXPECT_TRUE(fs::is_symlink(base.path / (pre + "link00")));
  EXPECT_TRUE(fs::exists(base.path / ("collviz-mpi-" + std::to_string(::geteuid() + 1) + "-other0")));
  EXPECT_TRUE(fs::exists(base.path / (pre + "fresh0"))) << "a folder just made, its lock not yet taken, was swept";
}

TEST(MpiJobDir, CleanupAtOnceRemovesTheFolder) {
  TempBase base;
  auto d = MpiJobDir::make(base.path.string());
  ASSERT_TRUE(d);
  fill(d->path());
  const std::string path = d->path();
  cleanupNow();  // what Ctrl-C's watchdog calls when collviz must exit at once
  EXPECT_FALSE(fs::exists(path)) << "cleanupNow left the MPI job's folder";
}

}  // namespace
}  // namespace collviz
