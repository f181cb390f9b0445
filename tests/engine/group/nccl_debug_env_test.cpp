// The NCCL_DEBUG settings collviz gives its NCCL ranks (group/nccl_debug_env.h):
// all three where the user set none, none where the user set NCCL_DEBUG, the
// user's NCCL_DEBUG_SUBSYS kept; a folder of its own for the files.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "engine/group/nccl_debug_env.h"

namespace collviz {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

TEST(NcclDebugEnv, AllThreeWhereTheUserSetNone) {
  auto env = ncclDebugEnv("/tmp/d", [](const char*) -> const char* { return nullptr; });
  EXPECT_EQ(env, (Env{{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", "INIT,GRAPH,TUNING,COLL"}, {"NCCL_DEBUG_FILE", "/tmp/d/nccl.%h.%p"}}));
}

TEST(NcclDebugEnv, TheUsersNcclDebugStands) {
  auto env = ncclDebugEnv("/tmp/d", [](const char* n) -> const char* { return std::string(n) == "NCCL_DEBUG" ? "WARN" : nullptr; });
  EXPECT_TRUE(env.empty());
}

TEST(NcclDebugEnv, TheUsersSubsystemsStand) {
  auto env = ncclDebugEnv("/tmp/d", [](const char* n) -> const char* { return std::string(n) == "NCCL_DEBUG_SUBSYS" ? "NET" : nullptr; });
  EXPECT_EQ(env, (Env{{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_FILE", "/tmp/d/nccl.%h.%p"}}));
  EXPECT_TRUE(ncclDebugEnv("", [](const char*) -> const char* { return nullptr; }).empty());
}

TEST(NcclDebugEnv, AFolderOfItsOwn) {
  std::string a = makeNcclLogDir(), b = makeNcclLogDir();
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a, b);
  EXPECT_TRUE(std::filesystem::is_directory(a));
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

}  // namespace
}  // namespace collviz
