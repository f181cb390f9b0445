// Issue 38 item 18: an MPI job leaves nothing, however it ends. Open MPI
// keeps a session directory (`<tmp>/ompi.<host>.<uid>/pid.<mpirun>`) and the
// shared-memory segments (`vader_segment.*`) and removes them only when the
// job ends in order. Here the job is ended by every other way a person or
// the system ends it — mpirun killed or stopped, a rank stopped, collviz
// killed, terminated or interrupted — and every file Open MPI made for it
// (what mpirun and the ranks had mapped, its session directory, the job's
// own folders) must be gone when collviz has exited, or, when collviz itself
// was killed outright, once the next MPI job has started. Each case is
// bounded (a 60 s wait at most); without mpirun the suite skips, saying so.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "cli_process.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using collviz::test::Cli;
using collviz::test::procField;

bool haveMpirun() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }

// Live children of `parent` whose comm is `comm`.
std::vector<pid_t> childrenOf(pid_t parent, const std::string& comm) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator("/proc", ec)) {
    const std::string n = d.path().filename();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t p = std::stoi(n);
    const std::string stat = procField(p, "stat");
    const auto rp = stat.rfind(')');
    if (rp == std::string::npos || procField(p, "comm") != comm + "\n") continue;
    std::istringstream rest(stat.substr(rp + 2));
    char state;
    int ppid;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(p);
  }
  return out;
}

bool gone(pid_t p) {
  const std::string stat = procField(p, "stat");
  const auto rp = stat.rfind(')');
  return rp == std::string::npos || stat[rp + 2] == 'Z' || stat[rp + 2] == 'X';
}

