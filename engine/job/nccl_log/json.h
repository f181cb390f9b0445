// A read NCCL log as JSON (collviz nccl-log --json): texts through `say`,
// the reader's language (app/lang) or the English.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/job/nccl_log/nccl_log.h"

namespace collviz::nccl_log {

nlohmann::json toJson(const Log& log, const std::function<std::string(const Text&)>& say);

}  // namespace collviz::nccl_log
