// collviz watch [options] -- mpirun ... / torchrun ... / python ...: someone
// else's Open MPI or NCCL program run with collviz's tap preloaded into its
// ranks, its capture folder read live (engine/job/live.h), a hang's verdict
// said the moment it is one. The MPI tap goes with mpirun's -x to the ranks
// only; the NCCL tap goes the same way under mpirun, and through the
// environment the command passes to its children under any other launcher.
// The parts: cli_watch.cpp (options, the launcher's checks, collviz
// tap-path), cli_watch_run.cpp (the job: start, watch, end),
// cli_watch_print.cpp (what is printed, capture.json).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/job/live.h"
#include "engine/text.h"

namespace collviz {

inline constexpr double kDefaultHangAfterS = 10;
inline constexpr int kTermBoundMs = 5000;  // SIGTERM to the job, then SIGKILL after this

struct WatchOptions {
  std::string out;                 // --out (made absolute); "" before the default is chosen
  long long bytes = 256;           // --bytes
  bool json = false;               // --json
  double hangAfterS = kDefaultHangAfterS;
  bool killOnHang = false;
  std::string tapOption = "auto";  // --tap: mpi, nccl or auto
  std::vector<std::string> command;  // as given: the launcher first
  // Found by the checks:
  std::string tapKind;             // "mpi" or "nccl" (auto resolved by the launcher's name)
  bool mpirun = true;              // the tap goes with mpirun's -x; else through the environment
  std::string launcher;            // its path
  std::string launcherVersion;     // the first line of its --version (Open MPI's launchers only)
  std::string tap;                 // the tap's path
  long launcherPid = -1;           // once started: also its process group's id
};

// The launcher's checks (cli_watch.cpp): --tap resolved (auto: mpi for
// Open MPI's launchers, nccl for any other command); an Open MPI mpirun or
// mpiexec that is found, or with --tap nccl any program that is found; an
// error (exit 2) naming what was wrong otherwise.
Result<bool> checkLauncher(WatchOptions& o);
// The command as run: under mpirun the tap's -x options inserted after the
// launcher's name; else the command as given.
std::vector<std::string> launchArgs(const WatchOptions& o);
// The variables set in the launched command's own environment (NCCL tap,
// no mpirun): LD_PRELOAD (the tap appended to `ldPreload`, the one collviz
// was given, never replacing it), COLLVIZ_TAP_OUT, COLLVIZ_TAP_BYTES. Empty
// under mpirun (-x carries them to the ranks only).
std::vector<std::pair<std::string, std::string>> launchEnv(const WatchOptions& o, const char* ldPreload);
// Runs the job and watches it (cli_watch_run.cpp): the program's exit status.
int runWatch(WatchOptions& o);

// What is printed (cli_watch_print.cpp).
struct WatchVerdict {
  std::string text;                // in the reader's language
  std::string english;
  std::vector<int> ranks;          // verdict_ranks
  std::string findingsJson;        // the findings as a JSON array
  double quietS = 0;               // no call had returned for this long
  std::uint64_t nowNs = 0, lastExitNs = 0;
};
// The verdict of what the capture holds now: job::read over the folder,
// job::analyse at `nowNs`. An empty text when nothing is stuck.
WatchVerdict verdictNow(const std::string& dir, std::uint64_t nowNs, std::uint64_t lastExitNs);
void printCallLine(const job::LiveCapture& live, const job::LiveCall& c, bool returned);
void printVerdict(const WatchVerdict& v, bool json);
void printProgress(const job::LiveCapture& live, double seconds);
void printSummary(const job::LiveCapture& live, const WatchOptions& o, int status);
// Why the tap may have seen nothing (nothing captured), on stderr.
void printNothingSeen(const job::LiveCapture& live, const WatchOptions& o);
// capture.json in the folder: the command, start, end, exit status, verdict.
void writeCaptureJson(const WatchOptions& o, std::uint64_t startNs, std::uint64_t endNs, int status,
                      const WatchVerdict* verdict, const job::LiveCapture& live, bool interrupted);

std::uint64_t realtimeNs();

}  // namespace collviz
