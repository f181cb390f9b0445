// collviz-rank: hosts one rank of a real communicator. Started by the engine
// with one end of a socketpair; talks engine/group/protocol.h over it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "engine/group/protocol.h"
#include "engine/group/channel.h"
#include "engine/group/shared_memory.h"
#include "engine/worker/communicator.h"
#include "engine/worker/control_store.h"
#include "engine/worker/fault.h"
#include "engine/worker/heartbeat.h"
#include "engine/worker/rounds_message.h"
#include "engine/group/said_json.h"
#include "engine/group/mpi_launch.h"
#include "engine/group/remote_link.h"
#include "engine/version.h"
#ifdef COLLVIZ_HAVE_NCCL
#include "engine/worker/nccl/loader.h"
#endif
#ifdef COLLVIZ_HAVE_MPI
#include "engine/worker/mpi/loader.h"
#endif

using json = nlohmann::json;
using namespace collviz;

namespace {

json capsJson(const BackendCaps& c) {
  json d = json::array(), r = json::array();
  for (auto t : c.dtypes) d.push_back(std::string(name(t)));
  for (auto x : c.redops) r.push_back(std::string(name(x)));
  return {{"dtypes", d}, {"redops", r}, {"max_ranks", c.max_ranks},
          {"max_rank_bytes", c.max_rank_bytes}};
}

// The English strings and each one's message ("devices_text", ...).
json infoJson(const BackendInfo& b) {
  json j = {{"name", b.name}, {"version", b.version}};
  putSaid(j, "devices", b.devices);
  putSaid(j, "transport", b.transport);
  putSaid(j, "notes", b.notes);
  return j;
}

// The probe's JSON goes to the original stdout; anything a library prints on
// stdout meanwhile (NCCL logs there with NCCL_DEBUG set) goes to stderr.
int probe() {
  std::fflush(stdout);
  const int json_fd = ::dup(STDOUT_FILENO);
  if (json_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::perror("collviz-rank --probe: redirecting stdout");
    return 1;
  }
  json backends = json::array();
  auto gloo = makeGlooCommunicator();
  json g = infoJson(gloo->describe());
  g.update(capsJson(gloo->caps()));
  g["available"] = true;
  g["reason"] = "";
  g["gpus"] = 0;
  backends.push_back(g);
#ifdef COLLVIZ_HAVE_NCCL
  backends.push_back(probeNcclModule());  // loads the NCCL module, or says why it cannot
#else
  backends.push_back({{"name", "nccl"}, {"available", false},
                      {"reason", "this collviz-rank was built without CUDA/NCCL "
                                 "(the CUDA toolkit or NCCL not found at build time)"},
                      {"gpus", 0}});
#endif
#ifdef COLLVIZ_HAVE_MPI
  backends.push_back(probeMpiModule());  // loads the MPI module, or says why it cannot
#else
  backends.push_back({{"name", "mpi"}, {"available", false},
                      {"reason", "this collviz-rank was built without MPI "
                                 "(Open MPI's mpi.h not found at build time: apt-get install "
                                 "libopenmpi-dev, then build again)"},
                      {"gpus", 0}});
#endif
  std::fflush(stdout);
  FILE* out = ::fdopen(json_fd, "w");
  if (!out) return 1;
  // Which collviz and which host answered (collviz devices --hosts, issue 33).
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  const json answer = {{"backends", backends}, {"collviz", collvizVersion()}, {"commit", collvizCommit()}, {"host", host}};
  std::fprintf(out, "%s\n", answer.dump().c_str());
  return std::fclose(out) == 0 ? 0 : 1;
}

using Clock = std::chrono::steady_clock;

struct Args {
  Clock::time_point started = Clock::now();
  int rank = -1, size = 0, fd = -1, gpu = -1, timeout_ms = 5000;
  std::string backend = "gloo";
  std::string connect;  // MPI: the engine's socket; rank from mpirun's environment
  std::string connect_tcp;  // MPI on several hosts: the engine's ADDRESS:PORT
  std::string iface;  // on several hosts: the interface they share (--iface), else the link's
};

int envInt(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : -1;
}

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--rank") a.rank = std::atoi(v.c_str());
    else if (k == "--size") a.size = std::atoi(v.c_str());
    else if (k == "--fd") a.fd = std::atoi(v.c_str());
    else if (k == "--gpu") a.gpu = std::atoi(v.c_str());
    else if (k == "--timeout-ms") a.timeout_ms = std::atoi(v.c_str());
    else if (k == "--backend") a.backend = v;
    else if (k == "--connect") a.connect = v;
    else if (k == "--connect-tcp") a.connect_tcp = v;
    else if (k == "--iface") a.iface = v;
    else return false;
  }
  if (!a.connect.empty() || !a.connect_tcp.empty()) {  // started by mpirun: it says which rank this is
    a.rank = envInt("OMPI_COMM_WORLD_RANK");
    if (a.size != envInt("OMPI_COMM_WORLD_SIZE")) return false;
    return a.rank >= 0 && a.rank < a.size;
  }
  return a.rank >= 0 && a.size > 0 && a.rank < a.size && a.fd >= 0;
}

