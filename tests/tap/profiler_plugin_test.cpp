// NCCL's profiler plugin of the NCCL tap (tap/nccl/profiler*.cpp), called
// here as NCCL calls it, through the exported ncclProfiler_v5 and
// ncclProfiler_v6 structs (label tap; no NCCL, no GPU): the activation mask
// it asks for, a ProfileRecord per collective with NCCL's algorithm,
// protocol, channels and seqNumber, its kernel part from KernelCh events
// in either order around the Coll event's stop, finalize with a channel
// still running (flagged short), at most 4096 collectives kept waiting for
// their kernels, nothing while no capture is open; and
// NCCL_PROFILER_PLUGIN: set to the tap where unset, another plugin or
// "none" kept and said, NCCL older than 2.28 said.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tap/nccl/profiler.h"
#include "tap/nccl/profiler_api.h"

extern "C" collviz::tap::nccl::Profiler ncclProfiler_v5, ncclProfiler_v6;

namespace collviz::tap::nccl {

// The tap's writer, played by the test: open while g_open.
CaptureWriter g_writer;
bool g_open = false;
CaptureWriter* profilerWriter() { return g_open ? &g_writer : nullptr; }

namespace {

namespace fs = std::filesystem;

fs::path g_dir;

// The profile records the capture holds so far.
std::vector<std::unique_ptr<ProfileRecord>> records() {
  std::ifstream in(g_writer.path(), std::ios::binary);
  const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::uint64_t committed = 0;
  std::memcpy(&committed, b.data() + offsetof(FileHeader, committed), 8);
  std::vector<std::unique_ptr<ProfileRecord>> out;
  for (std::size_t at = kHeaderBytes; at < kHeaderBytes + committed;) {
    RecordHead h;
    std::memcpy(&h, b.data() + at, sizeof h);
    if (h.size == 0) break;
    if (h.type == std::uint8_t(RecordType::profile) && h.size == sizeof(ProfileRecord)) {
      out.push_back(std::make_unique<ProfileRecord>());
      std::memcpy(static_cast<void*>(out.back().get()), b.data() + at, sizeof(ProfileRecord));
    }
    at += h.size;
  }
  return out;
}

EventDescr coll(std::uint64_t seq, const char* func, std::uint8_t channels, const char* algo, const char* proto) {
  EventDescr d{};
  d.type = kProfileColl;
  d.coll.seqNumber = seq;
  d.coll.func = func;
  d.coll.count = 64;
  d.coll.nChannels = channels;
  d.coll.algo = algo;
  d.coll.proto = proto;
  return d;
}

void* channelStart(const Profiler& p, void* ctx, void* parent, std::uint8_t ch, std::uint64_t timer) {
  EventDescr d{};
  d.type = kProfileKernelCh;
  d.parentObj = parent;
  d.kernelCh.channelId = ch;
  d.kernelCh.pTimer = timer;
  void* h = nullptr;
  EXPECT_EQ(p.startEvent(ctx, &h, &d), kSuccess);
  return h;
}

void channelStop(const Profiler& p, void* h, std::uint64_t timer) {
  EventStateArgs a{};
  a.kernelCh.pTimer = timer;
  EXPECT_EQ(p.recordEventState(h, kStateKernelChStop, &a), kSuccess);
  EXPECT_EQ(p.stopEvent(h), kSuccess);
}

class Plugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_dir = fs::temp_directory_path() / ("collviz_profiler_" + std::to_string(::getpid()));
    fs::create_directories(g_dir);
    ::setenv("COLLVIZ_TAP_OUT", g_dir.c_str(), 1);
    WriterOptions o;
    o.dir = g_dir.c_str();
    o.library = Library::nccl;
    ASSERT_TRUE(g_writer.open(o));
    g_open = true;
  }
  static void TearDownTestSuite() { fs::remove_all(g_dir); }
};

