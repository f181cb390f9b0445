// The live capture reader (engine/job/live.cpp) on files written here the
// way the tap writes them (tap/capture_format.h), while they "grow": records
// past `committed` are not read, a call in flight is read again until its
// t_exit is set (then with its output bytes), a bad record stops its file
// with a note, a file of another version is not read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/job/live.h"
#include "engine/job/live_lanes.h"

namespace collviz {
namespace {

namespace fs = std::filesystem;

class LiveFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("live_test." + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    bytes_.assign(tap::kHeaderBytes, 0);
    auto* h = reinterpret_cast<tap::FileHeader*>(bytes_.data());
    std::memcpy(h->magic, tap::kMagic, sizeof tap::kMagic);
    h->version = tap::kVersion;
    h->header_bytes = tap::kHeaderBytes;
    h->world_rank = 3;
    h->world_size = 4;
    h->pid = 1234;
    std::strcpy(h->host, "node7");
  }
  void TearDown() override { fs::remove_all(dir_); }

  tap::FileHeader* header() { return reinterpret_cast<tap::FileHeader*>(bytes_.data()); }
  void add(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  void addWorld() {
    tap::CommRecord c{};
    c.head = {std::uint8_t(tap::RecordType::comm), std::uint8_t(tap::CommKind::world), 0, sizeof c + 16};
    c.comm = 0;
    c.ranks = 4;
    c.my_rank = 3;
    c.color = c.key = -1;
    c.id = tap::kWorldId;
    add(&c, sizeof c);
    const std::int32_t ranks[4] = {0, 1, 2, 3};
    add(ranks, sizeof ranks);
  }
  // An allreduce of one double; returns its offset in the file.
  std::size_t addCall(std::uint32_t seq, std::uint64_t exit, double in, double out) {
    const std::size_t at = bytes_.size();
    tap::CallRecord r{};
    r.head = {std::uint8_t(tap::RecordType::call), std::uint8_t(tap::Func::allreduce), 0, sizeof r + 16};
    r.comm = 0;
    r.seq = seq;
    r.dtype = std::uint8_t(tap::DType::double_);
    r.op = std::uint8_t(tap::ROp::sum);
    r.root = -1;
    r.in_elems = r.out_elems = 1;
    r.dtype_size = 8;
    r.in_kept = r.out_kept = 8;
    r.t_enter = 1000 + seq;
    r.t_exit.store(exit);
    add(&r, sizeof r);
    add(&in, 8);
    add(&out, 8);
    return at;
  }
  void commit() { header()->committed.store(bytes_.size() - tap::kHeaderBytes); }
  void write(const std::string& name = "tap-node7-1234.cvtap") {
    std::ofstream f(dir_ / name, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes_.data()), std::streamsize(bytes_.size()));
  }

