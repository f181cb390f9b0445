// A stand-in for the NCCL module (a test double: no GPU, no NCCL, no CUDA),
// bound over libcollviz-nccl.so on emulated hosts by nccl_over_hosts.sh to
// test everything NCCL across hosts does before NCCL itself (issue 33):
// the hosts' probe, mpirun starting the NCCL ranks, each host placing its
// own ranks (GPU by local rank, NCCL_SOCKET_IFNAME, NCCL_HOSTID only for
// ranks that share a GPU), every NCCL_* variable passed on, and the
// ncclUniqueId exchange through the engine's control connection.
//
// It exports the module's three entry points (engine/worker/nccl/module.h).
// Its probe says "2 GPUs" (COLLVIZ_STANDIN_GPUS changes it, 0: none) and
// names itself a stand-in; its communicator's init exchanges a random id
// as NCCL's would (rank 0 sets it, the others get it), then writes what it
// was given to NCCL_DEBUG_FILE (%h: host, %p: pid, as NCCL expands it) and
// joins; every op then fails saying it is a stand-in. Nothing it reports
// is shown as a result: no op ever succeeds on it.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include "engine/worker/communicator.h"
#include "engine/worker/nccl/module.h"

namespace {

using namespace collviz;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "(unset)";
}

std::string hostName() {
  char h[256] = "";
  ::gethostname(h, sizeof h - 1);
  return h;
}

int standinGpus() {
  const char* v = std::getenv("COLLVIZ_STANDIN_GPUS");
  return v && *v ? std::atoi(v) : 2;
}

// NCCL_DEBUG_FILE's pattern, expanded as NCCL does for %h and %p.
std::string expand(std::string pattern) {
  for (std::size_t at; (at = pattern.find("%h")) != std::string::npos;) pattern.replace(at, 2, hostName());
  for (std::size_t at; (at = pattern.find("%p")) != std::string::npos;) pattern.replace(at, 2, std::to_string(::getpid()));
  return pattern;
}

class StandIn : public Communicator {
 public:
  explicit StandIn(int gpu) : gpu_(gpu) {}

  Status init(int rank, int size, ControlStore& store, int timeout_ms) override {
    std::string id;
    if (rank == 0) {
      std::random_device rd;
      char hex[17];
      std::snprintf(hex, sizeof hex, "%08x%08x", unsigned(rd()), unsigned(rd()));
      id = hex;
      if (Status s = store.set("nccl/unique_id", {id.begin(), id.end()}); !s) return s;
    } else {
      auto v = store.get("nccl/unique_id", timeout_ms);
      if (!v) return v.error();
      id.assign(v->begin(), v->end());
    }
    const char* file = std::getenv("NCCL_DEBUG_FILE");
    if (!file) return Error{lit("stand-in NCCL module: NCCL_DEBUG_FILE is not set (it was not passed on)")};
    FILE* f = std::fopen(expand(file).c_str(), "w");
    if (!f) return Error{lit("stand-in NCCL module: cannot write NCCL_DEBUG_FILE")};
    std::fprintf(f, "rank=%d size=%d host=%s gpu=%d local_rank=%s ifname=%s hostid=%s uid=%s\n", rank, size,
                 hostName().c_str(), gpu_, env("OMPI_COMM_WORLD_LOCAL_RANK").c_str(),
                 env("NCCL_SOCKET_IFNAME").c_str(), env("NCCL_HOSTID").c_str(), id.c_str());
    return std::fclose(f) == 0 ? Status{} : Status{Error{lit("stand-in NCCL module: writing NCCL_DEBUG_FILE failed")}};
  }

  Result<OpTiming> run(const OpSpec&, const void*, void*, const RunOptions&) override {
    return Error{lit("stand-in NCCL module (a test double): no op runs here")};
  }

  BackendInfo describe() const override {
    BackendInfo b;
    b.name = "nccl";
    b.version = "stand-in (a test double, not NCCL)";
    b.devices = lit("stand-in GPU " + std::to_string(gpu_) + " (not a GPU)");
    return b;
  }

  BackendCaps caps() const override {
    BackendCaps c;
    c.name = "nccl";
    c.dtypes = {DType::f32};
    c.redops = {RedOp::sum};
    return c;
  }

 private:
  int gpu_;
};

}  // namespace

extern "C" {

int collviz_nccl_abi_version(void) { return collviz::kNcclModuleAbi; }

void* collviz_make_nccl_communicator(int gpu, long long) { return new StandIn(gpu); }

const char* collviz_probe_nccl(void) {
  static std::string text;
  const int gpus = standinGpus();
  text = std::string(R"x({"name":"nccl","version":"stand-in (a test double, not NCCL)","available":)x") +
         (gpus > 0 ? "true" : "false") + R"(,"reason":")" + (gpus > 0 ? "" : "stand-in: no GPU on this host") +
         R"(","gpus":)" + std::to_string(gpus) + R"(,"dtypes":["f32"],"redops":["sum"]})";
  return text.c_str();
}
}
