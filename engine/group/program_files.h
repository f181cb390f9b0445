// Where collviz's own files are: found from the running executable
// (/proc/self/exe), so a build tree and an installed tree work alike, both
// can be moved anywhere, and an installed collviz never reads its source tree.
//
//   build tree                            installed tree (cmake --install, .deb)
//   build/bin/collviz                     PREFIX/bin/collviz
//   build/bin/collviz-rank                PREFIX/lib/collviz/collviz-rank
//   build/bin/libcollviz-nccl.so          PREFIX/lib/collviz/libcollviz-nccl.so
//   build/bin/libcollviz-tap-mpi.so       PREFIX/lib/collviz/libcollviz-tap-mpi.so
//   build/bin/libcollviz-tap-nccl.so      PREFIX/lib/collviz/libcollviz-tap-nccl.so
//   build/share/collviz/lectures/*.toml   PREFIX/share/collviz/lectures/*.toml
//
// The NCCL module always sits next to collviz-rank (the worker looks beside
// itself). Shaders are embedded in the binary; fonts are the system's
// (app/gl/fonts.cpp).
#pragma once

#include <string>
#include <vector>

namespace collviz {

inline constexpr const char* kWorkerFile = "collviz-rank";
inline constexpr const char* kTapMpiFile = "libcollviz-tap-mpi.so";  // the tap (tap/), preloaded into a watched program's ranks
inline constexpr const char* kTapNcclFile = "libcollviz-tap-nccl.so";  // the NCCL tap (tap/nccl/), likewise
inline constexpr const char* kPrivateDir = "lib/collviz";  // relative to the prefix
inline constexpr const char* kDataDir = "share/collviz";    // relative to the prefix

// This process's executable (/proc/self/exe); "" when it cannot be read.
std::string executablePath();
// Its directory; "." when unknown.
std::string executableDir();
// The prefix: the directory above executableDir() (build/ or PREFIX/).
std::string programPrefix();
// collviz-rank: next to this executable (build tree, or the worker itself),
// else PREFIX/lib/collviz/ (named in the message when the worker is missing
// from an installed tree).
std::string workerPath();
// The MPI tap: next to this executable (build tree), else in
// PREFIX/lib/collviz/; "" when in neither, with the places looked at in
// `looked` (for the message).
std::string tapMpiPath(std::vector<std::string>* looked = nullptr);
// The NCCL tap, looked for in the same two places.
std::string tapNcclPath(std::vector<std::string>* looked = nullptr);
// The lecture scripts shipped with collviz: PREFIX/share/collviz/lectures.
std::string shippedLectureDir();
// Is `path` inside the directory of this executable or its prefix's
// lib/collviz, share/collviz (where collviz must never write)?
bool insideProgramFiles(const std::string& path);

}  // namespace collviz