TEST_F(Plugin, ACollectiveIsWrittenWhenEnqueuedAndItsKernelWhenEveryChannelStopped) {
  for (const Profiler* p : {&ncclProfiler_v5, &ncclProfiler_v6}) {
    ASSERT_STREQ(p->name, "collviz-tap");
    const std::size_t before = records().size();
    void* ctx = nullptr;
    int mask = 0;
    ASSERT_EQ(p->init(&ctx, 0xfeedull, &mask, "", 1, 2, 1, nullptr), kSuccess);
    EXPECT_EQ(lastInitCommHash(), 0xfeedull);
    EXPECT_TRUE(profilerInitSeen());
    EXPECT_EQ(mask, int(kProfileColl | kProfileKernelCh)) << "only what the tap uses";
    // NCCL: Coll start and stop at enqueue, then each channel from the proxy thread.
    EventDescr d = coll(7, "AllReduce", 2, "RING", "SIMPLE");
    void* h = nullptr;
    ASSERT_EQ(p->startEvent(ctx, &h, &d), kSuccess);
    ASSERT_NE(h, nullptr);
    ASSERT_EQ(p->stopEvent(h), kSuccess);
    auto got = records();
    ASSERT_EQ(got.size(), before + 1);
    const ProfileRecord& r = *got.back();
    EXPECT_EQ(r.head.sub, std::uint8_t(Func::nccl_allreduce));
    EXPECT_EQ(r.comm_id, 0xfeedull);
    EXPECT_EQ(r.comm_rank, 1);
    EXPECT_EQ(r.seq, 7u);
    EXPECT_EQ(r.count, 64u);
    EXPECT_STREQ(r.algo, "RING");
    EXPECT_STREQ(r.proto, "SIMPLE");
    EXPECT_EQ(r.channels, 2);
    EXPECT_LE(r.t_start, r.t_enqueued);
    EXPECT_EQ(r.kernel_end.load(), 0u) << "enqueued, not done";
    void* c0 = channelStart(*p, ctx, h, 0, 1000);
    void* c1 = channelStart(*p, ctx, h, 1, 1100);
    channelStop(*p, c0, 5000);
    EXPECT_EQ(records().back()->kernel_end.load(), 0u) << "one channel of two still runs";
    channelStop(*p, c1, 6000);
    const auto after = records();
    const ProfileRecord& done = *after.back();
    EXPECT_NE(done.kernel_end.load(), 0u);
    EXPECT_LE(done.kernel_start, done.kernel_end.load());
    EXPECT_EQ(done.kernel_gpu_ns, 5000u) << "first start 1000 to last stop 6000 on the GPU's timer";
    EXPECT_EQ(done.channels_done, 2);
    EXPECT_EQ(done.head.flags, 0);
    EXPECT_EQ(p->finalize(ctx), kSuccess);
  }
}

TEST_F(Plugin, ChannelsBeforeTheCollStopAndFinalizeWithAChannelRunning) {
  const Profiler& p = ncclProfiler_v5;
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p.init(&ctx, 0xabcull, &mask, "", 1, 2, 0, nullptr), kSuccess);
  const std::size_t before = records().size();
  // The kernel ran before NCCL stopped the Coll event: written whole at the stop.
  EventDescr d = coll(0, "Broadcast", 1, "TREE", "LL");
  void* h = nullptr;
  ASSERT_EQ(p.startEvent(ctx, &h, &d), kSuccess);
  channelStop(p, channelStart(p, ctx, h, 0, 10), 30);
  ASSERT_EQ(p.stopEvent(h), kSuccess);
  EXPECT_NE(records().back()->kernel_end.load(), 0u) << "its only channel stopped before the Coll event: done at the stop, not at finalize";
  // A function the tap has no code for keeps Func::none; a channel never stopped.
  EventDescr e = coll(3, "PutSignal", 2, "RING", "LL128");
  void* k = nullptr;
  ASSERT_EQ(p.startEvent(ctx, &k, &e), kSuccess);
  ASSERT_EQ(p.stopEvent(k), kSuccess);
  channelStop(p, channelStart(p, ctx, k, 1, 50), 90);
  channelStart(p, ctx, k, 0, 40);
  // Types not asked for get no handle; a null handle is ignored.
  EventDescr g{};
  g.type = kProfileProxyOp;
  void* none = &g;
  EXPECT_EQ(p.startEvent(ctx, &none, &g), kSuccess);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(p.stopEvent(nullptr), kSuccess);
  EXPECT_EQ(p.finalize(ctx), kSuccess);
  const auto got = records();
  ASSERT_EQ(got.size(), before + 2);
  EXPECT_EQ(got[before]->head.sub, std::uint8_t(Func::nccl_broadcast));
  EXPECT_STREQ(got[before]->algo, "TREE");
  EXPECT_EQ(got[before]->kernel_gpu_ns, 20u);
  EXPECT_NE(got[before]->kernel_end.load(), 0u);
  EXPECT_EQ(got[before]->head.flags, 0) << "every channel reported: not flagged short";
  EXPECT_EQ(got[before + 1]->head.sub, std::uint8_t(Func::none));
  EXPECT_EQ(got[before + 1]->head.flags, kProfileChannelsShort);
  EXPECT_EQ(got[before + 1]->channels_done, 1);
  EXPECT_NE(got[before + 1]->kernel_end.load(), 0u) << "what one channel saw is kept";
}

TEST_F(Plugin, KernelsThatNeverReportDoNotGrowThePluginWithoutEnd) {
  const Profiler& p = ncclProfiler_v5;
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p.init(&ctx, 0x77ull, &mask, "", 1, 2, 0, nullptr), kSuccess);
  const std::size_t before = records().size();
  // 4097 collectives enqueued whose KernelCh events never come: the oldest is
  // written as it is (flagged short) to keep 4096 waiting.
  std::vector<void*> handles;
  for (int i = 0; i < 4097; ++i) {
    EventDescr d = coll(std::uint64_t(i), "AllReduce", 1, "RING", "LL");
    void* h = nullptr;
    ASSERT_EQ(p.startEvent(ctx, &h, &d), kSuccess);
    ASSERT_EQ(p.stopEvent(h), kSuccess);
  }
  auto got = records();
  ASSERT_EQ(got.size(), before + 4097);
  EXPECT_EQ(got[before]->head.flags, kProfileChannelsShort) << "the oldest, given up on";
  EXPECT_EQ(got[before]->kernel_end.load(), 0u) << "its kernel never said it ended";
  EXPECT_EQ(got[before + 1]->head.flags, 0) << "the next still waits";
  EXPECT_EQ(p.finalize(ctx), kSuccess);
  got = records();
  EXPECT_EQ(got.back()->head.flags, kProfileChannelsShort) << "finalize flushes the rest";
}

