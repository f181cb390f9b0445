// collviz-rank's side of the MPI module (mpi/module.h): loading it once, on
// first use, for `--backend mpi` and `--probe` only.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/text.h"
#include "engine/worker/communicator.h"

namespace collviz {

// $COLLVIZ_MPI_MODULE when set, else libcollviz-mpi.so beside collviz-rank.
std::string mpiModulePath();

Result<std::unique_ptr<Communicator>> loadMpiCommunicator();

// The probe's MPI object: the module's own (available only where mpirun is
// found too), or available=false with the reason.
nlohmann::json probeMpiModule();

}  // namespace collviz
