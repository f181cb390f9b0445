#include "app/files/safe_file.h"

#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/group/exit_cleanup.h"

namespace collviz::ui {

namespace fs = std::filesystem;

namespace {

fs::path directoryOf(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

// ".NAME." + 12 random letters: nobody can plant it in advance.
std::string temporaryName(const std::string& base) {
  static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char r[12];
  if (::getrandom(r, sizeof r, 0) != ssize_t(sizeof r))
    for (unsigned char& c : r) c = static_cast<unsigned char>(::random());
  std::string name = "." + base.substr(0, 200) + ".";
  for (unsigned char c : r) name += kLetters[c % (sizeof kLetters - 1)];
  return name;
}

Status writeAll(int fd, const char* p, std::size_t left) {
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{std::strerror(n < 0 ? errno : EIO)};
    p += n;
    left -= std::size_t(n);
  }
  return {};
}

// Holds the directory, the temporary's descriptor and name; removes the
// temporary unless it was renamed into place.
class Temporary {
 public:
  ~Temporary() {
    if (fd_ >= 0) ::close(fd_);
    if (!name_.empty() && !kept_) ::unlinkat(dir_, name_.c_str(), 0);
    if (!full_.empty()) forgetTempFile(full_);
    if (dir_ >= 0) ::close(dir_);
  }
  Status create(int dirfd, const fs::path& dir, const std::string& base) {
    dir_ = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (dir_ < 0) return Error{std::strerror(errno)};
    for (int tries = 0; tries < 100; ++tries) {
      const std::string name = temporaryName(base);
      full_ = (dir / name).string();
      registerTempFile(full_);  // before it exists: an interrupt in between removes it
      fd_ = ::openat(dir_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     0666);
      if (fd_ >= 0) {
        name_ = name;
        return {};
      }
      const int err = errno;
      forgetTempFile(full_);
      full_.clear();
      if (err != EEXIST) return Error{std::strerror(err)};
    }
    return Error{say("no free temporary name")};
  }
  int fd() const { return fd_; }
  int dir() const { return dir_; }
  const std::string& name() const { return name_; }
  Status closeFile() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? Status{} : Status{Error{std::strerror(errno)}};
  }
  void kept() { kept_ = true; }

 private:
  int dir_ = -1, fd_ = -1;
  std::string name_, full_;
  bool kept_ = false;
};

}  // namespace

Status checkWritable(const std::string& path) {
  if (path.empty()) return Error{say("the output path is empty")};
  const fs::path dir = directoryOf(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{say("cannot write {0}: {1}", path, say("directory {0} does not exist", dir.string()))};
  if (fs::is_directory(path, ec)) return Error{say("cannot write {0}: {1}", path, say("it is a directory"))};
  if (::access(dir.c_str(), W_OK) != 0) return Error{say("cannot write {0}: {1}", path, std::strerror(errno))};
  return Status::Ok();
}

Status writeFileAtomic(const std::string& path, const void* bytes, std::size_t size,
                       Replace replace) {
  if (Status s = checkWritable(path); !s) return s;
  auto dir = OutputDir::open(directoryOf(path).string(), false);
  if (!dir) return Error{say("cannot write {0}: {1}", path, dir.error().text)};
  return writeFileAt(*dir, fs::path(path).filename().string(), bytes, size, replace);
}

struct AtomicFile::Impl {
  Temporary tmp;
  std::string base, path;
  Replace replace = Replace::yes;
  Status failed;  // the first write's failure, kept
};

AtomicFile::AtomicFile() = default;
AtomicFile::AtomicFile(AtomicFile&&) noexcept = default;
AtomicFile& AtomicFile::operator=(AtomicFile&&) noexcept = default;
AtomicFile::~AtomicFile() = default;

Status AtomicFile::open(const OutputDir& dir, const std::string& base, Replace replace) {
  impl_ = std::make_unique<Impl>();
  impl_->base = base;
  impl_->path = dir.shown(base);
  impl_->replace = replace;
  if (base.empty() || base.find('/') != std::string::npos || base == "." || base == "..")
    return fail(say("not a file name"));
  if (Status s = impl_->tmp.create(dir.fd(), dir.path(), base); !s) return fail(s.text());
  // Replacing a regular file keeps its permission bits (a 0600 file stays
  // 0600); a new file gets 0666 less the umask, as open() gave it.
  struct stat old {};
  if (::fstatat(impl_->tmp.dir(), base.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG(old.st_mode) && ::fchmod(impl_->tmp.fd(), old.st_mode & 07777) != 0)
    return fail(lit(std::strerror(errno)));
  return Status::Ok();
}

Status AtomicFile::fail(const Text& why) {
  Error e{say("cannot write {0}: {1}", impl_->path, why)};
  impl_->failed = e;
  return e;
}

Status AtomicFile::write(const void* bytes, std::size_t size) {
  if (!impl_ || impl_->tmp.fd() < 0) return impl_ ? impl_->failed : Status{Error{say("not a file name")}};
  if (!impl_->failed) return impl_->failed;
  if (Status s = writeAll(impl_->tmp.fd(), static_cast<const char*>(bytes), size); !s) return fail(s.text());
  return Status::Ok();
}

Status AtomicFile::commit() {
  if (!impl_ || impl_->tmp.fd() < 0) return impl_ ? impl_->failed : Status{Error{say("not a file name")}};
  if (!impl_->failed) return impl_->failed;
  Temporary& tmp = impl_->tmp;
  if (::fsync(tmp.fd()) != 0) return fail(lit(std::strerror(errno)));
  if (Status s = tmp.closeFile(); !s) return fail(s.text());
  const char* base = impl_->base.c_str();
  const int rc = impl_->replace == Replace::yes
                     ? ::renameat(tmp.dir(), tmp.name().c_str(), tmp.dir(), base)
                     : ::renameat2(tmp.dir(), tmp.name().c_str(), tmp.dir(), base, RENAME_NOREPLACE);
  if (rc != 0) return fail(lit(std::strerror(errno)));
  tmp.kept();
  ::fsync(tmp.dir());  // the rename itself reaches the disk
  return Status::Ok();
}

Status writeFileAt(const OutputDir& dir, const std::string& base, const void* bytes,
                   std::size_t size, Replace replace) {
  AtomicFile f;
  if (Status s = f.open(dir, base, replace); !s) return s;
  if (Status s = f.write(bytes, size); !s) return s;
  return f.commit();
}

}  // namespace collviz::ui
