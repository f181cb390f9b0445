// Where an MPI job keeps its files. Open MPI writes a session directory
// (`<tmp>/ompi.<host>.<uid>/pid.<mpirun>`: PMIx's stores, hwloc's map, about
// 8 MB) and the shared-memory transport's segments (`vader_segment.*`, 4 MiB
// a rank) and removes them only when mpirun and every rank end in order. A
// job killed, stopped or interrupted leaves them. So each job collviz starts
// gets folders of its own (mode 0700, `collviz-mpi-<uid>-XXXXXX`): one under
// $TMPDIR or /tmp for the session (TMPDIR, OMPI_MCA_orte_tmpdir_base) and
// one under /dev/shm for the segments (OMPI_MCA_btl_vader_backing_directory:
// where Open MPI puts them by default, memory not disk; the session folder
// when /dev/shm is not writable). The engine removes the folders when
// the job has ended, cleanupNow() when collviz must exit at once, and the
// next job's start removes the folders of jobs whose collviz died (SIGKILL):
// a job's collviz holds a lock (flock) on the folder's `lock` file for as
// long as it lives, and a folder whose lock is free belongs to nobody.
#pragma once

#include <string>
#include <vector>

#include "engine/text.h"

namespace collviz {

class MpiJobDir {
 public:
  // A new folder under `base`, its lock held.
  static Result<MpiJobDir> make(const std::string& base);
  MpiJobDir() = default;
  MpiJobDir(MpiJobDir&& o) noexcept : path_(std::move(o.path_)), lock_(o.lock_) { o.path_.clear(), o.lock_ = -1; }
  MpiJobDir& operator=(MpiJobDir&& o) noexcept;
  MpiJobDir(const MpiJobDir&) = delete;
  MpiJobDir& operator=(const MpiJobDir&) = delete;
  ~MpiJobDir() { remove(); }

  const std::string& path() const { return path_; }
  bool empty() const { return path_.empty(); }
  // Removes the folder and everything in it (the job must have ended), then
  // lets the lock go.
  void remove();

 private:
  std::string path_;
  int lock_ = -1;
};

// Where the session folders go ($TMPDIR when it is a folder, else /tmp) and
// where the segments go (/dev/shm when writable, else the session's base).
std::string mpiSessionBase();
std::string mpiSegmentBase();

// One job's folders and what mpirun's environment gets (NAME=value).
struct MpiJobFiles {
  MpiJobDir session, segments;  // segments empty: they go in the session's
  std::vector<std::string> env() const;
};
// Sweeps the stale folders of dead jobs from both bases, then makes a job's.
Result<MpiJobFiles> makeMpiJobFiles();

// Removes, under `base`, the folders of our uid whose lock nobody holds
// (their collviz died); returns how many. Folders of a living collviz, of
// another uid, links and anything not ours are left.
int sweepStaleMpiJobDirs(const std::string& base);

}  // namespace collviz