  fs::path dir_;
  std::vector<unsigned char> bytes_;
};

TEST_F(LiveFile, ReadsUpToCommittedAndAgainWhenACallReturns) {
  job::LiveCapture live(dir_.string(), true);
  std::vector<job::LiveCall> done, in;
  live.poll(&done, &in);
  EXPECT_TRUE(live.files().empty());

  addWorld();
  addCall(0, 2000, 1.5, 6.0);
  const std::size_t second = addCall(1, 0, 2.5, 0);  // in flight
  commit();
  addCall(2, 3000, 9, 9);  // written, not yet committed: not read
  write();
  live.poll(&done, &in);
  ASSERT_EQ(live.files().size(), 1u);
  EXPECT_EQ(live.files()[0].rank, 3);
  EXPECT_EQ(live.files()[0].host, "node7");
  ASSERT_EQ(done.size(), 1u) << "the returned call, not the one past committed";
  EXPECT_EQ(done[0].seq, 0u);
  EXPECT_EQ(done[0].comm, tap::kWorldId);
  EXPECT_EQ(std::string(done[0].name()), "MPI_Allreduce");
  double out = 0;
  ASSERT_EQ(done[0].out.size(), 8u);
  std::memcpy(&out, done[0].out.data(), 8);
  EXPECT_EQ(out, 6.0);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].seq, 1u);
  EXPECT_EQ(live.inFlightCount(), 1u);
  EXPECT_EQ(live.lastExitNs(), 2000u);
  ASSERT_NE(live.comm(tap::kWorldId), nullptr);
  EXPECT_EQ(live.comm(tap::kWorldId)->ranks, (std::vector<int>{0, 1, 2, 3}));

  // The call returns (its output, then t_exit) and the third is committed.
  const double result = 10;
  std::memcpy(bytes_.data() + second + sizeof(tap::CallRecord) + 8, &result, 8);
  reinterpret_cast<tap::CallRecord*>(bytes_.data() + second)->t_exit.store(2500);
  commit();
  write();
  done.clear();
  in.clear();
  live.poll(&done, &in);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].seq, 1u) << "the call in flight, read again";
  std::memcpy(&out, done[0].out.data(), 8);
  EXPECT_EQ(out, 10.0);
  EXPECT_EQ(done[1].seq, 2u);
  EXPECT_EQ(live.inFlightCount(), 0u);
  EXPECT_EQ(live.entered(), 3);
  EXPECT_EQ(live.returned(), 3);
  EXPECT_EQ(live.lastExitNs(), 3000u);
  EXPECT_EQ((live.counts().at({3, "MPI_Allreduce"}).returned), 3);
}

// The tap makes and sizes its file before it writes the header: a file of
// zeros is read again later, not taken for a foreign file (a rank's whole
// capture was missed that way).
TEST_F(LiveFile, AFileNotYetWrittenIsReadOnceItIs) {
  const std::vector<unsigned char> written = bytes_;
  std::fill(bytes_.begin(), bytes_.end(), 0);
  write();
  job::LiveCapture live(dir_.string());
  std::vector<job::LiveCall> done;
  live.poll(&done);
  ASSERT_EQ(live.files().size(), 1u);
  EXPECT_TRUE(live.files()[0].problem.empty()) << live.files()[0].problem.english();
  bytes_ = written;
  addWorld();
  addCall(0, 2000, 1, 1);
  commit();
  write();
  live.poll(&done);
  EXPECT_EQ(done.size(), 1u);
  EXPECT_EQ(live.files()[0].rank, 3);
}

TEST_F(LiveFile, ABadRecordStopsItsFileWithANote) {
  addWorld();
  addCall(0, 2000, 1, 1);
  tap::RecordHead bad{std::uint8_t(tap::RecordType::call), 0, 0, 12};  // not a multiple of 8
  add(&bad, sizeof bad);
  add("\0\0\0\0\0\0\0\0", 8);
  commit();
  write();
  job::LiveCapture live(dir_.string());
  std::vector<job::LiveCall> done;
  live.poll(&done);
  EXPECT_EQ(done.size(), 1u);
  ASSERT_EQ(live.files().size(), 1u);
  EXPECT_NE(live.files()[0].problem.english().find("a record of size 12"), std::string::npos) << live.files()[0].problem.english();
}

TEST_F(LiveFile, AnotherVersionIsNotRead) {
  header()->version = 2;
  addWorld();
  addCall(0, 2000, 1, 1);
  commit();
  write();
  job::LiveCapture live(dir_.string());
  std::vector<job::LiveCall> done;
  live.poll(&done);
  EXPECT_TRUE(done.empty());
  ASSERT_EQ(live.files().size(), 1u);
  EXPECT_NE(live.files()[0].problem.english().find("another version (2"), std::string::npos) << live.files()[0].problem.english();
}

// The tap writes its header's fields, then the magic last: a reader that
// comes between (the version set, no magic yet) reads the file again at
// the next poll. Taking it for a foreign file lost a whole rank of a LAMMPS
// run under the watch window (issue 58: 3 ranks' calls of 4 read).
TEST_F(LiveFile, AHeaderWithoutItsMagicYetIsReadAgainLater) {
  addWorld();
  addCall(0, 2000, 1.5, 6.0);
  commit();
  std::memset(header()->magic, 0, sizeof header()->magic);
  write();
  job::LiveCapture live(dir_.string());
  std::vector<job::LiveCall> done;
  live.poll(&done);
  EXPECT_TRUE(done.empty());
  std::memcpy(header()->magic, tap::kMagic, sizeof tap::kMagic);
  write();
  live.poll(&done);
  ASSERT_EQ(live.files().size(), 1u);
  EXPECT_EQ(live.files()[0].problem.english(), "");
  EXPECT_EQ(done.size(), 1u) << "the file was left unread once its magic came";
}

