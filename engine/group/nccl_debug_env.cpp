#include "engine/group/nccl_debug_env.h"

#include <cstdlib>
#include <string>

namespace collviz {

std::vector<std::pair<std::string, std::string>> ncclDebugEnv(const std::string& dir,
                                                              const std::function<const char*(const char*)>& getenv) {
  if (dir.empty()) return {};
  const char* debug = getenv("NCCL_DEBUG");
  if (debug && *debug) return {};  // the user's
  std::vector<std::pair<std::string, std::string>> env = {{"NCCL_DEBUG", "INFO"}};
  const char* subsys = getenv("NCCL_DEBUG_SUBSYS");
  if (!subsys || !*subsys) env.emplace_back("NCCL_DEBUG_SUBSYS", kNcclLogSubsystems);
  env.emplace_back("NCCL_DEBUG_FILE", dir + "/nccl.%h.%p");
  return env;
}

std::string makeNcclLogDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string t = std::string(tmp && *tmp ? tmp : "/tmp") + "/collviz-nccl-log.XXXXXX";
  if (!::mkdtemp(t.data())) return "";
  return t;
}

}  // namespace collviz
