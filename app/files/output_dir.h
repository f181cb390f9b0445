// Output directories opened so that a link another user planted cannot send
// the files elsewhere. `export --all -o pub/deck` or `lecture --export
// pub/deck`, where someone else can write into pub/, must not follow their
// pub/deck -> /somewhere/of/yours. Each component of the path is opened
// relative to the one before (openat, O_NOFOLLOW) and created where missing;
// a component that is a symbolic link is followed only when the link belongs
// to the user or to root (what fs.protected_symlinks allows in sticky
// directories), else refused naming the link and its owner. Files are then
// written relative to the directory's descriptor (safe_file.h, writeFileAt),
// so nothing can swap the directory between the check and the writes.
#pragma once

#include <string>
#include <vector>

#include "engine/text.h"

namespace collviz::ui {

class OutputDir {
 public:
  // Open (creating what is missing, when `create`) the directory `path`.
  static Result<OutputDir> open(const std::string& path, bool create);
  OutputDir() = default;
  OutputDir(OutputDir&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)), created_(std::move(o.created_)) {
    o.fd_ = -1;
  }
  OutputDir& operator=(OutputDir&& o) noexcept;
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;
  ~OutputDir();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // `name` in this directory, as messages show it.
  std::string shown(const std::string& name) const;
  // Remove the directories open() created, deepest first, where they are
  // still empty (a deck that failed leaves no empty folder behind).
  void removeCreatedIfEmpty() const;
  const std::vector<std::string>& created() const { return created_; }

 private:
  int fd_ = -1;
  std::string path_;
  std::vector<std::string> created_;  // as open() made them, outermost first
};

}  // namespace collviz::ui
