#include "engine/group/devices.h"
#include "engine/group/said_json.h"

#include "engine/group/exit_cleanup.h"
#include "engine/verify/report.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <array>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace collviz {

using json = nlohmann::json;

const BackendStatus* DeviceReport::find(BackendKind k) const {
  for (const auto& b : backends)
    if (b.kind == k) return &b;
  return nullptr;
}

Result<BackendKind> DeviceReport::choose(BackendKind requested, std::string* notice) const {
  Said said;
  auto chosen = choose(requested, notice ? &said : nullptr);
  if (notice && !said.empty()) *notice = said;
  return chosen;
}

Result<BackendKind> DeviceReport::choose(BackendKind requested, Said* notice) const {
  const BackendStatus* nccl = find(BackendKind::nccl);
  const BackendStatus* gloo = find(BackendKind::gloo);
  if (requested == BackendKind::automatic) {
    if (nccl && nccl->available) return BackendKind::nccl;
    if (notice)
      *notice = say("NCCL unavailable ({0}); using Gloo on CPU",
                    nccl ? lit(nccl->reason) : say("not probed"));
    requested = BackendKind::gloo;
  }
  const BackendStatus* b = requested == BackendKind::nccl ? nccl
                           : requested == BackendKind::mpi ? find(BackendKind::mpi)
                                                           : gloo;
  if (!b || !b->available)
    return Error{say("backend {0} is unavailable: {1}", name(requested),
                     b ? lit(b->reason) : say("unknown backend"))};
  return requested;
}

Result<DeviceReport> parseProbe(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.contains("backends"))
    return Error{say("collviz-rank --probe printed no valid report: {0}", text.substr(0, 200))};
  DeviceReport rep;
  for (const auto& b : j["backends"]) {
    BackendStatus s;
    const auto kind = parseBackend(b.value("name", ""));
    if (!kind || *kind == BackendKind::automatic) continue;
    s.kind = *kind;
    s.available = b.value("available", false);
    s.reason = b.value("reason", "");
    s.gpus = b.value("gpus", 0);
    s.info.name = b.value("name", "");
    s.info.version = b.value("version", "");
    s.info.devices = getSaid(b, "devices");
    s.info.transport = getSaid(b, "transport");
    s.info.notes = getSaid(b, "notes");
    s.caps.name = s.info.name;
    for (const auto& d : b.value("dtypes", json::array()))
      if (auto t = parseDType(d.get<std::string>())) s.caps.dtypes.push_back(*t);
    for (const auto& r : b.value("redops", json::array()))
      if (auto x = parseRedOp(r.get<std::string>())) s.caps.redops.push_back(*x);
    s.caps.max_ranks = b.value("max_ranks", kMaxRanks);
    s.caps.max_rank_bytes = b.value("max_rank_bytes", kMaxRankBytes);
    s.version_code = b.value("version_code", 0);
    for (const auto& m : b.value("gpu_memory", json::array())) {
      if (!m.is_object()) continue;
      GpuMemory g;
      g.gpu = m.value("gpu", int(s.gpu_memory.size()));
      g.name = m.value("name", "");
      g.total = m.value("total", std::size_t(0));
      if (m.contains("free") && m["free"].is_number_unsigned()) g.free = m["free"].get<std::size_t>();
      g.error = m.value("error", "");
      s.gpu_memory.push_back(std::move(g));
    }
    rep.backends.push_back(std::move(s));
  }
  return rep;
}

Result<DeviceReport> probeDevices(const std::string& worker_path, int timeout_ms,
                                  const std::atomic<bool>* cancel) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{say("pipe failed")};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Error{say("fork failed")};
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(fds[1], 1);
    char* argv[] = {const_cast<char*>(worker_path.c_str()), const_cast<char*>("--probe"),
                    nullptr};
    ::execv(worker_path.c_str(), argv);
    ::_exit(127);
  }
  registerChild(pid);
  ::close(fds[1]);
  std::string out;
  std::array<char, 4096> buf;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  Text failure;
  for (;;) {
    if (cancel && cancel->load()) {
      failure = say("cancelled");
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      failure = say("the rank worker's probe did not finish within {0} ms (a stalled GPU driver?)",
                    timeout_ms);
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int pr = ::poll(&pfd, 1, 50);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    const ssize_t n = ::read(fds[0], buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf.data(), std::size_t(n));
  }
  ::close(fds[0]);
  if (!failure.empty()) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  forgetChild(pid);
  if (!failure.empty()) return Error{failure};
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Error{WIFEXITED(status) && WEXITSTATUS(status) == 127
                     ? say("cannot run the rank worker {0} (not found or not executable)", worker_path)
                     : say("cannot run the rank worker {0} (probe failed)", worker_path)};
  return parseProbe(out);
}

nlohmann::json toJson(const DeviceReport& d) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& b : d.backends) {
    nlohmann::json e = toJson(b.info);
    e["name"] = name(b.kind);
    e["available"] = b.available;
    if (!b.available) e["reason"] = b.reason;
    e["gpus"] = b.gpus;
    nlohmann::json dt = nlohmann::json::array(), ro = nlohmann::json::array();
    for (auto t : b.caps.dtypes) dt.push_back(name(t));
    for (auto r : b.caps.redops) ro.push_back(name(r));
    e["dtypes"] = dt;
    e["redops"] = ro;
    if (!b.gpu_memory.empty()) {
      nlohmann::json mem = nlohmann::json::array();
      for (const GpuMemory& g : b.gpu_memory) {
        nlohmann::json m = {{"gpu", g.gpu}, {"name", g.name}, {"total", g.total}};
        if (g.free) m["free"] = *g.free;
        else m["error"] = g.error;
        mem.push_back(m);
      }
      e["gpu_memory"] = mem;
    }
    out.push_back(e);
  }
  return {{"backends", out}};
}

}  // namespace collviz
