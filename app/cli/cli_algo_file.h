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

// The same for a command without the spec's options (algos, bench): the
// file read and registered; `op` ("" or "all": none given) and `ranks` (0:
// none given) must agree with the file. The file's op, ranks and chunks
// per block come back.
struct AlgoFileUse {
  std::string algo;  // "msccl:NAME"
  Op op = Op::all_reduce;
  int ranks = 0;
  int parts = 1;
};
Result<AlgoFileUse> registerAlgoFile(const std::string& path, const std::string& op, int ranks, int root);

}  // namespace collviz
