// The files a read takes (readers.h listInputs): each path named, or the
// regular files of a folder and of its subfolders (multi-node jobs write
// DIR/node0/_dump_0), a few levels down, bounded by kMaxFiles. What is not
// a file or a folder is said for what it is: a FIFO, a device, a socket, a
// symbolic-link loop (reading a FIFO would wait forever, a device could be
// endless).
#include <algorithm>
#include <filesystem>

#include "engine/job/readers.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;

// Entries looked at in one folder's tree: a tree of folders with no files
// in them ends here too.
constexpr std::size_t kMaxEntries = 4 * kMaxFiles;

Text notAFile(fs::file_type t) {
  switch (t) {
    case fs::file_type::fifo: return say("a FIFO");
    case fs::file_type::block: case fs::file_type::character: return say("a device");
    case fs::file_type::socket: return say("a socket");
    default: return say("neither a file nor a folder");
  }
}

}  // namespace

Status listInputs(const std::vector<std::string>& paths, std::vector<Input>& inputs) {
  for (const std::string& p : paths) {
    if (p == "-") {
      inputs.push_back({p, true});
      continue;
    }
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);  // through links
    if (st.type() == fs::file_type::not_found) {
      if (fs::is_symlink(fs::symlink_status(p, ec))) return Error(say("{0}: a symbolic link to nothing: not read", p));
      return Error(say("{0}: no such file or folder", p));
    }
    if (ec) {
      if (ec == std::errc::too_many_symbolic_link_levels) return Error(say("{0}: a symbolic-link loop: not read", p));
      return Error(say("{0}: cannot read it: {1}", p, ec.message()));
    }
    if (fs::is_regular_file(st)) {
      inputs.push_back({p, true});
    } else if (fs::is_directory(st)) {
      std::vector<std::string> in;
      std::size_t seen = 0;
      // Links to folders are not followed (no loop); links to files are read.
      fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
      for (; !ec && it != end && seen < kMaxEntries && in.size() <= kMaxFiles; it.increment(ec), ++seen) {
        std::error_code e2;
        if (it->is_regular_file(e2)) in.push_back(it->path().string());
        else if (it.depth() >= int(kMaxFolderDepth)) it.disable_recursion_pending();  // its files would lie deeper
      }
      if (in.empty())
        return Error(say("{0}: no file in the folder or its subfolders ({1} levels down)", p, std::int64_t(kMaxFolderDepth)));
      std::sort(in.begin(), in.end());
      for (std::string& f : in) inputs.push_back({std::move(f), false});
    } else {
      return Error(say("{0}: not a regular file ({1}): not read", p, notAFile(st.type())));
    }
    if (inputs.size() > kMaxFiles)
      return Error(say("more than {0} files: not read (name fewer files or folders)", std::int64_t(kMaxFiles)));
  }
  return Status::Ok();
}

}  // namespace collviz::job
