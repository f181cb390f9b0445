// Starting an MPI group: `mpirun -np N collviz-rank --backend mpi --connect
// NAME` (one MPI job, so Open MPI's shared-memory path joins every pair of
// ranks). mpirun closes every inherited descriptor but stdio in the ranks it
// starts, so a rank's control channel cannot be a socketpair end passed down
// as for Gloo: each rank connects back to a listening Unix socket of the
// engine's, in the abstract namespace (nothing on disk to leave behind),
// named with 128 random bits, and accepted only from our own uid
// (SO_PEERCRED). The first message on it is the rank's hello. No MPI header
// here: this is process management.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/group/channel.h"
#include "engine/group/hosts.h"
#include "engine/text.h"

namespace collviz {

// $COLLVIZ_MPIRUN when set (tests point it at nothing to see MPI
// unavailable), else `mpirun` on PATH; an error says what is missing.
Result<std::string> findMpirun();

// mpirun's argv for N ranks of `worker` (pure, unit-tested): one job on this
// host, more ranks than cores allowed (--oversubscribe), bound as `bind_to`
// says (mpiBinding: collviz's default, or what COLLVIZ_MPI_BIND asks), shared memory
// between ranks (btl self,vader), no stdin.
std::vector<std::string> mpirunArgs(const std::string& mpirun, int ranks,
                                    const std::vector<std::string>& worker_argv,
                                    const std::string& bind_to = "none");

// The ranks' binding on one host, mpirun's --bind-to. Unset (or empty),
// collviz's default: mpirun binds nothing ("none") and each rank binds
// itself op by op (mpiBindsPerOp; worker/op_binding.h): with more ranks than
// cores, a core each (rank r on core r mod cores) for the ops where every
// rank works at once, for broadcast a core each in order from the root
// (neighbours along its chain sharing one), every core for reduce, gather
// and scatter (measured in docs/mpi.md); with no more ranks than cores, a
// core each for every op.
// Why not mpirun's own (no binding when oversubscribed): an unbound group is
// one MPI job that keeps the kernel's first pairing of ranks on cores for
// its life, where a plain job gets a new one each run. A user's
// COLLVIZ_MPI_BIND wins: "none" (ranks move as the kernel likes) or a
// binding (`value`, pure: core, hwthread, l3cache, numa, socket), then with
// ":overload-allowed", as collviz runs more ranks than cores; the ranks then
// keep it for every op.
inline constexpr const char* kDefaultMpiBinding = "none";
// The variable the engine sets ("1") in a one-host group's environment when
// the ranks bind themselves op by op ("0" when COLLVIZ_MPI_BIND decides).
inline constexpr const char* kMpiBindPerOpEnv = "COLLVIZ_MPI_BIND_PER_OP";
inline bool mpiBindsPerOp(const char* value) { return !value || !*value; }
Result<std::string> mpiBinding(const char* value);
// The same across `hosts` (issue 33): -H with their slots, --map-by, shared
// memory inside a host and TCP across (btl self,vader,tcp), the interface
// for Open MPI's own traffic and its TCP btl, the launcher agent, and the
// variables the remote ranks need passed on with -x (their values stay in
// the environment: never on a command line).
std::vector<std::string> mpirunArgs(const std::string& mpirun, int ranks, const HostSpec& hosts,
                                    const std::vector<std::string>& pass_env,
                                    const std::vector<std::string>& worker_argv);

// What collviz adds to mpirun's environment: Open MPI refuses root unless
// OMPI_ALLOW_RUN_AS_ROOT and _CONFIRM are 1 (set only when running as root).
std::vector<std::string> mpirunEnv(bool root);

// A connection accepted, with the peer's credentials as the kernel gives
// them (SO_PEERCRED), never as the peer says.
struct MpiPeer {
  Channel ch;
  pid_t pid = -1;
  uid_t uid = 0;
};

// The engine's end: a listening socket for one group.
class MpiListener {
 public:
  // `owner`: the only uid accepted (ours; a test names another to see a
  // peer of a foreign uid refused without a second user).
  static Result<MpiListener> open(uid_t owner = ::getuid());
  MpiListener() = default;
  MpiListener(MpiListener&& o) noexcept : fd_(o.fd_), owner_(o.owner_), name_(std::move(o.name_)) { o.fd_ = -1; }
  MpiListener& operator=(MpiListener&& o) noexcept;
  ~MpiListener();
  const std::string& name() const { return name_; }
  int fd() const { return fd_; }
  // One connection if one is waiting (poll fd() first): the channel and its
  // peer's credentials, or an error (a peer of another uid is refused and
  // closed).
  Result<MpiPeer> accept();

 private:
  int fd_ = -1;
  uid_t owner_ = 0;
  std::string name_;  // without the leading NUL
};

// This process's environment with `added` ("NAME=value") set over it: what
// mpirun is started with.
std::vector<std::string> environWith(const std::vector<std::string>& added);

// How a child ended, from its wait status: "exited with code 1", "was
// killed by signal 9 (Killed)".
Text exitText(int status);

// Parent pid and state of `pid` from /proc; {-1, 0} when it is gone.
std::pair<pid_t, char> parentAndState(pid_t pid);

// A rank's hello ({"type": "hello", "rank": R, "pid": P}) on a connection
// from `peer_pid` (its SO_PEERCRED): its rank, or why it is refused. The
// socket's name is readable in the ranks' argv, so the hello is trusted only
// when its pid is the peer's own and the peer is a process of this job (a
// child of mpirun `job`), with a rank of the group's `ranks`.
Result<int> checkHello(const std::string& body, pid_t peer_pid, pid_t job, int ranks);

// mpirun's stdout and stderr (its own messages and, forwarded, the ranks'):
// copied to the engine's stderr on a thread of its own, the last 16 KiB
// kept, so the engine can read which rank Open MPI saw die.
class MpiLog {
 public:
  MpiLog() = default;
  MpiLog(const MpiLog&) = delete;
  MpiLog& operator=(const MpiLog&) = delete;
  ~MpiLog() { stop(); }
  void start(int read_fd);  // takes the pipe's read end
  // Reads what is left in the pipe and joins the thread; call it once mpirun
  // is reaped. A process that still holds the pipe (an agent left behind)
  // never holds this up (issue 55: a launcher agent that never returned
  // kept collviz waiting for the pipe's end for as long as it ran).
  void stop();
  std::string tail() const;

 private:
  int fd_ = -1;
  int stop_[2] = {-1, -1};  // stop() writes a byte: read what is there, then end
  std::thread thread_;
  mutable std::mutex mu_;
  std::string tail_;
};

// What mpirun said of a rank that died ("mpirun noticed that process rank 1
// with PID 123 on node h exited on signal 9 (Killed)."), if it did.
struct MpiDeath {
  int rank = -1;
  pid_t pid = -1;
  std::string how;  // "exited on signal 9 (Killed)"
};
std::optional<MpiDeath> parseMpiDeath(const std::string& log);

// The rank's end: connect to the engine's listener `name`.
Result<Channel> connectBack(const std::string& name);

}  // namespace collviz