std::unique_ptr<Communicator> makeCommunicator(const Args& a, Error* why) {
  if (a.backend == "gloo") return makeGlooCommunicator();
#ifdef COLLVIZ_HAVE_NCCL
  if (a.backend == "nccl") {  // the only place a run loads the NCCL module
    auto nccl = loadNcclCommunicator(a.gpu, a.started);
    if (nccl) return std::move(*nccl);
    *why = nccl.error();
    return nullptr;
  }
#endif
#ifdef COLLVIZ_HAVE_MPI
  if (a.backend == "mpi") {  // the only place a run loads the MPI module
    auto mpi = loadMpiCommunicator();
    if (mpi) return std::move(*mpi);
    *why = mpi.error();
    return nullptr;
  }
#endif
  *why = Error{say("backend '{0}' is not built into this collviz-rank", a.backend)};
  return nullptr;
}

// On another host than the engine: a TCP connection proved with the run's
// secret (engine/group/remote_link.h), which is taken out of the environment.
Result<Channel> connectTcp(const Args& a, std::string* host) {
  const char* secret_env = std::getenv(kSecretEnv);
  const std::string secret = secret_env ? secret_env : "";
  ::unsetenv(kSecretEnv);
  if (secret.size() != 2 * kSecretBytes)
    return Error{say("{0} is not set to the run's secret (collviz passes it through mpirun -x)", kSecretEnv)};
  char name[256] = "";
  ::gethostname(name, sizeof name - 1);
  *host = name;
  return connectRemote(a.connect_tcp, secret, a.rank, name, collvizVersion(),
                       std::chrono::milliseconds(std::max(1000, a.timeout_ms)));
}

