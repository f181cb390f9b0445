// Writing files so that nothing at the target's name, or at any name beside
// it, can redirect the write: the bytes go to a new temporary created with
// O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name in the target's
// directory (a planted file or link there makes the create fail, never
// followed), then are fsynced and renamed over the target (rename replaces a
// link at the target's name, it does not write through it), and the
// directory is fsynced. Replacing a file keeps its permission bits. On any
// failure, or an interrupt (engine/group/exit_cleanup.h), the temporary is removed:
// the target is either the old file or the whole new one.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "app/files/output_dir.h"
#include "engine/text.h"

namespace collviz::ui {

enum class Replace : bool { yes, no };  // no: fail with EEXIST if the target exists

Status writeFileAtomic(const std::string& path, const void* bytes, std::size_t size,
                       Replace replace = Replace::yes);
inline Status writeFileAtomic(const std::string& path, const std::string& text) {
  return writeFileAtomic(path, text.data(), text.size());
}
// The same for file `name` inside an output directory opened safely
// (output_dir.h): the write happens relative to its descriptor.
Status writeFileAt(const OutputDir& dir, const std::string& name, const void* bytes,
                   std::size_t size, Replace replace = Replace::yes);
inline Status writeFileAt(const OutputDir& dir, const std::string& name, const std::string& text) {
  return writeFileAt(dir, name, text.data(), text.size());
}
// The same, written piece by piece (a PDF deck page by page): open()
// creates the temporary, write() appends, commit() renames it into place.
// Destroyed before commit() — a failure, an interrupt, an early return —
// it removes the temporary: the target is never half written.
class AtomicFile {
 public:
  AtomicFile();
  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;
  ~AtomicFile();
  Status open(const OutputDir& dir, const std::string& name, Replace replace = Replace::yes);
  Status write(const void* bytes, std::size_t size);  // after a failure, that failure again
  Status commit();

 private:
  Status fail(const Text& why);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
// Can a file be created in `path`'s directory? (Checked before running.)
Status checkWritable(const std::string& path);

}  // namespace collviz::ui