// The cap counts the collectives still waiting, not every one ever seen:
// after 4096 whose kernels ended, two waiting at once are no reason to give
// up on the older.
TEST_F(Plugin, TheCapCountsOnlyCollectivesStillWaiting) {
  const Profiler& p = ncclProfiler_v5;
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p.init(&ctx, 0x78ull, &mask, "", 1, 2, 0, nullptr), kSuccess);
  for (int i = 0; i < 4096; ++i) {
    EventDescr d = coll(std::uint64_t(i), "AllReduce", 1, "RING", "LL");
    void* h = nullptr;
    ASSERT_EQ(p.startEvent(ctx, &h, &d), kSuccess);
    ASSERT_EQ(p.stopEvent(h), kSuccess);
    channelStop(p, channelStart(p, ctx, h, 0, 10), 20);
  }
  const std::size_t before = records().size();
  EventDescr a = coll(4096, "AllReduce", 1, "RING", "LL"), b = coll(4097, "AllReduce", 1, "RING", "LL");
  void *ha = nullptr, *hb = nullptr;
  ASSERT_EQ(p.startEvent(ctx, &ha, &a), kSuccess);
  ASSERT_EQ(p.stopEvent(ha), kSuccess);
  ASSERT_EQ(p.startEvent(ctx, &hb, &b), kSuccess);
  ASSERT_EQ(p.stopEvent(hb), kSuccess);
  channelStop(p, channelStart(p, ctx, ha, 0, 30), 40);
  channelStop(p, channelStart(p, ctx, hb, 0, 50), 60);
  const auto got = records();
  ASSERT_EQ(got.size(), before + 2);
  for (std::size_t i = before; i < got.size(); ++i) {
    EXPECT_EQ(got[i]->head.flags, 0) << "seq " << got[i]->seq << ": 2 waiting, given up on as if 4096 were";
    EXPECT_NE(got[i]->kernel_end.load(), 0u) << "seq " << got[i]->seq;
  }
  EXPECT_EQ(p.finalize(ctx), kSuccess);
}

TEST_F(Plugin, NothingIsRecordedWhileTheCaptureIsClosedOrUnwanted) {
  const Profiler& p = ncclProfiler_v6;
  const std::size_t before = records().size();
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(p.init(&ctx, 1, &mask, "", 1, 1, 0, nullptr), kSuccess);
  g_open = false;  // the tap opens its capture only once the communicator is made
  EventDescr d = coll(0, "AllReduce", 1, "RING", "LL");
  void* h = &d;
  EXPECT_EQ(p.startEvent(ctx, &h, &d), kSuccess);
  EXPECT_EQ(h, nullptr);
  g_open = true;
  EXPECT_EQ(p.finalize(ctx), kSuccess);
  ::unsetenv("COLLVIZ_TAP_OUT");
  ASSERT_EQ(p.init(&ctx, 1, &mask, "", 1, 1, 0, nullptr), kSuccess);
  EXPECT_EQ(mask, 0) << "no capture wanted: no events at all";
  EXPECT_EQ(ctx, nullptr);
  ::setenv("COLLVIZ_TAP_OUT", g_dir.c_str(), 1);
  EXPECT_EQ(records().size(), before);
}

TEST(ProfilerEnv, TheTapIsTheProfilerUnlessAnotherIsNamed) {
  ::unsetenv("NCCL_PROFILER_PLUGIN");
  EXPECT_STREQ(profilerSetup(), "");
  const char* set = ::getenv("NCCL_PROFILER_PLUGIN");
  ASSERT_NE(set, nullptr) << "unset: NCCL is pointed at the tap's own library";
  EXPECT_STRNE(set, "");
  EXPECT_STREQ(profilerSetup(), "") << "already ours";
  ::setenv("NCCL_PROFILER_PLUGIN", "/opt/x/libnccl-profiler-inspector.so", 1);
  EXPECT_STREQ(profilerSetup(), "other /opt/x/libnccl-profiler-inspector.so");
  EXPECT_STREQ(::getenv("NCCL_PROFILER_PLUGIN"), "/opt/x/libnccl-profiler-inspector.so") << "the user's plugin stays";
  EXPECT_STREQ(profilerAbsentWhy(), "other /opt/x/libnccl-profiler-inspector.so");
  EXPECT_STREQ(profilerAfterInit(22809), "") << "already said";
  ::setenv("NCCL_PROFILER_PLUGIN", "NONE", 1);
  EXPECT_STREQ(profilerSetup(), "none");
  ::unsetenv("NCCL_PROFILER_PLUGIN");
  EXPECT_STREQ(profilerSetup(), "");
}

}  // namespace
}  // namespace collviz::tap::nccl
