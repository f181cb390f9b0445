// The stand-in NCCL's ops (tests only): one call as NCCL received it, and
// the stream work of a fused group (everything between the outermost
// ncclGroupStart and ncclGroupEnd on one communicator, or one call alone).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "tests/standin/internal.h"
#include "tests/standin/nccl_comm.h"

namespace collviz::standin {

struct Op {
  OpKind kind;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;  // as the call's count argument (see NCCL's conventions)
  int dtype = 0, redop = 0, root = 0, peer = 0;
  cudaStream_t stream = nullptr;
  std::uint64_t index = 0;  // collectives: the place among the communicator's collectives
  Fault fault;              // stall, async_error or kill, acted on in the stream work
};

// The stream work of one fused group on `c`: every send of the group is
// made first (each rank's own contribution copied, so in-place ops read
// their input before anything is written), then every receive, in the order
// the calls were made; a point-to-point send ends when its receiver has
// taken it (NCCL's send is blocking for the device).
void execute(Comm& c, std::vector<Op>& ops, std::uint64_t group);

}  // namespace collviz::standin
