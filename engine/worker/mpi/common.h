// What the MPI communicator and its rounds share: collviz's dtypes and
// reduce ops as MPI datatypes and MPI_Ops. MPI has no 16-bit float type, so
// f16 and bf16 move as 16-bit words (MPI_UINT16_T) and reduce through
// user-defined ops (MPI_Op_create) with the element arithmetic of
// worker/reduce_ops.h: computed in float, f16 rounded as Gloo rounds, bf16 to
// nearest even. avg reduces as MPI_SUM; the division by N comes after.
#pragma once

#include <mpi.h>

#include <string>

#include "engine/spec.h"
#include "engine/text.h"

namespace collviz {

struct MpiTypeOp {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
};

// Creates the user-defined ops once (after MPI_Init); frees them at teardown.
class MpiOps {
 public:
  MpiOps() = default;
  MpiOps(const MpiOps&) = delete;
  MpiOps& operator=(const MpiOps&) = delete;
  ~MpiOps();
  void create();
  MpiTypeOp of(DType t, RedOp r) const;

 private:
  MPI_Op half_[2][4] = {};  // [f16, bf16][sum, prod, min, max]
  bool created_ = false;
};

// MPI's error code as its text ("MPI_ERR_TRUNCATE: message truncated").
Text mpiErrorText(int code);  // MPI_Error_string's text, a literal

}  // namespace collviz
