// A group of NCCL ranks for the NCCL module's tests (nccl_test on a GPU or
// the stand-in, nccl_faults_test on the stand-in): one forked process per
// rank with the environment placeRanks gives it, rendezvous through files
// in a fresh directory, the rank's body run on its communicator, and what
// each rank said, wrote on stderr and how it ended. The parent never
// touches CUDA: a CUDA context does not survive fork.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/worker/communicator.h"

namespace collviz::test {

// What one rank does once its communicator is up: "" or what went wrong.
using RankBody = std::function<std::string(int rank, Communicator& comm)>;

struct GroupOptions {
  int timeout_ms = 10000;  // the communicator's deadline (as --timeout-ms)
  std::vector<std::pair<std::string, std::string>> env;                     // every rank
  std::map<int, std::vector<std::pair<std::string, std::string>>> rank_env;  // one rank
  int wall_s = 90;  // the whole group, then the ranks are killed
  // The worker's start this long before the communicator is made: the init
  // budget (90 % of 10 s at least) counts from it, so a test of an init that
  // waits in vain need not wait it all.
  std::chrono::milliseconds started_before{0};
  bool capture_stderr = false;
  int gpu = -2;  // >= -1: every rank's GPU, instead of placeRanks'
};

struct RankEnd {
  std::string said;     // the body's text, or "init: ..." when init failed
  std::string err;      // its stderr (capture_stderr)
  int status = 0;       // waitpid's
  bool hung = false;    // still running at wall_s, killed
  double seconds = 0;   // from the fork to its end
};

// Runs `body` in `ranks` processes; `gpus` and `version` as placeRanks takes them.
std::vector<RankEnd> runRanks(int ranks, int gpus, int version, const RankBody& body,
                              const GroupOptions& o = {});
// One line per rank that failed (said something, ended abnormally, hung).
std::vector<std::string> failures(const std::vector<RankEnd>& ends);
std::string joined(const std::vector<std::string>& v);
// A coverage build's counts written now (before a forked child's _exit);
// nothing otherwise.
void flushCoverage();

}  // namespace collviz::test
