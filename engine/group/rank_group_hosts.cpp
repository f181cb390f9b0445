// An MPI group across hosts (issue 33): mpirun starts the ranks on the
// hosts (-H, the launcher agent), each connects back to the engine over TCP
// and proves it holds the run's secret (engine/group/remote_link.h). A rank's
// memory lives on its host: the engine keeps a copy of the same layout (the
// memory it writes inputs into and checks outputs in, as on one host), sends
// a step's inputs and poisoned outputs before the step and fetches the
// outputs after it, every buffer checked with its CRC32C.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/group/deadline.h"
#include "engine/group/exit_cleanup.h"
#include "engine/group/rank_group.h"
#include "engine/group/remote_link.h"
#include "engine/version.h"

extern char** environ;

namespace collviz {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::chrono::milliseconds RankGroup::transferTimeout(std::size_t bytes) const {
  return deadline() + std::chrono::milliseconds(std::llround(double(bytes) / kSlowestBytesPerSecond * 1000.0));
}

Status RankGroup::launchMpiHosts() {
  const int n = cfg_.ranks;
  const HostSpec& hosts = cfg_.hosts;
  auto where = placeOnHosts(hosts, n);
  if (!where) return where.error();
  if (auto wire = parseWireFault(std::getenv(kWireFaultEnv), n); !wire) return wire.error();
  auto mpirun = findMpirun();
  if (!mpirun) return Error{say("starting mpi: {0}", mpirun.error().text)};
  auto address = listenAddress(hosts.iface, hosts.hosts.front().name);
  if (!address) return Error{say("starting mpi: {0}", address.error().text)};
  auto listener = TcpListener::open(*address);
  if (!listener) return Error{say("starting mpi: {0}", listener.error().text)};
  auto secret = makeSecret();
  if (!secret) return secret.error();
  const std::string at = listener->address() + ":" + std::to_string(listener->port());
  std::vector<std::string> worker = {cfg_.worker_path, "--backend", std::string(name(cfg_.backend)), "--connect-tcp", at,
                                           "--size", std::to_string(n), "--timeout-ms",
                                           std::to_string(initTimeout().count())};
  if (!hosts.iface.empty()) worker.insert(worker.end(), {"--iface", hosts.iface});
  // The secret only in the environment, passed on by name (-x); so are the
  // faults, the NCCL module's path and every NCCL_* variable set here.
  std::vector<std::string> pass = {kSecretEnv};
  for (const char* v : {"COLLVIZ_FAULT", "COLLVIZ_WIRE_FAULT", "COLLVIZ_NCCL_MODULE"})
    if (std::getenv(v)) pass.push_back(v);
  if (cfg_.backend == BackendKind::nccl)
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "NCCL_", 5) == 0 && std::strchr(*e, '='))
        pass.emplace_back(*e, std::strchr(*e, '=') - *e);
  std::vector<std::string> added = mpirunEnv(::geteuid() == 0);
  added.push_back(std::string(kSecretEnv) + "=" + *secret);
  if (Status st = forkMpirun(*mpirun, mpirunArgs(*mpirun, n, hosts, pass, worker), added); !st) return st;
  std::fprintf(stderr, "collviz: ranks connect to %s (%d ranks on %s)\n", at.c_str(), n, hosts.hostList().c_str());

  const auto deadline = Clock::now() + joinTimeout();
  // Every connection's handshake at once, each with its own 2 s: a silent
  // or slow stranger never keeps a rank out (issue 55).
  Handshakes shakes(*secret, n, std::chrono::milliseconds(2000));
  std::vector<bool> joined(std::size_t(n), false);
  int left = n;
  auto missing = [&] {
    std::vector<int> m;
    for (int r = 0; r < n; ++r)
      if (!joined[std::size_t(r)]) m.push_back(r);
    return m;
  };
  while (left > 0) {
    if (cfg_.cancel && cfg_.cancel->load()) {
      healthy_ = false;
      return Error{say("cancelled")};
    }
    int status = 0;
    if (reapJob(mpirun_, &status, false) == mpirun_) {
      forgetChild(mpirun_);
      mpirun_ = -1;
      mpi_log_.stop();
      healthy_ = false;
      return Error{say("starting {0} on {1}: mpirun {2} before rank(s) {3} connected (Open MPI's message is on stderr)",
                       name(cfg_.backend), hosts.hostList(), exitText(status), rankList(missing()))};
    }
    if (Clock::now() >= deadline) {
      healthy_ = false;
      return Error{say("starting {0} on {1}: rank(s) {2} never said hello within {3} ms", name(cfg_.backend),
                       hosts.hostList(), rankList(missing()), joinTimeout().count())};
    }
    auto next = shakes.next(*listener, std::chrono::milliseconds(50));
    if (!next) continue;
    Result<RemotePeer>& peer = *next;
    if (peer && joined[std::size_t(peer->rank)])
      peer = Error{say("refused a connection from {0}: {1}", peer->host,
                       say("rank {0} has joined already (a replayed or second hello)", peer->rank))};
    if (!peer) {  // anything not of this run: logged, refused, the run goes on
      ++refused_;
      std::fprintf(stderr, "collviz: %s\n", peer.error().message.c_str());
      continue;
    }
    if (peer->version != collvizVersion()) {
      healthy_ = false;
      return Error{say("starting {0}: host {1} runs collviz-rank {2} and this collviz is {3}; install the same version on every host",
                       name(cfg_.backend), peer->host, peer->version.empty() ? std::string("(unknown)") : peer->version, collvizVersion())};
    }
    Worker& w = workers_[std::size_t(peer->rank)];
    joined[std::size_t(peer->rank)] = true;
    --left;
    w.pid = -1;  // not a process of this host: never read nor signalled here
    w.child = false;
    w.remote = true;
    w.host = peer->host;
    w.remote_pid = peer->pid;
    w.ch = std::move(peer->ch);
  }
  listener->close();  // every rank has said hello: nobody else may join
  return {};
}

