// `collviz algos` and `collviz run --algo`: algorithms run round by round.
#pragma once

#include <string>

#include "app/cli/cli_common.h"

namespace collviz {

// Run `p` with a non-native algorithm and print its rounds (or JSON).
int runWithAlgorithm(const ParsedSpec& p, const std::string& algo, bool json, int deadline_ms,
                     const PlacementOptions& placement, const HostSpec& hosts = {});

}  // namespace collviz
