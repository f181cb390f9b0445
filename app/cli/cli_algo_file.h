// --algo-file FILE (run, export): read and check an MSCCL algorithm file,
// make it an algorithm of this process (engine/algo/msccl/msccl.h) and fit the
// command's spec to it: the op is the file's coll, the ranks its ngpus, and
// the default elems a multiple of its chunks per block.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/cli/cli_common.h"

namespace collviz {

// The option, on `cmd`.
void addAlgoFileOption(CLI::App* cmd, std::string& path);
// Reads `path` and fits `a` (the options the user gave on `cmd` stay, and
// must agree with the file); returns the algorithm's name. The error starts
// with FILE:LINE for what is wrong inside the file.
Result<std::string> useAlgoFile(const std::string& path, CLI::App* cmd, SpecArgs& a);

}  // namespace collviz