// One thread per rank, its spans in order on its connection.
Status RankGroup::pushSpans(const std::vector<Span>& spans) { return moveSpans(spans, true); }
Status RankGroup::pullSpans(const std::vector<Span>& spans) { return moveSpans(spans, false); }

Status RankGroup::moveSpans(const std::vector<Span>& spans, bool push) {
  const int n = cfg_.ranks;
  std::vector<Status> st(static_cast<std::size_t>(n));
  std::vector<std::thread> pool;
  for (int r = 0; r < n; ++r) {
    std::vector<Span> mine;
    for (const Span& s : spans)
      if (s.rank == r) mine.push_back(s);
    if (mine.empty()) continue;
    pool.emplace_back([this, r, mine, push, &st] {
      Worker& w = workers_[std::size_t(r)];
      for (const Span& s : mine) {
        Status one = push ? sendBuffer(w.ch, "put", s.off, w.shm.data() + s.off, s.n)
                          : w.ch.send(json{{"type", "get"}, {"offset", s.off}, {"bytes", s.n}}.dump());
        if (one && !push) one = recvBuffer(w.ch, "buffer", w.shm.data(), w.shm.size(), transferTimeout(s.n));
        if (!one) {
          st[std::size_t(r)] = one;
          return;
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  for (int r = 0; r < n; ++r)
    if (!st[std::size_t(r)]) {
      healthy_ = false;
      const Worker& w = workers_[std::size_t(r)];
      return Error{push ? say("sending rank {0}'s buffers to host {1}: {2}", r, w.host, st[std::size_t(r)].text())
                        : say("fetching rank {0}'s buffers from host {1}: {2}", r, w.host, st[std::size_t(r)].text())};
    }
  return {};
}

}  // namespace collviz
