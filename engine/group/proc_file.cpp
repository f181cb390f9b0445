#include "engine/group/proc_file.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace collviz {

std::string readAllFd(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, std::size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return out;
    }
  }
}

std::string readProcFile(pid_t pid, const std::string& name) {
  if (pid <= 0) return {};
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out = readAllFd(fd);
  ::close(fd);
  return out;
}

}  // namespace collviz
