#include "tap/capture_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace collviz::tap {

namespace {

constexpr std::uint64_t kDefaultMaxMb = 4096;

// A whole number in [lo, hi]; false for anything else.
bool parseNumber(const char* v, std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
  if (!v || !*v) return false;
  std::uint64_t n = 0;
  for (const char* p = v; *p; ++p) {
    if (*p < '0' || *p > '9') return false;
    n = n * 10 + std::uint64_t(*p - '0');
    if (n > hi) return false;
  }
  return n >= lo ? (*out = n, true) : false;
}

}  // namespace

void optionsFromEnv(Library library, WriterOptions* o, char complaint[2][200]) {
  complaint[0][0] = complaint[1][0] = '\0';
  o->dir = std::getenv("COLLVIZ_TAP_OUT");
  o->library = library;
  o->bytes_limit = kDefaultBytes;
  std::uint64_t n = 0;
  if (const char* bytes = std::getenv("COLLVIZ_TAP_BYTES")) {
    if (parseNumber(bytes, 0, kMaxBytes, &n))
      o->bytes_limit = std::uint32_t(n);
    else
      std::snprintf(complaint[0], 200, "COLLVIZ_TAP_BYTES='%.40s' is not a whole number from 0 to %u: %u bytes kept of each buffer",
                    bytes, kMaxBytes, kDefaultBytes);
  }
  std::uint64_t mb = kDefaultMaxMb;
  if (const char* max_mb = std::getenv("COLLVIZ_TAP_MAX_MB"); max_mb && !parseNumber(max_mb, 1, std::uint64_t(1) << 20, &mb)) {
    mb = kDefaultMaxMb;
    std::snprintf(complaint[1], 200, "COLLVIZ_TAP_MAX_MB='%.40s' is not a whole number from 1 to 1048576: the capture is capped at %llu MiB",
                  max_mb, static_cast<unsigned long long>(kDefaultMaxMb));
  }
  o->max_bytes = mb << 20;
}

std::uint64_t nowNs() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return std::uint64_t(t.tv_sec) * 1000000000u + std::uint64_t(t.tv_nsec);
}

