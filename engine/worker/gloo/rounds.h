// An algorithm's rounds on Gloo: point-to-point sends and receives on
// unbound buffers over the rank's working buffer (host shared memory) and a
// scratch buffer; local reduces with Gloo's own element-wise functions.
#pragma once

#include <gloo/context.h>

#include <chrono>
#include <memory>
#include <vector>

#include "engine/algo/schedule.h"
#include "engine/worker/communicator.h"

namespace collviz {

Result<RoundsTiming> runGlooRounds(const std::shared_ptr<gloo::Context>& ctx,
                                   std::chrono::milliseconds timeout, const algo::Schedule& s,
                                   int from, int to, const void* in, void* work,
                                   const RunOptions& o, std::vector<char>& scratch);

}  // namespace collviz
