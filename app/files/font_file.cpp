#include "app/files/font_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace collviz::ui {

namespace {

uint32_t be32(const std::vector<unsigned char>& d, std::size_t at) {
  return uint32_t(d[at]) << 24 | uint32_t(d[at + 1]) << 16 | uint32_t(d[at + 2]) << 8 | d[at + 3];
}
uint16_t be16(const std::vector<unsigned char>& d, std::size_t at) {
  return uint16_t(d[at] << 8 | d[at + 1]);
}

// The table directory of the font at `at`: inside the file, with the tables
// stb_truetype needs (cmap, head, hhea, hmtx, and glyf+loca or CFF).
std::string checkDirectory(const std::vector<unsigned char>& d, std::size_t at) {
  if (at + 12 > d.size()) return "is cut short (no table directory)";
  const uint32_t tag = be32(d, at);
  if (tag != 0x00010000 && tag != 0x74727565 /* true */ && tag != 0x4F54544F /* OTTO */)
    return "is not a TrueType or OpenType font";
  const std::size_t tables = be16(d, at + 4);
  if (tables == 0 || at + 12 + tables * 16 > d.size()) return "is cut short (table directory)";
  bool cmap = false, head = false, hhea = false, hmtx = false, glyf = false, loca = false,
       cff = false;
  for (std::size_t i = 0; i < tables; ++i) {
    const std::size_t e = at + 12 + i * 16;
    const uint32_t offset = be32(d, e + 8), length = be32(d, e + 12);
    if (uint64_t(offset) + length > d.size()) return "is cut short (a table lies past its end)";
    switch (be32(d, e)) {
      case 0x636D6170: cmap = true; break;
      case 0x68656164: head = length >= 54; break;
      case 0x68686561: hhea = length >= 36; break;
      case 0x686D7478: hmtx = true; break;
      case 0x676C7966: glyf = true; break;
      case 0x6C6F6361: loca = true; break;
      case 0x43464620: cff = true; break;
      default: break;
    }
  }
  if (!(cmap && head && hhea && hmtx && ((glyf && loca) || cff)))
    return "lacks tables a font needs (cmap, head, hhea, hmtx, glyf/loca or CFF)";
  return "";
}

std::string check(const std::string& path, int face, const struct stat& st, int fd) {
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_size == 0) return "is empty";
  if (st.st_size > kMaxFontBytes) return "is larger than any font (over 64 MiB)";
  std::vector<unsigned char> d(std::size_t(st.st_size));
  std::size_t got = 0;
  while (got < d.size()) {
    const ssize_t n = ::read(fd, d.data() + got, d.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? std::string("cannot be read: ") + std::strerror(errno) : "is cut short";
    got += std::size_t(n);
  }
  (void)path;
  if (d.size() >= 12 && be32(d, 0) == 0x74746366 /* ttcf */) {
    const uint32_t fonts = be32(d, 8);
    if (face < 0 || uint32_t(face) >= fonts || 12 + std::size_t(fonts) * 4 > d.size())
      return "has no face " + std::to_string(face);
    return checkDirectory(d, be32(d, 12 + std::size_t(face) * 4));
  }
  if (face != 0) return "has no face " + std::to_string(face) + " (one font, not a collection)";
  return checkDirectory(d, 0);
}

}  // namespace

std::string fontFileProblem(const std::string& path, int face) {
  // O_NONBLOCK: a FIFO must not block the open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::string("cannot be opened: ") + std::strerror(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return std::string("cannot be read: ") + std::strerror(e);
  }
  static std::mutex m;
  static std::map<std::tuple<std::string, int, long long, long long, long long>, std::string> cache;
  const auto key = std::make_tuple(path, face, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                                   (long long)st.st_mtim.tv_nsec);
  {
    std::lock_guard<std::mutex> lock(m);
    if (auto it = cache.find(key); it != cache.end()) {
      ::close(fd);
      return it->second;
    }
  }
  std::string why = check(path, face, st, fd);
  ::close(fd);
  std::lock_guard<std::mutex> lock(m);
  if (S_ISREG(st.st_mode)) cache[key] = why;
  return why;
}

std::string findFontDir() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("COLLVIZ_FONT_DIR")) dirs.push_back(env);
  dirs.push_back("/usr/share/fonts/truetype/dejavu");
  dirs.push_back("/usr/share/fonts/TTF");
  dirs.push_back("/usr/share/fonts/dejavu");
  dirs.push_back("/usr/local/share/fonts");
  for (const std::string& d : dirs) {
    std::error_code ec;
    if (fs::exists(fs::path(d) / kDejaVuRegular, ec) && fs::exists(fs::path(d) / kDejaVuBold, ec)) return d;
  }
  return "";
}

std::string findCjkFont(bool bold, int* face) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Only a file ImGui can load: a bad one would abort in its font builder.
  if (const char* env = std::getenv("COLLVIZ_CJK_FONT"); env && *env) {
    *face = 0;
    return fontFileProblem(env, 0).empty() ? env : "";
  }
  const struct {
    const char* path;
    int face;  // Noto's .ttc: 0 JP, 1 KR, 2 SC, 3 TC
  } kCandidates[] = {
      {bold ? "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"
            : "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2},
      {"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2},
      {"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0},
  };
  for (const auto& c : kCandidates) {
    if (fs::exists(c.path, ec) && fontFileProblem(c.path, c.face).empty()) {
      *face = c.face;
      return c.path;
    }
  }
  return "";
}

}  // namespace collviz::ui
