// An algorithm's rounds on MPI: the round runner (round_runner.h) with each
// round's sends and receives posted as MPI_Isend/MPI_Irecv on a communicator
// of their own and completed with one MPI_Waitall; combines with
// MPI_Reduce_local and the same ops as the collectives (mpi/common.h).
#pragma once

#include <mpi.h>

#include <vector>

#include "engine/algo/schedule.h"
#include "engine/worker/communicator.h"
#include "engine/worker/mpi/common.h"

namespace collviz {

class MpiRounds {
 public:
  // Duplicates `world` (collectives and rounds never share a message queue).
  MpiRounds(MPI_Comm world, const MpiOps& ops);
  ~MpiRounds();
  MpiRounds(const MpiRounds&) = delete;
  MpiRounds& operator=(const MpiRounds&) = delete;
  Result<RoundsTiming> run(const algo::Schedule& s, int rank, int from, int to, const void* in,
                           void* work, const RunOptions& o);

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  const MpiOps& ops_;
  int tag_ub_ = 32767;
  std::vector<char> scratch_;
};

}  // namespace collviz
