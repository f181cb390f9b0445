#include "engine/worker/mpi/rounds.h"

#include <cstring>
#include <exception>

#include "engine/dtype.h"
#include "engine/worker/round_runner.h"

namespace collviz {
namespace {

class MpiRoundDevice : public HostRoundDevice {
 public:
  MpiRoundDevice(MPI_Comm comm, int tag_ub, const OpSpec& s, const MpiOps& ops)
      : HostRoundDevice(s.dtype), comm_(comm), tag_ub_(tag_ub), to_(ops.of(s.dtype, s.redop)) {}

  Status exchange(const std::vector<Post>& sends, const std::vector<Post>& recvs) override {
    std::vector<MPI_Request> reqs;
    reqs.reserve(sends.size() + recvs.size());
    // Tags fold into MPI's range; MPI also keeps the order of messages with
    // equal tags between two ranks, and the runner posts both sides in the
    // schedule's order.
    auto tag = [&](uint64_t t) { return int(t % uint64_t(tag_ub_ + 1)); };
    for (const Post& p : recvs) {
      reqs.emplace_back();
      if (int err = MPI_Irecv(p.ptr, int(p.bytes), MPI_BYTE, p.peer, tag(p.tag), comm_,
                              &reqs.back());
          err != MPI_SUCCESS)
        return Error{say("MPI_Irecv from rank {0}: {1}", p.peer, mpiErrorText(err))};
    }
    for (const Post& p : sends) {
      reqs.emplace_back();
      if (int err = MPI_Isend(p.ptr, int(p.bytes), MPI_BYTE, p.peer, tag(p.tag), comm_,
                              &reqs.back());
          err != MPI_SUCCESS)
        return Error{say("MPI_Isend to rank {0}: {1}", p.peer, mpiErrorText(err))};
    }
    if (int err = MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
        err != MPI_SUCCESS)
      return Error{say("MPI_Waitall: {0}", mpiErrorText(err))};
    return {};
  }
  void reduce(std::byte* dst, const std::byte* src, std::size_t elems) override {
    MPI_Reduce_local(src, dst, int(elems), to_.type, to_.op);  // dst = src op dst
  }

 private:
  MPI_Comm comm_;
  int tag_ub_;
  MpiTypeOp to_;
};

}  // namespace

MpiRounds::MpiRounds(MPI_Comm world, const MpiOps& ops) : ops_(ops) {
  MPI_Comm_dup(world, &comm_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  int* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  if (found && ub && *ub > 0) tag_ub_ = *ub;
}

MpiRounds::~MpiRounds() {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Result<RoundsTiming> MpiRounds::run(const algo::Schedule& s, int rank, int from, int to,
                                    const void* in, void* work, const RunOptions& o) {
  try {
    RoundRunner runner(s, rank, o.round_fault);
    if (scratch_.size() < runner.scratchBytes()) scratch_.resize(runner.scratchBytes());
    auto* w = static_cast<std::byte*>(work);
    auto* sc = reinterpret_cast<std::byte*>(scratch_.data());
    MpiRoundDevice dev(comm_, tag_ub_, s.spec, ops_);
    return runRoundRange(dev, runner, from, to, w, sc, static_cast<const std::byte*>(in), o);
  } catch (const std::exception& e) {
    return Error{say("mpi: {0}", e.what())};
  }
}

}  // namespace collviz
