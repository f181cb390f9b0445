// Loads the NCCL module (module_loader.h): every symbol it needs (libnccl,
// libcudart) is bound at once, so a broken install fails here with the
// loader's text.
#include "engine/worker/nccl/loader.h"

#include <cstdlib>

#include "engine/group/placement.h"
#include "engine/worker/module_loader.h"
#include "engine/worker/nccl/module.h"

namespace collviz {
namespace {

struct Module {
  void* (*make)(int, long long) = nullptr;
  const char* (*probe)() = nullptr;
};

Result<Module> loadModule() {
  auto h = openModule(ncclModulePath(), "NCCL", "collviz_nccl_abi_version", kNcclModuleAbi);
  if (!h) return h.error();
  Module m;
  m.make = reinterpret_cast<void* (*)(int, long long)>(
      moduleSymbol(*h, "collviz_make_nccl_communicator"));
  m.probe = reinterpret_cast<const char* (*)()>(moduleSymbol(*h, "collviz_probe_nccl"));
  if (!m.make || !m.probe)
    return lacksEntryPoints("NCCL", ncclModulePath());
  return m;
}

const Result<Module>& module() {
  static const Result<Module> m = loadModule();
  return m;
}

}  // namespace

std::string ncclModulePath() { return modulePath("COLLVIZ_NCCL_MODULE", kNcclModuleFile); }

Result<std::unique_ptr<Communicator>> loadNcclCommunicator(
    int gpu, std::chrono::steady_clock::time_point started) {
  const Result<Module>& m = module();
  if (!m) return m.error();
  const long long ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(started.time_since_epoch()).count();
  void* c = m->make(gpu, ns);
  if (!c) return Error{say("the {0} module could not make a communicator (out of memory)", "NCCL")};
  return std::unique_ptr<Communicator>(static_cast<Communicator*>(c));
}

nlohmann::json probeNcclModule() {
  const Result<Module>& m = module();
  if (!m)
    return {{"name", "nccl"}, {"available", false}, {"reason", m.error().message}, {"gpus", 0}};
  nlohmann::json j = nlohmann::json::parse(m->probe(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return {{"name", "nccl"}, {"available", false},
            {"reason", "the NCCL module's probe printed no valid JSON"}, {"gpus", 0}};
  return j;
}

Result<int> placeNcclRankOnHost(const std::string& host, const std::string& iface) {
  const char* lr = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const char* ls = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!lr || !ls) return Error{say("host {0}: mpirun did not say this rank's local rank (OMPI_COMM_WORLD_LOCAL_RANK)", host)};
  const nlohmann::json probe = probeNcclModule();
  const int gpus = probe.value("gpus", 0);
  if (!probe.value("available", false) || gpus <= 0)
    return Error{say("NCCL unavailable on host {0}: {1}", host, probe.value("reason", std::string("no GPU")))};
  const RankPlacement p = placeOnHost(std::atoi(lr), std::atoi(ls), gpus, host, iface);
  for (const auto& [k, v] : p.env) ::setenv(k.c_str(), v.c_str(), k == "NCCL_SOCKET_IFNAME" ? 0 : 1);
  return p.gpu;
}

}  // namespace collviz
