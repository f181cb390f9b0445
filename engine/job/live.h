// A capture folder read while its program runs (collviz watch): each
// tap-<host>-<pid>.cvtap file (tap/capture_format.h) is tailed as it grows,
// its records read up to its header's `committed`, and each call that was
// still in flight is read again at every poll until its t_exit is set (its
// output bytes are valid from then on). A call whose process is gone keeps
// t_exit 0: it never returned.
//
// Reads only (pread on files the tap maps), never blocks on the program,
// and bounds every record by its file: a record that does not fit, or one
// of an unknown size, ends the reading of that file with a note; a file of
// another version or with a bad magic is left unread, noted. Plain data, no
// UI: app/cli/cli_watch*.cpp prints what it gives.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/text.h"
#include "tap/capture_format.h"

namespace collviz::job {

// A communicator as a file declared it.
struct LiveComm {
  std::uint64_t id = 0;            // agreed by its members (tap::kWorldId for MPI_COMM_WORLD)
  std::uint8_t kind = 0;           // tap::CommKind
  std::vector<int> ranks;          // members as world ranks, in its rank order
  int color = -1, key = -1;        // split's
  std::string name;                // MPI_Comm_get_name's, where set
};

// One call of one process.
struct LiveCall {
  int rank = -1;                   // world rank (as its file's header says; -1 before it does)
  int file = -1;                   // LiveCapture::file(i)
  std::uint64_t offset = 0;        // of its CallRecord in that file (the watch window's index)
  std::uint64_t comm = 0;          // the communicator's id (0: a record named none this file declared)
  std::uint32_t seq = 0;           // its number in that communicator on this process, from 0
  tap::Func func = tap::Func::none;
  std::uint16_t flags = 0;         // tap::CallFlag
  tap::DType dtype = tap::DType::unknown;
  tap::ROp op = tap::ROp::none;
  std::int32_t root = -1;
  std::uint32_t inElems = 0, outElems = 0, dtypeSize = 0;
  std::int32_t status = 0;         // valid once returned
  std::uint64_t tEnter = 0, tExit = 0;  // CLOCK_REALTIME ns; tExit 0: still in it
  std::vector<std::uint8_t> in, out;    // the bytes kept (only with keepBytes)
  // "MPI_Allreduce", "MPI_Iallreduce"
  const char* name() const { return tap::funcName(func, (flags & tap::kNonblocking) != 0); }
};

// What one file has said about itself.
struct LiveFile {
  std::string path;
  int rank = -1, worldSize = -1;
  std::int64_t pid = -1;
  std::string host, library, program;
  std::uint64_t lostRecords = 0;
  std::uint32_t lostReason = 0;    // tap::Lost
  bool finalized = false;
  bool notOpenMpi = false;         // the tap said the library is not Open MPI
  bool nccl = false;               // the NCCL tap's file (its ranks are outside NCCL, not MPI)
  Text problem;                    // why it is not (or no longer) read; empty while it is
};

class LiveCapture {
 public:
  // `keepBytes`: keep each call's captured bytes (for --json lines).
  explicit LiveCapture(std::string dir, bool keepBytes = false);
  ~LiveCapture();
  LiveCapture(const LiveCapture&) = delete;
  LiveCapture& operator=(const LiveCapture&) = delete;

  // Reads what the folder gained since the last poll: new files, new
  // records, calls in flight that returned. Calls that returned since are
  // appended to `returned` (each once, in its file's order), calls entered
  // and still in flight to `entered` (each once) when given.
  void poll(std::vector<LiveCall>* returned, std::vector<LiveCall>* entered = nullptr);

  const std::vector<LiveFile>& files() const { return files_; }
  const LiveComm* comm(std::uint64_t id) const;
  // Calls seen: entered, and of them returned.
  std::int64_t entered() const { return entered_; }
  std::int64_t returned() const { return returned_; }
  // The newest t_exit seen (0: none yet).
  std::uint64_t lastExitNs() const { return lastExit_; }
  // The calls entered and not returned, now (every file's), and their number.
  std::vector<LiveCall> inFlight() const;
  std::size_t inFlightCount() const;
  // When the call in flight longest was entered (0: none in flight).
  std::uint64_t oldestInFlightNs() const;
  // Per world rank and function name ("MPI_Allreduce"): calls entered, calls returned.
  struct Count {
    std::int64_t entered = 0, returned = 0;
  };
  const std::map<std::pair<int, std::string>, Count>& counts() const { return counts_; }

 private:
  struct Tail;
  void scanFolder();
  void readFile(std::size_t i, std::vector<LiveCall>* returned, std::vector<LiveCall>* entered);
  void recheck(std::size_t i, std::vector<LiveCall>* returned);
  void finishCall(std::size_t i, LiveCall& c, std::vector<LiveCall>* returned);

  std::string dir_;
  bool keepBytes_;
  std::vector<LiveFile> files_;
  std::vector<std::unique_ptr<Tail>> tails_;
  std::map<std::uint64_t, LiveComm> comms_;
  std::map<std::pair<int, std::string>, Count> counts_;
  std::int64_t entered_ = 0, returned_ = 0;
  std::uint64_t lastExit_ = 0;
};

}  // namespace collviz::job