std::string envOf(pid_t p, const std::string& name) {
  const std::string env = procField(p, "environ");
  const std::string key = name + "=";
  for (std::size_t at = 0; at < env.size();) {
    const std::size_t end = env.find('\0', at);
    const std::string kv = env.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (kv.rfind(key, 0) == 0) return kv.substr(key.size());
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

// A job seen running: mpirun, its ranks, and every file Open MPI made for it.
struct Job {
  pid_t mpirun = -1;
  std::vector<pid_t> ranks;
  std::set<std::string> files;  // files mapped, the session directory, the job's folders
};

// Waits (at most 30 s) until `cli`'s mpirun has `n` ranks that have all
// mapped Open MPI's shared-memory segment and the engine's memory (MPI_Init
// is done and the op is under way), then lists the job.
Job waitForJob(const Cli& cli, int n) {
  Job job;
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < until) {
    const auto m = childrenOf(cli.pid, "mpirun");
    if (m.size() == 1) {
      job.mpirun = m[0];
      job.ranks = childrenOf(job.mpirun, "collviz-rank");
      bool mapped = int(job.ranks.size()) == n;
      for (pid_t r : job.ranks) {
        const std::string maps = procField(r, "maps");
        mapped = mapped && maps.find("vader_segment") != std::string::npos &&
                 maps.find("memfd:collviz-rank") != std::string::npos;
      }
      if (mapped) break;
    }
    std::this_thread::sleep_for(20ms);
  }
  if (job.mpirun < 0) return job;
  for (pid_t p : job.ranks) {
    std::istringstream maps(procField(p, "maps"));
    for (std::string line; std::getline(maps, line);) {
      const auto slash = line.find('/');
      if (slash == std::string::npos) continue;
      const std::string path = line.substr(slash);
      if (path.find("vader_segment") != std::string::npos || path.find("/ompi.") != std::string::npos)
        job.files.insert(path);
    }
  }
  std::string base = envOf(job.mpirun, "OMPI_MCA_orte_tmpdir_base");
  if (base.empty()) base = envOf(job.mpirun, "TMPDIR");
  if (base.empty()) base = "/tmp";
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  job.files.insert(base + "/ompi." + host + "." + std::to_string(::geteuid()) + "/pid." +
                   std::to_string(job.mpirun));
  for (const char* v : {"OMPI_MCA_orte_tmpdir_base", "OMPI_MCA_btl_vader_backing_directory"})
    if (const std::string d = envOf(job.mpirun, v); !d.empty() && d != "/tmp" && d != "/dev/shm")
      job.files.insert(d);
  return job;
}

// Waits (at most 5 s) until mpirun and the ranks are gone.
void waitGone(const Job& job) {
  const auto until = std::chrono::steady_clock::now() + 5s;
  auto all = [&] {
    bool g = gone(job.mpirun);
    for (pid_t r : job.ranks) g = g && gone(r);
    return g;
  };
  while (!all() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(all()) << "mpirun or a rank outlived the job";
}

std::vector<std::string> leftOver(const Job& job) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const std::string& f : job.files)
    if (fs::exists(fs::symlink_status(f, ec))) out.push_back(f);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

class MpiLeftovers : public collviz::test::SubreaperTest {
 protected:
  void SetUp() override {
    if (!haveMpirun()) GTEST_SKIP() << "mpirun not on PATH (Open MPI not installed): no MPI job to end";
  }
  // `collviz run` on MPI, 4 ranks, rank 1 asleep for `delay_ms` after its op.
  static std::unique_ptr<Cli> start(int delay_ms, int deadline_ms) {
    return std::make_unique<Cli>(
        "collviz_mpi_left_",
        std::vector<std::string>{"run", "--backend", "mpi", "-N", "4", "--deadline-ms", std::to_string(deadline_ms)},
        60s, std::vector<std::string>{"COLLVIZ_FAULT=rank:1,delay_ms:" + std::to_string(delay_ms)});
  }
};

TEST_F(MpiLeftovers, MpirunKilledMidOp) {
  auto c = start(20000, 60000);
  const Job job = waitForJob(*c, 4);
  ASSERT_GT(job.mpirun, 0) << "the MPI job never started";
  ASSERT_EQ(::kill(job.mpirun, SIGKILL), 0);
  EXPECT_EQ(c->wait(30s), 1) << c->err;
  waitGone(job);
  EXPECT_TRUE(leftOver(job).empty()) << "left behind after mpirun was killed:" << joined(leftOver(job));
}

TEST_F(MpiLeftovers, MpirunStoppedWhileTheJobEnds) {
  // The op ends after 1.5 s; mpirun, stopped, cannot end the job in order.
  auto c = start(1500, 60000);
  const Job job = waitForJob(*c, 4);
  ASSERT_GT(job.mpirun, 0) << "the MPI job never started";
  ASSERT_EQ(::kill(job.mpirun, SIGSTOP), 0);
  EXPECT_EQ(c->wait(30s), 0) << c->err;
  waitGone(job);
  EXPECT_TRUE(leftOver(job).empty()) << "left behind after mpirun was stopped:" << joined(leftOver(job));
}

TEST_F(MpiLeftovers, RankStoppedMidOp) {
  auto c = start(20000, 1500);
  const Job job = waitForJob(*c, 4);
  ASSERT_GT(job.mpirun, 0) << "the MPI job never started";
  ASSERT_EQ(::kill(job.ranks[2], SIGSTOP), 0);
  EXPECT_EQ(c->wait(30s), 1) << c->err;
  waitGone(job);
  EXPECT_TRUE(leftOver(job).empty()) << "left behind after a rank was stopped:" << joined(leftOver(job));
}

TEST_F(MpiLeftovers, CollvizTerminatedOrInterrupted) {
  for (int sig : {SIGTERM, SIGINT}) {
    auto c = start(20000, 60000);
    const Job job = waitForJob(*c, 4);
    ASSERT_GT(job.mpirun, 0) << "the MPI job never started";
    // SIGINT as Ctrl-C sends it: to the whole process group.
    ASSERT_EQ(sig == SIGINT ? ::kill(-c->pid, sig) : ::kill(c->pid, sig), 0);
    EXPECT_EQ(c->wait(30s), 128 + sig) << c->err;
    waitGone(job);
    EXPECT_TRUE(leftOver(job).empty()) << "left behind after signal " << sig << ":" << joined(leftOver(job));
  }
}

TEST_F(MpiLeftovers, CollvizKilledIsSweptAtTheNextStart) {
  auto c = start(20000, 60000);
  const Job job = waitForJob(*c, 4);
  ASSERT_GT(job.mpirun, 0) << "the MPI job never started";
  ASSERT_EQ(::kill(c->pid, SIGKILL), 0);
  c->wait(10s);
  waitGone(job);  // mpirun dies with collviz, the ranks with mpirun
  // Nothing can clean up after SIGKILL; the next MPI job's start does.
  Cli next("collviz_mpi_next_", {"run", "--backend", "mpi", "-N", "2"}, 60s);
  EXPECT_EQ(next.wait(), 0) << next.err;
  EXPECT_TRUE(leftOver(job).empty()) << "a killed collviz's job files outlived the next start:"
                                     << joined(leftOver(job));
}

}  // namespace
