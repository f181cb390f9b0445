// The NCCL probe and communicator on a machine with or without a GPU. In CI
// (CUDA toolkit and NCCL installed, no GPU, no driver) this checks the fallback:
// NCCL is reported unavailable with the CUDA error, nothing crashes, and the
// engine's backend choice falls back to Gloo with a notice.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "engine/group/devices.h"
#include "engine/worker/nccl/communicator.h"
#include "engine/worker/nccl/nvml.h"

namespace collviz {
namespace {

using json = nlohmann::json;

class MapStore final : public ControlStore {
 public:
  Status set(const std::string& k, const std::vector<char>& v) override {
    m_[k] = v;
    return {};
  }
  Result<std::vector<char>> get(const std::string& k, int) override {
    auto it = m_.find(k);
    if (it == m_.end()) return Error{"timeout"};
    return it->second;
  }

 private:
  std::map<std::string, std::vector<char>> m_;
};

TEST(NcclProbe, ReportsEveryFieldOfTheProbeFormat) {
  const json b = probeNccl();
  EXPECT_EQ(b.at("name"), "nccl");
  for (const char* k : {"reason", "version", "devices", "transport", "notes"})
    EXPECT_TRUE(b.at(k).is_string()) << k;
  for (const char* k : {"version_code", "gpus", "max_ranks", "max_rank_bytes"})
    EXPECT_TRUE(b.at(k).is_number_integer()) << k;
  EXPECT_TRUE(b.at("available").is_boolean());
  // One entry per visible GPU: its total memory and its free memory or why not.
  ASSERT_TRUE(b.at("gpu_memory").is_array());
  EXPECT_EQ(int(b.at("gpu_memory").size()), b.at("gpus").get<int>());
  for (const auto& m : b.at("gpu_memory")) {
    EXPECT_TRUE(m.at("total").is_number_unsigned()) << m.dump();
    EXPECT_TRUE(m.contains("free") != m.contains("error")) << m.dump();
    EXPECT_TRUE(m.at("source").is_string()) << m.dump();  // "nvml" or "cuda (why)"
    if (m.contains("free")) {
      EXPECT_LE(m.at("free").get<std::size_t>(), m.at("total").get<std::size_t>());
    }
  }
  EXPECT_GT(b.at("version_code").get<int>(), 0) << "ncclGetVersion works without a GPU";
  EXPECT_NE(b.at("version").get<std::string>(), "unknown");
  std::set<std::string> dtypes, redops;
  for (const auto& d : b.at("dtypes")) dtypes.insert(d.get<std::string>());
  for (const auto& r : b.at("redops")) redops.insert(r.get<std::string>());
  if (b.at("version_code").get<int>() >= 21000) {
    EXPECT_EQ(dtypes, (std::set<std::string>{"f32", "f64", "f16", "bf16", "i32", "i64", "u8"}));
    EXPECT_EQ(redops, (std::set<std::string>{"sum", "prod", "min", "max", "avg"}));
  }
}

// NVML answers with a plausible record, or says why it cannot (here: no
// driver, so no libnvidia-ml); never a crash or a silent zero.
TEST(NcclProbe, NvmlAnswersOrSaysWhy) {
  std::string why;
  const auto m = nccl_detail::nvmlMemory(0, &why);
  if (m) {
    EXPECT_GT(m->total, std::size_t(0));
    EXPECT_LE(m->free, m->total);
  } else {
    EXPECT_FALSE(why.empty());
    std::printf("NVML not used here: %s\n", why.c_str());
  }
}

TEST(NcclProbe, AvailabilityAndReasonAgree) {
  const json b = probeNccl();
  if (b.at("available").get<bool>()) {
    EXPECT_EQ(b.at("reason"), "");
    EXPECT_GT(b.at("gpus").get<int>(), 0);
  } else {
    EXPECT_FALSE(b.at("reason").get<std::string>().empty());
    EXPECT_EQ(b.at("gpus"), 0);
    std::printf("NCCL unavailable here: %s\n", b.at("reason").get<std::string>().c_str());
  }
}

TEST(NcclProbe, WithoutGpuTheCommunicatorFailsWithTheReason) {
  const json b = probeNccl();
  if (b.at("available").get<bool>()) GTEST_SKIP() << "a GPU is present; see the gpu tests";
  auto comm = makeNcclCommunicator(0);
  MapStore store;
  Status st = comm->init(0, 1, store, 100);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(b.at("reason").get<std::string>()), std::string::npos)
      << st.message();
  OpSpec s;
  s.ranks = 1;
  std::vector<float> in(16), out(16);
  auto r = comm->run(s, in.data(), out.data(), RunOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not initialised"), std::string::npos) << r.error().message;
  EXPECT_EQ(comm->describe().name, "nccl");
  EXPECT_FALSE(comm->caps().dtypes.empty());
}

TEST(NcclProbe, EngineFallsBackToGlooWithANotice) {
  const json b = probeNccl();
  if (b.at("available").get<bool>()) GTEST_SKIP() << "a GPU is present: no fallback";
  const json gloo = {{"name", "gloo"},     {"available", true},   {"reason", ""},
                     {"version", "x"},     {"devices", "CPU"},    {"transport", "tcp"},
                     {"notes", ""},        {"gpus", 0},           {"dtypes", {"f32"}},
                     {"redops", {"sum"}}, {"max_ranks", 16},     {"max_rank_bytes", 1024}};
  auto rep = parseProbe(json{{"backends", {gloo, b}}}.dump());
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const BackendStatus* nccl = rep->find(BackendKind::nccl);
  ASSERT_NE(nccl, nullptr);
  EXPECT_FALSE(nccl->available);
  Said notice;
  auto chosen = rep->choose(BackendKind::automatic, &notice);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(*chosen, BackendKind::gloo);
  EXPECT_NE(notice.find(b.at("reason").get<std::string>()), std::string::npos) << notice;
  auto refused = rep->choose(BackendKind::nccl, static_cast<Said*>(nullptr));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(b.at("reason").get<std::string>()), std::string::npos);
}

}  // namespace
}  // namespace collviz
