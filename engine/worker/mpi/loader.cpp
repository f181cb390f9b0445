#include "engine/worker/mpi/loader.h"

#include "engine/group/mpi_launch.h"
#include "engine/worker/mpi/module.h"
#include "engine/worker/module_loader.h"

namespace collviz {
namespace {

struct Module {
  void* (*make)() = nullptr;
  const char* (*probe)() = nullptr;
};

Result<Module> loadModule() {
  auto h = openModule(mpiModulePath(), "MPI", "collviz_mpi_abi_version", kMpiModuleAbi);
  if (!h) return h.error();
  Module m;
  m.make = reinterpret_cast<void* (*)()>(moduleSymbol(*h, "collviz_make_mpi_communicator"));
  m.probe = reinterpret_cast<const char* (*)()>(moduleSymbol(*h, "collviz_probe_mpi"));
  if (!m.make || !m.probe)
    return lacksEntryPoints("MPI", mpiModulePath());
  return m;
}

const Result<Module>& module() {
  static const Result<Module> m = loadModule();
  return m;
}

}  // namespace

std::string mpiModulePath() { return modulePath("COLLVIZ_MPI_MODULE", kMpiModuleFile); }

Result<std::unique_ptr<Communicator>> loadMpiCommunicator() {
  const Result<Module>& m = module();
  if (!m) return m.error();
  void* c = m->make();
  if (!c) return Error{say("the {0} module could not make a communicator (out of memory)", "MPI")};
  return std::unique_ptr<Communicator>(static_cast<Communicator*>(c));
}

nlohmann::json probeMpiModule() {
  const Result<Module>& m = module();
  if (!m) return {{"name", "mpi"}, {"available", false}, {"reason", m.error().message}, {"gpus", 0}};
  nlohmann::json j = nlohmann::json::parse(m->probe(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return {{"name", "mpi"}, {"available", false},
            {"reason", "the MPI module's probe printed no valid JSON"}, {"gpus", 0}};
  if (auto run = findMpirun(); !run) {
    j["available"] = false;
    j["reason"] = run.error().message;
  }
  return j;
}

}  // namespace collviz
