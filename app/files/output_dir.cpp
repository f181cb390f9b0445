#include "app/files/output_dir.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace collviz::ui {

namespace {

std::string ownerName(uid_t uid) {
  if (const passwd* pw = ::getpwuid(uid)) return std::to_string(uid) + " (" + pw->pw_name + ")";
  return std::to_string(uid);
}

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t j = path.find('/', i);
    const std::string c = path.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!c.empty() && c != ".") out.push_back(c);
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

}  // namespace

OutputDir& OutputDir::operator=(OutputDir&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    created_ = std::move(o.created_);
    o.fd_ = -1;
  }
  return *this;
}

OutputDir::~OutputDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::string OutputDir::shown(const std::string& name) const {
  if (path_.empty() || path_ == ".") return name;
  return path_ + (path_.back() == '/' ? "" : "/") + name;
}

void OutputDir::removeCreatedIfEmpty() const {
  for (auto it = created_.rbegin(); it != created_.rend(); ++it)
    if (::rmdir(it->c_str()) != 0) break;  // not empty (or gone): the ones above stay too
}

Result<OutputDir> OutputDir::open(const std::string& path, bool create) {
  if (path.empty()) return Error{say("the output directory is empty")};
  OutputDir d;
  d.path_ = path;
  d.fd_ = ::open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd_ < 0) return Error{say("cannot open {0}: {1}", path, std::strerror(errno))};
  std::string so_far = path[0] == '/' ? "" : ".";
  const uid_t me = ::geteuid();
  for (const std::string& c : components(path)) {
    so_far = so_far == "." ? c : so_far + "/" + c;
    int next = ::openat(d.fd_, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(d.fd_, c.c_str(), 0777) != 0 && errno != EEXIST)
        return Error{say("cannot create directory {0}: {1}", so_far, std::strerror(errno))};
      d.created_.push_back(so_far);
      next = ::openat(d.fd_, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (next < 0 && (errno == ELOOP || errno == ENOTDIR)) {
      // The link itself, held open (O_PATH): its owner and its text are
      // read from the one inode checked, so a link swapped in after the
      // check (a directory others can write into, without the sticky bit)
      // is never followed; the text is then opened beside the link.
      const int lfd = ::openat(d.fd_, c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      struct stat link {};
      if (lfd < 0 || ::fstat(lfd, &link) != 0 || !S_ISLNK(link.st_mode)) {
        if (lfd >= 0) ::close(lfd);
        return Error{say("cannot use {0} as a directory: it is not one", so_far)};
      }
      if (link.st_uid != me && link.st_uid != 0) {
        ::close(lfd);
        return Error{say("refusing to write through {0}: it is a link owned by user {1}, not by you; allowed: a "
                         "directory, or a link you or root own",
                         so_far, ownerName(link.st_uid))};
      }
      std::string to(4096, '\0');
      const ssize_t n = ::readlinkat(lfd, "", to.data(), to.size());
      ::close(lfd);
      if (n <= 0 || std::size_t(n) >= to.size())
        return Error{say("refusing to write through {0}: the link changed while opened", so_far)};
      to.resize(std::size_t(n));
      next = ::openat(d.fd_, to.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (next < 0)
      return Error{errno == ENOENT ? say("directory {0} does not exist", so_far)
                                   : say("cannot open {0}: {1}", so_far, std::strerror(errno))};
    ::close(d.fd_);
    d.fd_ = next;
  }
  return d;
}

}  // namespace collviz::ui
