#include "engine/group/program_files.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace collviz {

namespace fs = std::filesystem;

std::string executablePath() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, std::size_t(n));
}

std::string executableDir() {
  const std::string exe = executablePath();
  const auto slash = exe.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : exe.substr(0, slash);
}

std::string programPrefix() { return fs::path(executableDir()).parent_path().string(); }

std::string workerPath() {
  const fs::path beside = fs::path(executableDir()) / kWorkerFile;
  const fs::path installed = fs::path(programPrefix()) / kPrivateDir / kWorkerFile;
  std::error_code ec;
  if (fs::exists(beside, ec)) return beside.string();
  // An installed tree (its lib/collviz exists): name the installed place,
  // also when the worker is missing there, so the message points at it.
  if (fs::exists(installed.parent_path(), ec)) return installed.string();
  return beside.string();
}

namespace {

std::string tapPath(const char* file, std::vector<std::string>* looked) {
  std::error_code ec;
  for (const fs::path& p : {fs::path(executableDir()) / file, fs::path(programPrefix()) / kPrivateDir / file}) {
    if (fs::is_regular_file(p, ec)) return p.string();
    if (looked) looked->push_back(p.string());
  }
  return "";
}

}  // namespace

std::string tapMpiPath(std::vector<std::string>* looked) { return tapPath(kTapMpiFile, looked); }
std::string tapNcclPath(std::vector<std::string>* looked) { return tapPath(kTapNcclFile, looked); }

std::string shippedLectureDir() {
  return (fs::path(programPrefix()) / kDataDir / "lectures").string();
}

bool insideProgramFiles(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const fs::path prefix = programPrefix();
  for (const fs::path& d : {fs::path(executableDir()), prefix / kPrivateDir, prefix / kDataDir}) {
    const fs::path dir = fs::weakly_canonical(d, ec);
    if (ec) continue;
    auto mismatch = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end());
    if (mismatch.first == dir.end()) return true;
  }
  return false;
}

}  // namespace collviz
