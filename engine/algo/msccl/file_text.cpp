// The bytes of an MSCCL file before they are parsed: only a regular file is
// read (a FIFO, a device or a directory is refused at once, never waited
// on), reading stops at the 64 MiB cap, and the text must be UTF-8 (a
// UTF-16 file or a stray byte is named with its line). Paths and values
// echoed in messages are made printable (mscclShown).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/algo/msccl/graph.h"

namespace collviz::algo {
namespace {

// The length of the UTF-8 sequence at s[i] (0: not valid UTF-8).
std::size_t utf8Length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && b(i + 1) < 0xA0) return 0;                  // overlong
  if (c == 0xED && b(i + 1) >= 0xA0) return 0;                 // surrogate
  if (c == 0xF0 && b(i + 1) < 0x90) return 0;                  // overlong
  if (c == 0xF4 && b(i + 1) >= 0x90) return 0;                 // beyond U+10FFFF
  if (n == 2 && c == 0xC2 && b(i + 1) < 0xA0) return 0;        // C1 controls
  return n;
}

std::string hexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

}  // namespace

std::string mscclShown(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8Length(text, i);
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f))) {
      out += hexByte(c);
      ++i;
    } else {
      if (c == '\\') out += '\\';
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

bool mscclPrintable(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8Length(text, i);
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f))) return false;
    i += n;
  }
  return true;
}

Status checkMscclBytes(const std::string& path, const std::string& text) {
  auto lineOf = [&](std::size_t at) {
    return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n'));
  };
  if (text.size() >= 2 && ((text[0] == '\xff' && text[1] == '\xfe') || (text[0] == '\xfe' && text[1] == '\xff')))
    return Error{say("{0}:1: the file is UTF-16; allowed: UTF-8 (as msccl-tools writes it)", path)};
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8Length(text, i);
    if (n == 0 || text[i] == '\0')
      return Error{say("{0}:{1}: byte {2} is not UTF-8 text; allowed: a UTF-8 file", path, lineOf(i),
                       hexByte(static_cast<unsigned char>(text[i])))};
    i += n;
  }
  return {};
}

Result<std::string> readAlgoText(const std::string& path) {
  const std::string shown = mscclShown(path);
  if (path.empty()) return Error{say("the algorithm file's path is empty; allowed: the path of an MSCCL XML file")};
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{say("{0}: cannot open the algorithm file ({1})", shown, std::strerror(errno))};
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{say("{0}: cannot read the algorithm file", shown)};
  if (S_ISDIR(st.st_mode)) return Error{say("{0}: is a directory; allowed: an MSCCL XML file", shown)};
  if (!S_ISREG(st.st_mode))
    return Error{say("{0}: is not a regular file (a FIFO, a device or a socket); allowed: an MSCCL XML file", shown)};
  if (st.st_size == 0) return Error{say("{0}: is empty; an MSCCL algorithm file starts with <algo>", shown)};
  if (std::uint64_t(st.st_size) > kMscclFileCap)
    return Error{say("{0}: the algorithm file is {1} bytes; allowed: up to 64 MiB", shown, std::uint64_t(st.st_size))};
  std::string text(std::size_t(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{say("{0}: cannot read the algorithm file", shown)};
    if (n == 0) break;
    got += std::size_t(n);
  }
  text.resize(got);  // a file that shrank while read; one that grows is read to its size at open
  if (text.empty()) return Error{say("{0}: is empty; an MSCCL algorithm file starts with <algo>", shown)};
  return text;
}

}  // namespace collviz::algo
