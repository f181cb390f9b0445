// One collective of a capture (a tap's records, tap/capture_format.h) as
// every member rank saw it: the call's shape once, then per member rank its
// arrival and return times and the bytes the tap kept of its buffers. What
// the call's grid (app/view/call_figure.*: the window and `collviz export
// --job CAPTURE --call COMM:SEQ`) draws. Filled from a finished capture read
// into a Job (capturedCall, captured_call.cpp) or, live, from the capture
// files as they grow (the watch window). Plain data, no UI.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/text.h"
#include "tap/capture_format.h"

namespace collviz::job {

struct Job;

// One member rank's side of the call.
struct CapturedRank {
  int worldRank = -1;                 // the job's rank
  int commRank = -1;                  // its rank in the communicator
  std::string host;
  bool present = false;               // this rank's record of the call exists (false: never entered, or no file)
  bool returned = false;              // t_exit was set: `out` and `status` are valid
  std::uint64_t tEnter = 0, tExit = 0;  // CLOCK_REALTIME ns (0: unknown / not returned)
  std::int32_t status = 0;            // the call's return code (0: success)
  std::uint16_t flags = 0;            // tap::CallFlag bits (kInPlace, kBytesLeftOut, kCudaCopyFailed, ...)
  std::uint64_t inElems = 0, outElems = 0;  // the whole buffers, in elements of the call's dtype
  std::vector<std::uint8_t> in, out;  // the bytes kept: a prefix of each buffer (at most --bytes)
};

struct CapturedCall {
  std::uint64_t commId = 0;           // tap's agreed id (tap::kWorldId for MPI_COMM_WORLD; NCCL: commHash)
  std::string commName;               // "MPI_COMM_WORLD", a name set by the program, or "" (see commLabel)
  std::uint32_t seq = 0;              // the call's number in its communicator, from 0
  tap::Func func = tap::Func::none;
  bool nonblocking = false;
  tap::DType dtype = tap::DType::unknown;
  std::uint32_t dtypeSize = 0;        // bytes per element
  tap::ROp op = tap::ROp::none;
  std::int32_t root = -1;             // rank in the communicator; -1 for none
  std::vector<CapturedRank> ranks;    // one per member, in the communicator's rank order
  std::string hostsText() const;      // "vm" / "node1, node2" (the members' hosts, distinct, in order)
};

// ---- From a finished capture read into a Job (job::read of its files) ----
// The call `seq` of communicator `group` (a Job::groups index): the shape
// from the first member's record, then every member in the communicator's
// order with its times, status, flags, element counts and kept bytes; a
// member with no record of it (it never entered, or no file of it was read)
// is present=false. Errors name what was wrong and what exists: a Job that
// holds no capture, no such group, no call `seq` in it ("MPI_COMM_WORLD
// (0x1) has calls 0..1234").
Result<CapturedCall> capturedCall(const Job& job, int group, std::uint32_t seq);
// The same by the communicator's agreed id (tap::kWorldId: MPI_COMM_WORLD).
Result<CapturedCall> capturedCallById(const Job& job, std::uint64_t commId, std::uint32_t seq);
// A communicator as a person types it, as `collviz job` lists it: its id
// ("0x1", "0x100000000"; the hex digits without 0x too) or its name when
// one communicator has it ("MPI_COMM_WORLD"). The Job::groups index, or an
// error listing the capture's communicators.
Result<int> captureGroup(const Job& job, std::string_view comm);
// "COMM:SEQ" (collviz export --call): the group and the call.
Result<CapturedCall> capturedCallAt(const Job& job, std::string_view commColonSeq);
// The lowest and highest collective seq recorded in a group ({-1, -1}: none).
std::pair<std::int64_t, std::int64_t> seqRange(const Job& job, int group);

}  // namespace collviz::job