// The watch window's model: the newest kLaneRing calls as tiles, older ones
// and a selected call (with its bytes) read again from the file through the
// sparse index, equal to what was written.
TEST_F(LiveFile, TheWindowsModelReadsOldCallsAndBytesAgainFromTheFiles) {
  addWorld();
  const std::uint32_t n = job::kLaneRing + 1500;
  for (std::uint32_t s = 0; s < n; ++s) addCall(s, 5000 + s, s + 0.5, 4.0 * s);
  commit();
  write();
  job::LiveLanes lanes(dir_.string(), 60, nullptr);
  std::int64_t seen = 0;
  for (int i = 0; i < 400 && seen < std::int64_t(n); ++i) {  // the poller's thread: up to 20 s
    lanes.view([&](const job::LiveData& d) { seen = d.returned; });
    if (seen < std::int64_t(n)) usleep(50000);
  }
  ASSERT_EQ(seen, std::int64_t(n)) << "the poller did not read every call";
  lanes.view([&](const job::LiveData& d) {
    ASSERT_EQ(d.lanes.size(), 1u);
    EXPECT_EQ(d.lanes[0].calls, n);
    EXPECT_EQ(d.lanes[0].ring.size(), job::kLaneRing) << "the ring holds the newest calls only";
    EXPECT_EQ(d.lanes[0].ring.front().seq, n - job::kLaneRing);
  });
  // Older than the ring: from the index (seq 1024's offset) forward.
  const auto tiles = lanes.readTiles(tap::kWorldId, 1030, 3);
  ASSERT_EQ(tiles.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(tiles[i].seq, 1030 + i);
    EXPECT_EQ(tiles[i].func, tap::Func::allreduce) << "tile " << 1030 + i << " not found in the file";
    EXPECT_EQ(tiles[i].returned, 1);
  }
  auto call = lanes.readCall(tap::kWorldId, 2049);
  ASSERT_TRUE(call.ok()) << call.error().message;
  ASSERT_EQ(call->ranks.size(), 4u);  // the world's 4 members; this file is rank 3's
  const job::CapturedRank& r = call->ranks[3];
  ASSERT_TRUE(r.present);
  double in = 0, out = 0;
  ASSERT_EQ(r.in.size(), 8u);
  ASSERT_EQ(r.out.size(), 8u);
  std::memcpy(&in, r.in.data(), 8);
  std::memcpy(&out, r.out.data(), 8);
  EXPECT_EQ(in, 2049.5);
  EXPECT_EQ(out, 4.0 * 2049);
  EXPECT_FALSE(call->ranks[0].present) << "rank 0 has no file";
}

// The NCCL tap's file: the window says its rank is outside NCCL between
// calls, not outside MPI (the verdict's words, capture.cpp's, do the same).
TEST_F(LiveFile, AnNcclTapsRankIsMarkedSo) {
  header()->library = std::uint32_t(tap::Library::nccl);
  addWorld();
  addCall(0, 5000, 1.0, 2.0);
  commit();
  write();
  job::LiveLanes lanes(dir_.string(), 60, nullptr);
  bool nccl = false;
  for (int i = 0; i < 400 && !nccl; ++i) {  // the poller's thread: up to 20 s
    lanes.view([&](const job::LiveData& d) {
      for (const job::LiveRank& r : d.ranks) nccl = nccl || (r.rank == 3 && r.nccl);
    });
    if (!nccl) usleep(50000);
  }
  EXPECT_TRUE(nccl) << "rank 3's file is the NCCL tap's";
}

}  // namespace
}  // namespace collviz
