// Loads the NCCL module with dlopen(RTLD_NOW | RTLD_LOCAL): every symbol it
// needs (libnccl, libcudart) is bound at once, so a broken install fails
// here with the loader's text, and nothing of it enters collviz-rank's
// global symbol scope.
#include "engine/worker/nccl_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "engine/program_files.h"
#include "engine/worker/nccl_module.h"

namespace collviz {
namespace {

struct Module {
  void* (*make)(int, long long) = nullptr;
  const char* (*probe)() = nullptr;
};

Result<Module> loadModule() {
  const std::string path = ncclModulePath();
  const std::string what = "cannot load the NCCL module " + path + ": ";
  ::dlerror();
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    std::string why = e ? e : "dlopen failed";
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);  // the path is said once
    return Error{what + why};
  }
  // The module stays loaded for the life of the process: its communicator's
  // code must outlive every object it made.
  auto abi = reinterpret_cast<int (*)()>(::dlsym(h, "collviz_nccl_abi_version"));
  Module m;
  m.make = reinterpret_cast<void* (*)(int, long long)>(::dlsym(h, "collviz_make_nccl_communicator"));
  m.probe = reinterpret_cast<const char* (*)()>(::dlsym(h, "collviz_probe_nccl"));
  if (!abi || !m.make || !m.probe)
    return Error{what + "it lacks collviz's entry points (not a collviz NCCL module)"};
  if (const int v = abi(); v != kNcclModuleAbi)
    return Error{what + "it was built for interface " + std::to_string(v) +
                 " and this collviz-rank needs " + std::to_string(kNcclModuleAbi) +
                 " (use the module of the same build)"};
  return m;
}

const Result<Module>& module() {
  static const Result<Module> m = loadModule();
  return m;
}

}  // namespace

std::string ncclModulePath() {
  const char* env = std::getenv("COLLVIZ_NCCL_MODULE");
  if (env && *env) return env;
  return executableDir() + "/" + kNcclModuleFile;
}

Result<std::unique_ptr<Communicator>> loadNcclCommunicator(
    int gpu, std::chrono::steady_clock::time_point started) {
  const Result<Module>& m = module();
  if (!m) return m.error();
  const long long ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(started.time_since_epoch()).count();
  void* c = m->make(gpu, ns);
  if (!c) return Error{"the NCCL module could not make a communicator (out of memory)"};
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

}  // namespace collviz
