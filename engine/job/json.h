// A read job and its analysis as JSON (collviz job --json): texts through
// `say`, the reader's language (app/lang) or the English. Calls: every
// call of the NCCL tools (Inspector, profiler) and each rank's last
// `lastPerRank` Flight Recorder calls; `allCalls` lists every call.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/job/job.h"

namespace collviz::job {

nlohmann::json toJson(const Job& job, const Analysis& a, const std::function<std::string(const Text&)>& say,
                      bool allCalls = false, int lastPerRank = 3);
nlohmann::json toJson(const Job& job, const Call& c);  // one call

// Each rank's last `n` calls (by time, then sequence) of the Flight
// Recorder: Job::calls indices, by rank.
std::vector<std::vector<std::size_t>> lastCalls(const Job& job, int n);

}  // namespace collviz::job
