// The MPI module, libcollviz-mpi.so: the MPI communicator and probe as a
// shared library beside collviz-rank, which loads it with dlopen only for
// `--backend mpi` and `--probe` (mpi/loader.h), as it loads the NCCL module
// (nccl/module.h). collviz-rank itself never needs libmpi, so a machine
// without Open MPI runs Gloo (and NCCL) as before and says why MPI is not
// there. The entry points are C functions; the communicator is the C++
// Communicator of communicator.h, so module and collviz-rank come from one
// build (collviz_mpi_abi_version checks it).
#pragma once

extern "C" {

int collviz_mpi_abi_version(void);

// A new MPI communicator: a collviz::Communicator* the caller owns, or
// nullptr when out of memory. Its init() calls MPI_Init.
void* collviz_make_mpi_communicator(void);

// The probe's MPI backend object (engine/group/protocol.h) as JSON text, valid
// until the next call. Calls no MPI_Init.
const char* collviz_probe_mpi(void);
}

namespace collviz {

inline constexpr int kMpiModuleAbi = 2;  // 2: Error and OpTiming carry messages (engine/text.h)
inline constexpr const char* kMpiModuleFile = "libcollviz-mpi.so";

}  // namespace collviz
