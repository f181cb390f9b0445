// The capture file a tap writes (tap/capture_format.h), shared by the MPI
// tap and later an NCCL one. It runs inside someone else's program, so it
// fails open: a folder it cannot use, a full disk, the size cap or a failed
// allocation only count records as lost in the header, never reach the
// program, and never block it.
//
// The file is mapped once, MAP_SHARED, over its whole allowed size (the cap:
// address space only, nothing is touched until written), and grown in chunks
// with posix_fallocate before a record is placed in the new part: a page
// written is a page the disk already holds, so a full disk is a failed
// reservation (counted) and never a SIGBUS, and a pointer to a record stays
// valid for the life of the process (the exit part of a call is written
// through it later). Appending is a short mutex around copying the record
// into the mapping and publishing `committed`; the only syscall on that path
// is the rare growth (a chunk of 1 MiB doubling up to 64 MiB; where the
// disk refuses the chunk, the pages the record needs, doubling again).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "tap/capture_format.h"

namespace collviz::tap {

// What the tap's environment asked for (COLLVIZ_TAP_OUT, _BYTES, _MAX_MB).
struct WriterOptions {
  const char* dir = nullptr;            // the capture folder (made if missing)
  Library library = Library::mpi;
  std::uint32_t bytes_limit = kDefaultBytes;
  std::uint64_t max_bytes = std::uint64_t(4096) << 20;  // the file's cap
};

// What every tap takes from its environment: the folder (COLLVIZ_TAP_OUT),
// the bytes kept of each buffer (COLLVIZ_TAP_BYTES, 0 to kMaxBytes) and the
// file's cap (COLLVIZ_TAP_MAX_MB, 1 to 2^20). A value that does not parse
// keeps its default and is said in `complaint` (a line each, "" where none)
// for the capture's notes.
void optionsFromEnv(Library library, WriterOptions* o, char complaint[2][200]);

// One piece of a record: `n` bytes from `p` (nullptr: leave them zero),
// padded to 8 with zeros.
struct Part {
  const void* p;
  std::uint32_t n;
};

class CaptureWriter {
 public:
  // Opens "tap-<host>-<pid>.cvtap" (or "-<pid>-N" when that name is taken)
  // in options.dir; false when it could not (the tap then records nothing).
  bool open(const WriterOptions& options);
  bool isOpen() const { return header_ != nullptr; }
  FileHeader* header() { return header_; }
  const char* path() const { return path_; }
  std::uint32_t bytesLimit() const { return bytes_limit_; }

  // Appends one record made of `parts` (the first starts with its
  // RecordHead, whose size the writer fills in); returns where it lies in
  // the mapping, or nullptr when it was lost (counted with the reason).
  void* append(const Part* parts, int count);
  // A NoteRecord of `text` (UTF-8, NUL-terminated), stamped now.
  void note(NoteCode code, const char* text);
  // Counts one record as lost (the first reason is kept).
  void lose(Lost why);
  // The header's last_ns, for a record's change outside append().
  void touch(std::uint64_t t_ns);

 private:
  bool grow(std::uint64_t need);

  std::mutex mutex_;
  FileHeader* header_ = nullptr;
  std::uint8_t* base_ = nullptr;
  int fd_ = -1;
  std::uint64_t used_ = 0;       // bytes of records after the header (mutex_)
  std::uint64_t file_size_ = 0;  // bytes the file holds (fallocated)
  std::uint64_t map_size_ = 0;   // the mapping, the cap
  std::uint64_t chunk_ = 1 << 20;
  std::uint32_t failed_grows_ = 0;  // a full disk is retried every 4096 losses
  std::uint32_t bytes_limit_ = kDefaultBytes;
  char path_[512] = {};
};

// CLOCK_REALTIME in nanoseconds (vDSO: no syscall).
std::uint64_t nowNs();

}  // namespace collviz::tap
