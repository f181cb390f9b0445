#include "app/lecture/script_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace collviz::lecture {

namespace {

collviz::Text kindOf(mode_t m) {
  if (S_ISDIR(m)) return say("is a directory");
  if (S_ISFIFO(m)) return say("is a FIFO");
  if (S_ISCHR(m)) return say("is a character device");
  if (S_ISBLK(m)) return say("is a block device");
  if (S_ISSOCK(m)) return say("is a socket");
  return say("is not a regular file");
}

std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / double(1 << 20));
  return buf;
}

}  // namespace

Result<std::string> readScriptFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return Error{say("{0}: cannot read the lecture script ({1})", path, std::strerror(errno))};
  struct stat st {};
  std::string out;
  collviz::Text error;
  if (::fstat(fd, &st) != 0) {
    error = lit(std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    error = say("{0}; allowed: a regular file", kindOf(st.st_mode));
  } else if (std::size_t(st.st_size) > kMaxScriptBytes) {
    error = say("is {0}; allowed: a script of at most {1}", mib(double(st.st_size)), mib(double(kMaxScriptBytes)));
  } else {
    out.resize(std::size_t(st.st_size));
    std::size_t got = 0;
    // A file that grows while read stops at the cap.
    while (got < out.size()) {
      const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = lit(std::strerror(errno));
        break;
      }
      if (n == 0) break;
      got += std::size_t(n);
    }
    out.resize(got);
  }
  ::close(fd);
  if (!error.empty()) return Error{say("{0}: cannot read the lecture script: {1}", path, error)};
  return out;
}

Status checkNesting(std::string_view t, const std::string& path) {
  int line = 1, depth = 0, dots = 0;
  auto deep = [&] {
    return Error{say("{0}:{1}: keys or tables nested more than {2} levels deep; allowed: up to {2}", path, line,
                     kMaxNesting)};
  };
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\n') {
      ++line;
      dots = 0;
    } else if (c == '#') {  // a comment, to the end of the line
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {  // a string or quoted key: its dots are text
      const bool triple = t.substr(i, 3) == std::string(3, c);
      const std::size_t open = triple ? 3 : 1;
      std::size_t j = i + open;
      for (; j < t.size(); ++j) {
        if (t[j] == '\n') {
          if (!triple) break;  // not valid TOML; the parser says so
          ++line;
        }
        if (c == '"' && t[j] == '\\') {
          if (j + 1 < t.size() && t[j + 1] == '\n') ++line;
          ++j;
          continue;
        }
        if (t[j] == c && (!triple || t.substr(j, 3) == std::string(3, c))) {
          j += open - 1;
          break;
        }
      }
      i = std::min(j, t.size() - 1);
      if (i < t.size() && t[i] == '\n') --i;  // count the line break once
    } else if (c == '.') {
      if (++dots > kMaxNesting) return deep();
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) return deep();
      dots = 0;
    } else if (c == ']' || c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
      dots = 0;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ' ||
                 c == '\t' || c == '+' || c == ':' || (static_cast<unsigned char>(c) & 0x80))) {
      dots = 0;  // '=', ',' and the like end a key
    }
  }
  return {};
}

std::string controlCharacter(std::string_view s, bool line_breaks_allowed) {
  int at = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80) ++at;  // count characters, not bytes
    unsigned cp = c;
    if (c == 0xC2 && i + 1 < s.size()) cp = static_cast<unsigned char>(s[i + 1]);  // U+0080..U+00BF
    const bool c1 = c == 0xC2 && cp >= 0x80 && cp <= 0x9F;
    const bool c0 = c < 0x20 && c != '\t' && !(line_breaks_allowed && (c == '\n' || c == '\r'));
    if (c0 || c == 0x7F || c1) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "U+%04X at character %d", c1 ? cp : unsigned(c), at);
      return buf;
    }
  }
  return "";
}

}  // namespace collviz::lecture
