// Who arrived last at a collective, and who keeps arriving last (issue 58):
// per call, each member's entry time relative to the last arrival (the
// others waited that long for it, as far as the entry is the wait: a rank
// that enters early blocks until the last one comes); per communicator, a
// tally of the ranks that arrive last most often, like HTA's and
// TraceLens's straggler summaries but fed call by call, so the live window
// can feed each call as it completes and a finished capture all at once.
// Pure: no UI, no files.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "engine/job/captured_call.h"
#include "engine/text.h"

namespace collviz::job {

// One call's arrivals, in the call's member order (CapturedCall::ranks).
struct Arrival {
  std::vector<std::int64_t> waitNs;  // per member: the last arrival's tEnter minus its own (>= 0); -1: no record
  std::vector<int> last;             // the members (indexes) that arrived last: more than one where they tie
  std::uint64_t lastEnterNs = 0;     // the last arrival's tEnter (0: no member present)
  int missing = 0;                   // members with no record (never entered, or no file)
  bool isLast(int member) const;
};
Arrival arrival(const CapturedCall& call);

// One communicator's tally.
struct CommTally {
  std::uint64_t commId = 0;
  std::int64_t calls = 0;     // calls counted: every member present
  std::int64_t ties = 0;      // of them, calls where two or more members arrived last together (each counted last)
  std::int64_t incomplete = 0;  // calls fed with a member missing (not counted in `last`)
  std::map<int, std::int64_t> last;     // world rank -> calls it arrived last in
  std::map<int, std::int64_t> missing;  // world rank -> calls fed without its record
  std::map<int, std::int64_t> waitedNs; // world rank -> time the others waited for it, summed over the calls it was last in
  struct Straggler {
    int rank = -1;             // world rank
    std::int64_t count = 0;    // calls it arrived last in
    double share = 0;          // count / calls
    std::int64_t waitedNs = 0; // the others' wait for it in those calls (the longest wait of each)
  };
  // The ranks that arrived last most often, most first (ties by rank), at most n.
  std::vector<Straggler> top(std::size_t n = 3) const;
};

class StragglerTally {
 public:
  // A call, once: feed it when every member has entered (live) or from a
  // finished capture. Members without a record make it `incomplete`.
  void add(const CapturedCall& call);
  void add(const CapturedCall& call, const Arrival& a);
  const CommTally* comm(std::uint64_t commId) const;
  const std::map<std::uint64_t, CommTally>& comms() const { return comms_; }

 private:
  std::map<std::uint64_t, CommTally> comms_;
};

// Every collective of a group in a capture read into a Job, tallied
// (times only: no bytes copied).
CommTally tallyOf(const Job& job, int group);

// The summary line: "last to arrive: rank 2 in 37 of 50 calls (74%, the
// others waited 1.2 s for it in all), rank 0 in 8 (16%)"; "no call with
// every member yet" where none counted.
Text stragglerText(const CommTally& t, std::size_t n = 3);

// A time span for a person: "840 ns", "12.5 µs", "3.20 ms", "1.25 s".
std::string spanText(std::int64_t ns);

}  // namespace collviz::job