namespace {

constexpr std::uint64_t kMaxChunk = std::uint64_t(64) << 20;

// mkdir -p, each new folder 0700 (the capture holds the program's bytes).
bool makeDirs(const char* dir) {
  char p[512];
  const std::size_t n = std::strlen(dir);
  if (n == 0 || n >= sizeof p) return false;
  std::memcpy(p, dir, n + 1);
  for (std::size_t i = 1; i <= n; ++i) {
    if (p[i] != '/' && p[i] != '\0') continue;
    const char c = p[i];
    p[i] = '\0';
    if (::mkdir(p, 0700) != 0 && errno != EEXIST) return false;
    p[i] = c;
  }
  struct stat st;
  return ::stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

// The host name as a file name part: letters, digits, '.', '-', '_'.
void safeHost(char* out, std::size_t cap) {
  char h[256] = {};
  if (gethostname(h, sizeof h - 1) != 0 || !h[0]) std::strcpy(h, "host");
  std::size_t i = 0;
  for (; h[i] && i + 1 < cap; ++i) {
    const char c = h[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_';
    out[i] = ok ? c : '_';
  }
  out[i] = '\0';
}

// argv[0] from /proc/self/cmdline (NUL-separated).
void programName(char* out, std::size_t cap) {
  out[0] = '\0';
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const ssize_t got = ::read(fd, out, cap - 1);
  ::close(fd);
  out[got > 0 ? got : 0] = '\0';
}

}  // namespace

bool CaptureWriter::open(const WriterOptions& o) {
  if (header_ || !o.dir || !o.dir[0] || !makeDirs(o.dir)) return false;
  char host[64];
  safeHost(host, sizeof host);
  const long pid = long(getpid());
  for (int n = 0; n < 100 && fd_ < 0; ++n) {
    const int len = n == 0 ? std::snprintf(path_, sizeof path_, "%s/tap-%s-%ld%s", o.dir, host, pid, kFileSuffix)
                           : std::snprintf(path_, sizeof path_, "%s/tap-%s-%ld-%d%s", o.dir, host, pid, n, kFileSuffix);
    if (len <= 0 || std::size_t(len) >= sizeof path_) return false;
    fd_ = ::open(path_, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) return path_[0] = '\0', false;
  const std::uint64_t page = std::uint64_t(sysconf(_SC_PAGESIZE));
  map_size_ = (std::max<std::uint64_t>(o.max_bytes, std::uint64_t(kHeaderBytes) + page) + page - 1) / page * page;
  // Address space only; where a limit (ulimit -v) refuses the cap, a
  // smaller mapping (down to 64 MiB) is the cap instead.
  void* m = ::mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  while (m == MAP_FAILED && map_size_ / 2 >= (std::uint64_t(64) << 20)) {
    map_size_ = map_size_ / 2 / page * page;
    m = ::mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  }
  if (m == MAP_FAILED || !(base_ = static_cast<std::uint8_t*>(m), grow(kHeaderBytes))) {
    if (m != MAP_FAILED) ::munmap(m, map_size_);
    ::close(fd_);
    ::unlink(path_);
    fd_ = -1, base_ = nullptr, path_[0] = '\0';
    return false;
  }
  bytes_limit_ = o.bytes_limit;
  auto* h = reinterpret_cast<FileHeader*>(base_);
  h->version = kVersion;
  h->header_bytes = kHeaderBytes;
  h->library = std::uint32_t(o.library);
  h->world_rank = -1;
  h->world_size = 0;
  h->bytes_limit = o.bytes_limit;
  h->pid = pid;
  h->start_ns = nowNs();
  if (gethostname(h->host, sizeof h->host - 1) != 0) h->host[0] = '\0';
  programName(h->program, sizeof h->program);
  // The magic last: a reader that sees it sees the fields above.
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(h->magic, kMagic, sizeof kMagic);
  header_ = h;
  return true;
}

// Makes the file hold at least `need` bytes (mutex_ held, or at open).
bool CaptureWriter::grow(std::uint64_t need) {
  if (need <= file_size_) return true;
  if (need > map_size_) return false;
  std::uint64_t to = file_size_;
  while (to < need) {
    to = std::min(to + chunk_, map_size_);
    chunk_ = std::min(chunk_ * 2, kMaxChunk);
  }
  // posix_fallocate grows the file and reserves its blocks (ENOSPC now, not
  // a SIGBUS at the write); the new bytes read as zeros.
  int e = posix_fallocate(fd_, off_t(file_size_), off_t(to - file_size_));
  if (e != 0) {
    // A nearly full disk refuses the chunk but may hold what this record
    // needs (seen: a 512 KiB disk refused the first 1 MiB chunk at open, and
    // there was no capture at all to say what was lost). Pages from here on,
    // doubling again.
    const std::uint64_t page = std::uint64_t(sysconf(_SC_PAGESIZE));
    const std::uint64_t least = std::min((need + page - 1) / page * page, map_size_);
    if (least >= to) return errno = e, false;
    to = least;
    chunk_ = page;
    e = posix_fallocate(fd_, off_t(file_size_), off_t(to - file_size_));
    if (e != 0) return errno = e, false;
  }
  file_size_ = to;
  return true;
}

void CaptureWriter::lose(Lost why) {
  if (!header_) return;
  header_->lost_records.fetch_add(1, std::memory_order_relaxed);
  std::uint32_t none = 0;
  header_->lost_reason.compare_exchange_strong(none, std::uint32_t(why), std::memory_order_relaxed);
}

void CaptureWriter::touch(std::uint64_t t_ns) {
  if (header_) header_->last_ns.store(t_ns, std::memory_order_release);
}

void* CaptureWriter::append(const Part* parts, int count) {
  if (!header_) return nullptr;
  std::uint64_t total = 0;
  for (int i = 0; i < count; ++i) total += pad8(parts[i].n);
  if (total < sizeof(RecordHead) || total > 0xffffffffu) return lose(Lost::io_error), nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t end = kHeaderBytes + used_ + total;
  if (end > file_size_) {
    if (end > map_size_) return lose(Lost::size_cap), nullptr;
    // After a failed growth (a full disk), try again only every 4096 losses:
    // each try is a syscall on the program's path.
    if (failed_grows_ > 0 && (failed_grows_++ & 4095) != 0) return lose(Lost::disk_full), nullptr;
    if (!grow(end)) {
      if (failed_grows_ == 0) failed_grows_ = 1;
      const int e = errno;
      return lose(e == ENOSPC || e == EDQUOT || e == EFBIG ? Lost::disk_full : Lost::io_error), nullptr;
    }
    failed_grows_ = 0;
  }
  std::uint8_t* rec = base_ + kHeaderBytes + used_;
  std::uint8_t* at = rec;
  for (int i = 0; i < count; ++i) {
    if (parts[i].p && parts[i].n) std::memcpy(at, parts[i].p, parts[i].n);
    at += pad8(parts[i].n);  // the padding and the nullptr parts: the file's zeros
  }
  reinterpret_cast<RecordHead*>(rec)->size = std::uint32_t(total);
  used_ += total;
  header_->committed.store(used_, std::memory_order_release);
  header_->last_ns.store(nowNs(), std::memory_order_release);
  return rec;
}

void CaptureWriter::note(NoteCode code, const char* text) {
  NoteRecord r{};
  r.head.type = std::uint8_t(RecordType::note);
  r.head.sub = std::uint8_t(code);
  r.len = std::uint32_t(std::strlen(text));
  r.t_ns = nowNs();
  const Part parts[2] = {{&r, sizeof r}, {text, r.len}};
  append(parts, 2);
}

}  // namespace collviz::tap
