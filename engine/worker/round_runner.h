// Runs one rank's part of a schedule (engine/algo/schedule.h) round by
// round on whatever memory and point-to-point calls a backend provides: the
// Gloo worker passes host memory and Gloo's unbound buffers, the NCCL
// worker device memory and ncclSend/ncclRecv. Per round: local copies, then
// every send and receive posted at once, then the received data combined
// into (or copied to) its slots, then local copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/algo/schedule.h"
#include "engine/dtype.h"
#include "engine/text.h"
#include "engine/worker/communicator.h"

namespace collviz {

// What a backend provides. Pointers are into the working buffer or the
// scratch buffer the runner asked for (host or device memory alike).
class RoundDevice {
 public:
  struct Post {
    int peer = 0;
    std::byte* ptr = nullptr;
    std::size_t bytes = 0;
    uint64_t tag = 0;  // unique within a round between a pair of ranks
  };
  virtual ~RoundDevice() = default;
  // Post every send and receive of one round and wait until all are done.
  virtual Status exchange(const std::vector<Post>& sends, const std::vector<Post>& recvs) = 0;
  // dst[i] = dst[i] (op) src[i] for `elems` elements of the spec's dtype.
  virtual void reduce(std::byte* dst, const std::byte* src, std::size_t elems) = 0;
  virtual void copy(std::byte* dst, const std::byte* src, std::size_t bytes) = 0;
  virtual void zero(std::byte* dst, std::size_t bytes) = 0;
  // From the rank's input into the working buffer: `src` is what the caller
  // gave start() (Gloo: the input in shared memory; NCCL: its device copy).
  virtual void load(std::byte* dst, const std::byte* src, std::size_t bytes) = 0;
  // p[i] /= n (avg), `elems` elements.
  virtual void divide(std::byte* p, std::size_t elems, int n) = 0;
  // Flip the lowest bit of the byte at p (COLLVIZ_FAULT round_corrupt only).
  virtual void flipLowBit(std::byte* p) = 0;
  // Wait for local work queued so far (a GPU stream); the host does it at once.
  virtual Status sync() { return {}; }
};

// A device on host memory (Gloo, MPI): everything but the messages and the
// reduce is plain memory work, shared here.
class HostRoundDevice : public RoundDevice {
 public:
  explicit HostRoundDevice(DType dtype) : dtype_(dtype) {}
  void copy(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void zero(std::byte* dst, std::size_t bytes) override { std::memset(dst, 0, bytes); }
  void load(std::byte* dst, const std::byte* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void divide(std::byte* p, std::size_t elems, int n) override {
    for (std::size_t i = 0; i < elems; ++i)
      writeElement(p, dtype_, i, readElement(p, dtype_, i) / n);
  }
  void flipLowBit(std::byte* p) override { *p ^= std::byte{1}; }

 protected:
  DType dtype_;
};

struct RoundCounts {
  uint64_t sent = 0, received = 0;  // bytes, this rank
};

class RoundRunner {
 public:
  // `fault`: a fault on purpose in one round (worker/fault.h's round_*
  // modes), planned here so every backend breaks the round the same way.
  // A schedule whose slots, ranks or input pieces fall outside its buffers
  // is refused (status() says which, and round() and runRoundRange return
  // it): nothing is read or written out of range.
  RoundRunner(const algo::Schedule& s, int rank, RoundFault fault = {});
  const Status& status() const { return status_; }
  std::size_t scratchBytes() const { return scratch_bytes_; }
  int rounds() const { return int(plans_.size()); }
  // The working buffer as the schedule starts it (input blocks in their slots).
  void start(RoundDevice& d, std::byte* work, const std::byte* in) const;
  Status round(RoundDevice& d, int k, std::byte* work, std::byte* scratch,
               RoundCounts& counts) const;
  // After the last round: the final division (avg).
  void finish(RoundDevice& d, std::byte* work) const;

 private:
  struct Span {            // `count` slots of the working buffer, or bytes of scratch
    bool scratch = false;
    std::size_t offset = 0;  // bytes
    std::size_t bytes = 0;
  };
  struct Xfer {
    int peer = 0;
    Span span;
    uint64_t tag = 0;
  };
  struct Combine {  // received data (in scratch) into its slots
    std::size_t from = 0, to = 0, bytes = 0;
    bool reduce = false;
  };
  struct CopyGroup {  // one LocalCopy: all reads before writes, through scratch
    std::vector<std::pair<int, int>> moves;  // (src slot, dst slot)
    bool reduce = false;
  };
  using Copies = std::vector<CopyGroup>;  // in order
  struct Plan {
    Copies before, after;
    std::vector<Xfer> sends, recvs;
    std::vector<Combine> combines;
    RoundFault::Kind fault_after = RoundFault::Kind::none;  // corrupt or swap, after the round
    std::size_t corrupt_at = 0;  // byte of the working buffer round_corrupt flips
  };
  void runCopies(RoundDevice& d, const Copies& c, std::byte* work, std::byte* scratch) const;
  void breakAfter(RoundDevice& d, const Plan& plan, std::byte* work, std::byte* scratch) const;

  const algo::Schedule& s_;
  int rank_;
  Status status_;
  std::size_t slot_ = 0;
  std::size_t scratch_bytes_ = 0, copy_area_ = 0;
  std::vector<Plan> plans_;
};

// Rounds [from, to) of `runner`'s schedule, repeated warmup + iters times
// (each repetition from round 0 restarts from `in`); times the repetitions
// after the warm-up, counts one repetition's bytes.
Result<RoundsTiming> runRoundRange(RoundDevice& d, const RoundRunner& runner, int from, int to,
                                   std::byte* work, std::byte* scratch, const std::byte* in,
                                   const RunOptions& o);

}  // namespace collviz
