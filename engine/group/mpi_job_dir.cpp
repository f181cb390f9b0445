#include "engine/group/mpi_job_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "engine/group/exit_cleanup.h"

namespace collviz {
namespace {

// A folder with no lock file yet: another collviz between mkdtemp and the
// lock, unless it has been so for this long.
constexpr time_t kLocklessStaleS = 60;

std::string prefix() { return "collviz-mpi-" + std::to_string(::geteuid()) + "-"; }

bool isDir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string mpiSessionBase() {
  const char* t = std::getenv("TMPDIR");
  if (t && *t == '/' && isDir(t)) return t;
  return "/tmp";
}

std::string mpiSegmentBase() {
  if (isDir("/dev/shm") && ::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  return mpiSessionBase();
}

Result<MpiJobDir> MpiJobDir::make(const std::string& base) {
  std::string tmpl = base + "/" + prefix() + "XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    return Error{say("cannot make a folder for the MPI job's files in {0}: {1}", base, std::strerror(errno))};
  MpiJobDir d;
  d.path_ = tmpl;
  registerTempTree(d.path_);
  d.lock_ = ::open((d.path_ + "/lock").c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (d.lock_ < 0 || ::flock(d.lock_, LOCK_EX | LOCK_NB) != 0)
    return Error{say("cannot lock the MPI job's folder {0}: {1}", d.path_, std::strerror(errno))};
  return d;
}

MpiJobDir& MpiJobDir::operator=(MpiJobDir&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    lock_ = o.lock_;
    o.path_.clear();
    o.lock_ = -1;
  }
  return *this;
}

void MpiJobDir::remove() {
  if (!path_.empty()) {
    removeTree(path_);
    forgetTempTree(path_);
    path_.clear();
  }
  if (lock_ >= 0) ::close(lock_);
  lock_ = -1;
}

std::vector<std::string> MpiJobFiles::env() const {
  const std::string& seg = segments.empty() ? session.path() : segments.path();
  return {"TMPDIR=" + session.path(), "OMPI_MCA_orte_tmpdir_base=" + session.path(),
          "OMPI_MCA_btl_vader_backing_directory=" + seg};
}

Result<MpiJobFiles> makeMpiJobFiles() {
  const std::string session_base = mpiSessionBase(), segment_base = mpiSegmentBase();
  sweepStaleMpiJobDirs(session_base);
  if (segment_base != session_base) sweepStaleMpiJobDirs(segment_base);
  MpiJobFiles f;
  auto s = MpiJobDir::make(session_base);
  if (!s) return s.error();
  f.session = std::move(*s);
  if (segment_base != session_base) {
    auto g = MpiJobDir::make(segment_base);
    if (!g) return g.error();
    f.segments = std::move(*g);
  }
  return f;
}

int sweepStaleMpiJobDirs(const std::string& base) {
  const int bfd = ::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (bfd < 0) return 0;
  DIR* d = ::fdopendir(bfd);
  if (!d) {
    ::close(bfd);
    return 0;
  }
  const std::string pre = prefix();
  std::vector<std::string> stale;
  while (dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, pre.c_str(), pre.size()) != 0) continue;
    struct stat st {};
    if (::fstatat(bfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::geteuid())
      continue;
    const int dfd = ::openat(bfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) continue;
    const int lock = ::openat(dfd, "lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    bool dead = false;
    if (lock >= 0)
      dead = ::flock(lock, LOCK_EX | LOCK_NB) == 0;  // its collviz is gone (the lock dies with it)
    else
      dead = errno == ENOENT && std::time(nullptr) - st.st_mtime > kLocklessStaleS;
    if (dead) stale.emplace_back(e->d_name);
    if (lock >= 0) ::close(lock);  // a second sweeper may remove it too: harmless
    ::close(dfd);
  }
  int removed = 0;
  for (const std::string& n : stale) removed += removeTree(base + "/" + n) ? 1 : 0;
  ::closedir(d);
  return removed;
}

}  // namespace collviz
