// The MPI module's C entry points (mpi/module.h). Nothing throws past them.
#include "engine/worker/mpi/module.h"

#include <new>
#include <string>

#include "engine/worker/mpi/communicator.h"

extern "C" {

int collviz_mpi_abi_version(void) { return collviz::kMpiModuleAbi; }

void* collviz_make_mpi_communicator(void) {
  try {
    return collviz::makeMpiCommunicator().release();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

const char* collviz_probe_mpi(void) {
  static std::string text;
  try {
    text = collviz::probeMpi().dump();
    return text.c_str();
  } catch (...) {
    return R"({"name":"mpi","available":false,"reason":"the MPI probe failed inside the MPI module","gpus":0})";
  }
}
}
