// The MPI communicator (Open MPI): one rank of an MPI job started by mpirun
// (engine/group/mpi_launch.h). Built only into the MPI module, libcollviz-mpi.so
// (mpi/module.h), which collviz-rank loads for --backend mpi and --probe;
// mpi.h appears only in the engine/worker/mpi_* files.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "engine/worker/communicator.h"

namespace collviz {

std::unique_ptr<Communicator> makeMpiCommunicator();

// The probe's MPI backend object (engine/group/protocol.h): the library's version
// (MPI_Get_library_version, callable before MPI_Init) and what it takes.
nlohmann::json probeMpi();

}  // namespace collviz
