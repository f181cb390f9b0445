// The watch window's model of a capture folder (docs/watch.md, "The window"):
// a thread of its own polls the folder (LiveCapture without bytes) and keeps
// what the window draws, bounded whatever the capture's size:
//   - per communicator a lane: its members as world ranks and hosts, its
//     call count, and the newest kLaneRing calls as compact tiles (a ring);
//   - per lane and member file a sparse index: the file offset of every
//     kIndexEvery-th call of the communicator, so calls older than the ring
//     (scrolled back, or selected) are read again from the files (readTiles,
//     readCall), never kept;
//   - per rank where it is (in which call since when, or outside MPI since
//     its last return), and a hang's verdict (job::read + job::analyse at
//     the current time, as `collviz watch` says it) once no call has
//     returned for hangAfter seconds while a rank waits.
// Plain data, no UI; the window reads it under view().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/job/captured_call.h"
#include "engine/job/live.h"
#include "engine/text.h"

namespace collviz::job {

constexpr std::size_t kLaneRing = 4096;      // the newest calls kept per lane
constexpr std::uint32_t kIndexEvery = 1024;  // a file offset per this many calls of a lane, per member file

// One call of a lane as the window draws it: its shape once, and how many
// of its members entered and returned.
struct LaneTile {
  std::uint32_t seq = 0;
  tap::Func func = tap::Func::none;
  std::uint16_t flags = 0;
  tap::DType dtype = tap::DType::unknown;
  tap::ROp op = tap::ROp::none;
  std::int32_t root = -1;
  std::uint32_t count = 0;          // elements the first member to enter sends
  std::uint16_t entered = 0, returned = 0;  // members
  std::int32_t lastRank = -1;       // the world rank that entered last (so far)
  std::uint64_t firstEnter = 0, lastEnter = 0;  // ns
};

struct LiveLane {
  std::uint64_t id = 0;
  std::string name;                 // MPI_Comm_get_name's, else "split(color=0) …"-like, else "comm <id>"
  std::vector<int> ranks;           // members as world ranks
  std::vector<std::string> hosts;   // per member ("" unknown)
  std::uint64_t calls = 0;          // the newest seq + 1
  std::deque<LaneTile> ring;        // the newest calls, seq ascending
  std::map<int, std::vector<std::uint64_t>> index;  // member file -> offsets of seq 0, kIndexEvery, …
  std::map<int, int> memberFile;    // world rank -> file
  // Per world rank: how often it entered last (the straggler tally).
  std::map<int, std::uint64_t> lastCount;
};

// Where a rank is now.
struct LiveRank {
  int rank = -1;
  std::string host;
  bool inCall = false;
  std::string call;                 // "MPI_Allreduce" while in one
  std::uint64_t comm = 0;
  std::uint32_t seq = 0;
  std::uint64_t sinceNs = 0;        // entered the call / returned from its last one (0: never called)
  std::uint64_t lastExitNs = 0;     // its newest return
  bool finalized = false;
  bool nccl = false;                // its file is the NCCL tap's: between calls it is outside NCCL
};

struct LiveVerdict {
  bool present = false;
  Said text;
  std::vector<int> ranks;           // the ranks the verdict names
  std::vector<std::vector<int>> cycles;     // deadlocks: their ranks
  std::vector<std::pair<int, int>> edges;   // who waits for whom (world ranks)
  double quietS = 0;
  std::uint64_t atNs = 0;           // when it was found (CLOCK_REALTIME)
};

struct LiveData {
  std::vector<LiveLane> lanes;      // in the order first seen
  std::vector<LiveRank> ranks;      // by world rank
  LiveVerdict verdict;
  std::int64_t entered = 0, returned = 0;
  std::size_t files = 0;
  std::vector<std::string> filePaths, fileHosts;  // per file (LiveCall::file)
  std::uint64_t polls = 0;
  std::uint64_t nowNs = 0;          // the last poll's clock
};

class LiveLanes {
 public:
  // Starts polling `dir` every 50 ms. `wake`: called (from the thread, at
  // most every 16 ms) when something changed; `hangAfterS` as watch's.
  LiveLanes(std::string dir, double hangAfterS, std::function<void()> wake);
  ~LiveLanes();
  LiveLanes(const LiveLanes&) = delete;
  LiveLanes& operator=(const LiveLanes&) = delete;

  // Reads the data under the lock (keep `f` short: the poller waits).
  void view(const std::function<void(const LiveData&)>& f) const;
  // Polls once more now (the job ended): what the files gained.
  void finish();
  const std::string& dir() const { return dir_; }

  // Calls [from, from + n) of a lane read from its files (older than the ring).
  std::vector<LaneTile> readTiles(std::uint64_t comm, std::uint32_t from, std::uint32_t n) const;
  // One call, every member's record with its bytes, from the files.
  Result<CapturedCall> readCall(std::uint64_t comm, std::uint32_t seq) const;

 private:
  void run();
  void pollOnce();
  void apply(const std::vector<LiveCall>& calls, bool returned);
  void judge(std::uint64_t now);
  LiveLane& lane(std::uint64_t comm);

  std::string dir_;
  double hangAfterS_;
  std::function<void()> wake_;
  std::unique_ptr<LiveCapture> live_;  // the poller's own
  mutable std::recursive_mutex m_;  // the window reads again (readTiles, readCall) from within view()
  LiveData d_;
  std::map<std::uint64_t, std::size_t> laneOf_;
  std::set<std::pair<int, std::uint64_t>> inFlight_;  // (file, offset) in flight before the poll
  std::uint64_t startNs_ = 0, saidAtExit_ = 0;
  bool hangSaid_ = false;
  std::atomic<bool> stop_{false};
  std::mutex sleepM_;
  std::condition_variable sleep_;
  std::thread thread_;
  std::uint64_t lastWakeNs_ = 0;
};

}  // namespace collviz::job
