#include "tests/engine/worker/nccl_group.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>


#include "engine/group/placement.h"
#include "engine/worker/nccl/communicator.h"

// libgcov's, in a coverage build only (weak: null otherwise).
extern "C" void __gcov_dump(void) __attribute__((weak));

namespace collviz::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Rendezvous through files in a fresh directory (one per group).
class FileStore final : public ControlStore {
 public:
  explicit FileStore(fs::path dir) : dir_(std::move(dir)) {}
  Status set(const std::string& key, const std::vector<char>& v) override {
    const fs::path tmp = path(key).string() + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(v.data(), std::streamsize(v.size()));
    fs::rename(tmp, path(key));
    return {};
  }
  Result<std::vector<char>> get(const std::string& key, int timeout_ms) override {
    const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!fs::exists(path(key))) {
      if (Clock::now() > end) return Error{"timeout waiting for " + key};
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::ifstream f(path(key), std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), {});
  }

 private:
  fs::path path(std::string key) const {
    for (char& c : key)
      if (c == '/') c = '_';
    return dir_ / key;
  }
  fs::path dir_;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

std::vector<RankEnd> runRanks(int ranks, int gpus, int version, const RankBody& body, const GroupOptions& o) {
  char tmpl[] = "/tmp/collviz-nccl-test-XXXXXX";
  const fs::path dir = ::mkdtemp(tmpl);
  const auto placement = placeRanks(ranks, BackendKind::nccl, gpus, version);
  std::vector<pid_t> pids;
  std::vector<int> fds;
  std::vector<RankEnd> ends(static_cast<std::size_t>(ranks));
  const auto t0 = Clock::now();
  for (int r = 0; r < ranks; ++r) {
    int p[2];
    if (::pipe(p) != 0) {
      ends[std::size_t(r)].said = "pipe failed";
      continue;
    }
    const fs::path err = dir / ("stderr." + std::to_string(r));
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(p[0]);
      if (o.capture_stderr) {
        const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) ::dup2(fd, 2), ::close(fd);
      }
      for (const auto& [k, v] : placement[std::size_t(r)].env) ::setenv(k.c_str(), v.c_str(), 1);
      for (const auto& [k, v] : o.env) ::setenv(k.c_str(), v.c_str(), 1);
      if (auto it = o.rank_env.find(r); it != o.rank_env.end())
        for (const auto& [k, v] : it->second) ::setenv(k.c_str(), v.c_str(), 1);
      std::string result;
      {
        const int gpu = o.gpu >= -1 ? o.gpu : placement[std::size_t(r)].gpu;
        auto comm = makeNcclCommunicator(gpu, Clock::now() - o.started_before);
        FileStore store(dir);
        Status st = comm->init(r, ranks, store, o.timeout_ms);
        result = st ? body(r, *comm) : "init: " + st.message();
      }
      if (::write(p[1], result.data(), result.size()) < 0) ::_exit(3);
      std::fflush(stderr);
      flushCoverage();
      ::_exit(0);
    }
    ::close(p[1]);
    pids.push_back(pid);
    fds.push_back(p[0]);
  }
  std::vector<bool> open(fds.size(), true);
  const auto end = t0 + std::chrono::seconds(o.wall_s);
  for (std::size_t left = fds.size(); left > 0 && Clock::now() < end;) {
    std::vector<pollfd> pf;
    for (std::size_t r = 0; r < fds.size(); ++r)
      if (open[r]) pf.push_back({fds[r], POLLIN, 0});
    if (::poll(pf.data(), pf.size(), 200) <= 0) continue;
    for (const auto& p : pf) {
      if (!(p.revents & (POLLIN | POLLHUP))) continue;
      const std::size_t r = std::size_t(std::find(fds.begin(), fds.end(), p.fd) - fds.begin());
      char buf[4096];
      const ssize_t n = ::read(p.fd, buf, sizeof buf);
      if (n > 0) {
        ends[r].said.append(buf, std::size_t(n));
      } else {
        open[r] = false;
        --left;
        ends[r].seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      }
    }
  }
  for (std::size_t r = 0; r < pids.size(); ++r) {
    if (open[r]) {
      ::kill(pids[r], SIGKILL);
      ends[r].hung = true;
    }
    ::waitpid(pids[r], &ends[r].status, 0);
    ::close(fds[r]);
    ends[r].err = slurp(dir / ("stderr." + std::to_string(r)));
  }
  fs::remove_all(dir);
  return ends;
}

std::vector<std::string> failures(const std::vector<RankEnd>& ends) {
  std::vector<std::string> out;
  for (std::size_t r = 0; r < ends.size(); ++r) {
    const RankEnd& e = ends[r];
    const std::string who = "rank " + std::to_string(r) + ": ";
    if (e.hung) out.push_back(who + "hung, killed");
    else if (!(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0))
      out.push_back(who + "exited abnormally (status " + std::to_string(e.status) + ")");
    else if (!e.said.empty()) out.push_back(who + e.said);
  }
  return out;
}

void flushCoverage() {
  if (__gcov_dump) __gcov_dump();
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace collviz::test
