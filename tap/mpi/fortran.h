// The Fortran bindings (mpif.h, `use mpi` and `use mpi_f08`), as Open MPI 4.1's
// libmpi_mpifh exports them: mpi_allreduce_, mpi_allreduce__,
// mpi_allreduce and MPI_ALLREDUCE are one function there, which calls
// PMPI_Allreduce directly, so the C wrappers never see a Fortran program's
// calls. The tap's Fortran wrappers carry the same four names, convert the
// handles to C (MPI_*_f2c) to describe the call, and forward the very same
// Fortran arguments to libmpi_mpifh's pmpi_allreduce_, found at the first
// call with dlsym (RTLD_NEXT, else the loaded libmpi_mpifh), so a C program
// needs no libmpi_mpifh.
#pragma once

#include "tap/mpi/tap_mpi.h"

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int arrays");

namespace collviz::tap::mpi {

// libmpi_mpifh's `name` (say "pmpi_allreduce_"); nullptr when absent.
void* fortranReal(const char* name);
// A Fortran buffer argument as C sees it: Fortran's MPI_IN_PLACE (Open MPI's
// mpi_fortran_in_place_ common block) is MPI_IN_PLACE, its MPI_BOTTOM is
// MPI_BOTTOM (nothing kept).
void* fortranBuf(void* p);

inline MPI_Comm fComm(const MPI_Fint* f) { return PMPI_Comm_f2c(*f); }
inline MPI_Datatype fType(const MPI_Fint* f) { return PMPI_Type_f2c(*f); }
inline MPI_Op fOp(const MPI_Fint* f) { return PMPI_Op_f2c(*f); }
inline MPI_Request fRequest(const MPI_Fint* f) { return PMPI_Request_f2c(*f); }

}  // namespace collviz::tap::mpi

// Defines `lower_` and its three other names; the body follows. A fifth
// name, ompi_allreduce_f, is what Open MPI's `use mpi_f08` bindings
// (libmpi_usempif08) call in libmpi_mpifh, so mpi_f08 programs are seen too.
#define COLLVIZ_FORTRAN(lower, UPPER, params)                                 \
  extern "C" void lower##_ params;                                           \
  extern "C" void lower params __attribute__((alias(#lower "_")));           \
  extern "C" void lower##__ params __attribute__((alias(#lower "_")));       \
  extern "C" void UPPER params __attribute__((alias(#lower "_")));           \
  extern "C" void o##lower##_f params __attribute__((alias(#lower "_")));    \
  extern "C" void lower##_ params

// In a wrapper's body: `real_`, libmpi_mpifh's pmpi_ function of the same
// type; without it the call fails with MPI_ERR_INTERN (it cannot happen in
// a program that calls the Fortran bindings, which live there).
#define COLLVIZ_FORTRAN_REAL(lower)                                                         \
  static const auto real_ = reinterpret_cast<decltype(&lower##_)>(                          \
      ::collviz::tap::mpi::fortranReal("p" #lower "_"));                                     \
  if (!real_) {                                                                             \
    if (ierr) *ierr = MPI_ERR_INTERN;                                                       \
    return;                                                                                 \
  }
