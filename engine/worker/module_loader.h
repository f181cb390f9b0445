// dlopen of a backend module beside collviz-rank (the NCCL and MPI modules):
// where it is, and the loader's reason when it cannot load.
#pragma once

#include <string>

#include "engine/text.h"

namespace collviz {

// $env when set and not empty, else `file` in the directory of this
// executable (/proc/self/exe).
std::string modulePath(const char* env, const char* file);

// dlopen(RTLD_NOW | RTLD_LOCAL) of `path`, whose entry point `abi_symbol`
// must return `abi`: every symbol it needs is bound at once, so a broken
// install fails here with the loader's text, and nothing of it enters
// collviz-rank's global symbol scope. The module stays loaded for the life
// of the process. Errors start "cannot load the <what> module <path>: ".
Result<void*> openModule(const std::string& path, const std::string& what,
                         const char* abi_symbol, int abi);

// The error for a module at `path` without collviz's entry points.
Error lacksEntryPoints(const std::string& what, const std::string& path);

// The entry point `symbol` of a module openModule returned, or nullptr.
void* moduleSymbol(void* handle, const char* symbol);

}  // namespace collviz
