#include "app/export/image_file.h"

#include <fcntl.h>
#include <stb_image_write.h>  // the implementation is in libstb
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace collviz::ui {

namespace fs = std::filesystem;

namespace {
void append(void* ctx, void* data, int size) {
  auto* out = static_cast<std::vector<uint8_t>*>(ctx);
  const auto* p = static_cast<const uint8_t*>(data);
  out->insert(out->end(), p, p + size);
}

fs::path directoryOf(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}
}  // namespace

std::vector<uint8_t> encodePng(const Image& img) {
  std::vector<uint8_t> out;
  stbi_write_png_to_func(append, &out, img.width, img.height, 3, img.rgb.data(), img.width * 3);
  return out;
}

Status checkWritable(const std::string& path) {
  if (path.empty()) return Error{"no output path"};
  const fs::path dir = directoryOf(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{"cannot write " + path + ": directory " + dir.string() + " does not exist"};
  if (fs::is_directory(path, ec)) return Error{"cannot write " + path + ": it is a directory"};
  if (access(dir.c_str(), W_OK) != 0)
    return Error{"cannot write " + path + ": " + std::strerror(errno)};
  return Status::Ok();
}

Status writeFileAtomic(const std::string& path, const void* bytes, size_t size) {
  if (Status s = checkWritable(path); !s) return s;
  const fs::path target(path);
  const fs::path tmp = directoryOf(path) / ("." + target.filename().string() + ".tmp" +
                                            std::to_string(getpid()));
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"cannot write " + path + ": " + std::strerror(errno)};
  const auto* p = static_cast<const char*>(bytes);
  size_t left = size;
  int err = 0;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    p += n, left -= size_t(n);
  }
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    unlink(tmp.c_str());
    return Error{"cannot write " + path + ": " + std::strerror(err)};
  }
  return Status::Ok();
}

}  // namespace collviz::ui
