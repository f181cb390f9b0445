// collviz's version: the project version from CMake and, when built from a
// git checkout, the commit (written at every build by
// packaging/version.cmake, so it is not stale after a new commit).
#pragma once

#include <string>

namespace collviz {

std::string collvizVersion();  // "0.1.0"
std::string collvizCommit();   // "c90f140a1b2c" (+"-dirty"), or "" when not built from git
std::string versionLine();     // "collviz 0.1.0 (git c90f140a1b2c)"

}  // namespace collviz