int serve(Args a) {
  Channel ch(a.fd);
  std::string host;
  const bool remote = !a.connect_tcp.empty();
  if (!a.connect.empty() || remote) {
    auto back = remote ? connectTcp(a, &host) : connectBack(a.connect);
    if (!back) {
      std::fprintf(stderr, "collviz-rank %d: %s\n", a.rank, back.error().message.c_str());
      return 1;
    }
    ch = std::move(*back);
  }
  if (remote && a.backend == "gloo") {
    // Gloo's pairs on the interface this host reaches the engine from.
    sockaddr_in me{};
    socklen_t len = sizeof me;
    char ip[INET_ADDRSTRLEN] = "";
    if (::getsockname(ch.fd(), reinterpret_cast<sockaddr*>(&me), &len) == 0 &&
        ::inet_ntop(AF_INET, &me.sin_addr, ip, sizeof ip))
      ::setenv("COLLVIZ_GLOO_ADDRESS", ip, 1);
  }
  if (remote) {
    // The engine gone (closed, or its host unreachable: the connection's
    // keepalive fails) ends this rank even while it waits inside MPI for a
    // peer that will never come.
    const int fd = ch.fd();
    std::thread([fd] {
      for (;;) {
        pollfd p{fd, POLLRDHUP, 0};
        if (::poll(&p, 1, -1) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an orderly exit goes first
          std::fflush(stderr);
          ::_exit(1);
        }
      }
    }).detach();
  }
  auto wire = parseWireFault(std::getenv(kWireFaultEnv), a.size);
  const bool corrupt_wire = wire && (*wire == -1 || *wire == a.rank);
  Error wire_error;  // a buffer that arrived corrupt: the next run's answer
  Error why;
  std::unique_ptr<Communicator> comm;
#ifdef COLLVIZ_HAVE_NCCL
  if (remote && a.backend == "nccl") {  // this host's GPU for this rank, NCCL's sockets on the hosts' link
    auto gpu = placeNcclRankOnHost(host, a.iface.empty() ? interfaceOf(ch.fd()) : a.iface);
    if (gpu) a.gpu = *gpu;
    else why = gpu.error();
  }
#endif
  if (why.message.empty()) comm = makeCommunicator(a, &why);
  ch.send(json{{"type", "hello"}, {"rank", a.rank}, {"pid", ::getpid()}}.dump());
  if (!comm) {
    ch.send(protocol::errorMessage(why).dump());
    return 1;
  }
  const char* fault_env = std::getenv("COLLVIZ_FAULT");
  auto fault = parseFault(fault_env ? fault_env : "", a.size);
  if (!fault) {
    ch.send(protocol::errorMessage(fault.error()).dump());
    return 1;
  }
  auto faulty = std::make_unique<FaultyCommunicator>(std::move(comm), *fault);
  FaultyCommunicator& injector = *faulty;
  comm = std::move(faulty);
  ChannelStore store(ch);
  if (Status st = comm->init(a.rank, a.size, store, a.timeout_ms); !st) {
    ch.send(protocol::errorMessage(st.error()).dump());
    // A library thread may still be inside its init: end without running
    // destructors under it.
    std::fflush(stderr);
    ::_exit(1);
  }
  ch.send(json{{"type", "ready"}, {"backend", infoJson(comm->describe())}}.dump());
  SharedMemory shm;
  for (;;) {
    comm->idle(true);  // nothing to do until the engine's next message
    auto m = ch.recv(std::chrono::milliseconds(-1));
    const double got_at_us = steadyMicros();  // for the engine's profile: when the run reached this rank
    comm->idle(false);
    if (!m) return 0;  // the engine has gone: nothing left to do
    const json j = json::parse(m->body, nullptr, false);
    const std::string type = j.is_discarded() ? "" : j.value("type", "");
    if (type == "exit") return 0;
    if (remote && type == "put") {  // part of our memory, sent by the engine
      if (Status st = recvBufferAfter(ch, m->body, "put", shm.data(), shm.size(), std::chrono::milliseconds(60000));
          !st) {
        if (st.error().message.find("arrived corrupt") == std::string::npos) return 1;  // the link is gone
        wire_error = Error{say("rank {0} on host {1}: {2}", a.rank, host, st.text())};
      }
      continue;
    }
    if (remote && type == "get") {
      const std::size_t off = j.value("offset", std::size_t(0)), n = j.value("bytes", std::size_t(0));
      if (!shm.data() || off > shm.size() || n > shm.size() - off) return 1;
      if (!sendBuffer(ch, "buffer", off, shm.data() + off, n, corrupt_wire)) return 1;
      continue;
    }
    if (!wire_error.message.empty() && (type == "run" || type == "rounds")) {
      ch.send(protocol::errorMessage(wire_error).dump());
      wire_error = Error{};
      continue;
    }
    if (type == "map") {
      shm.reset();
      auto mapped = remote ? SharedMemory::create(j.value("bytes", std::size_t(0)), "collviz-rank")
                           : SharedMemory::attach(m->fd, j.value("bytes", std::size_t(0)));
      if (!mapped) {
        ch.send(protocol::errorMessage(mapped.error()).dump());
        continue;
      }
      shm = std::move(*mapped);
      ch.send(json{{"type", "mapped"}}.dump());
      continue;
    }
    if (m->fd >= 0) ::close(m->fd);
    if (j.contains("fault")) {  // the window's "Break it", with a run or a round
      auto f = parseFault(j.value("fault", ""), a.size);
      if (!f) {
        ch.send(protocol::errorMessage(f.error()).dump());
        continue;
      }
      injector.setFault(*f);
    }
    if (type == "schedule") {
      if (auto reply = handleSchedulePart(a.rank, j)) ch.send(reply->dump());
      continue;
    }
    // A rank on another host beats while it runs (the engine's period).
    const std::chrono::milliseconds beat_every(remote ? j.value("beat_ms", 0) : 0);
    if (type == "rounds") {
      json reply;
      {
        Heartbeat beat(ch, beat_every);
        reply = handleRounds(*comm, a.rank, j, shm);
      }
      ch.send(reply.dump());
      continue;
    }
    if (type != "run") {
      ch.send(protocol::errorMessage(Error{say("unknown message: {0}", m->body)}).dump());
      continue;
    }
    const OpSpec s = specFromMessage(j);
    const std::size_t in_off = j.value("in_offset", std::size_t(0));
    const std::size_t out_off = j.value("out_offset", std::size_t(0));
    const std::size_t need = out_off + outputBytes(s, a.rank);
    if (!shm.data() || need > shm.size() || in_off + inputBytes(s, a.rank) > shm.size()) {
      ch.send(protocol::errorMessage(Error{say("shared memory too small")}).dump());
      continue;
    }
    const void* in = inputBytes(s, a.rank) ? shm.data() + in_off : nullptr;
    void* out = outputBytes(s, a.rank) ? shm.data() + out_off : nullptr;
    RunOptions o{j.value("warmup", 0), j.value("iters", 1), j.value("timeout_ms", 0)};
    Result<OpTiming> t = Error{};
    {
      Heartbeat beat(ch, beat_every);
      t = comm->run(s, in, out, o);
    }
    if (!t) {
      ch.send(protocol::errorMessage(t.error()).dump());
      continue;
    }
    json done = {{"type", "done"}, {"op_us", t->op_us}, {"copy_us", t->copy_us}};
    if (!remote && t->timed_end_at_us > 0)  // one clock with the engine's: on its host only
      done["at_us"] = {got_at_us, t->warm_end_at_us, t->timed_begin_at_us, t->timed_end_at_us};
    if (!t->copies.empty()) done["copies"] = t->copies;
    if (const Text* c = t->copies.current()) done["copies_text"] = protocol::textToJson(*c);
    ch.send(done.dump());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--probe") == 0) return probe();
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "collviz-rank: started by collviz with --rank R --size N --fd FD "
                 "[--backend gloo|nccl] [--gpu G] [--timeout-ms T], by mpirun with "
                 "--backend mpi|gloo|nccl --connect NAME|--connect-tcp ADDRESS:PORT [--iface NAME] --size N, or --probe\n");
    return 2;
  }
  // End with the engine even if it is killed outright.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 0;
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGINT, SIG_IGN);  // Ctrl-C goes to the engine, which ends us in order
  // stdout is never a channel here: what libraries print there (NCCL logs to
  // stdout with NCCL_DEBUG set) joins the log on stderr.
  std::fflush(stdout);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  try {
    return serve(a);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "collviz-rank %d: out of memory\n", a.rank);
    return 1;
  }
}
