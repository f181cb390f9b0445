// A captured call as every member saw it (engine/job/captured_call.h) and
// who arrived last (engine/job/arrival.h), on captures written from
// tap/capture_format.h's own structs (capture_writer.h): members in the
// communicator's order with their times and kept bytes, a member without a
// record absent, errors that name what exists; the arrivals of one call
// (ties, a missing rank) and the tally fed call by call.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/job/arrival.h"
#include "engine/job/captured_call.h"
#include "engine/job/job.h"
#include "tests/engine/job/capture_writer.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;
using test::CaptureWriter;

constexpr std::uint64_t kSplit0 = (std::uint64_t(0 + 1) << 32) | 1;

std::string doubles(std::initializer_list<double> v) {
  std::string s(v.size() * 8, '\0');
  std::size_t i = 0;
  for (double d : v) std::memcpy(s.data() + 8 * i++, &d, 8);
  return s;
}

struct Capture {
  fs::path dir = fs::temp_directory_path() / ("collviz_call_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Capture() { fs::create_directories(dir); }
  ~Capture() { fs::remove_all(dir); }
  void write(int rank, const CaptureWriter& w) const {
    std::ofstream(dir / ("tap-node" + std::to_string(rank / 2) + "-" + std::to_string(1000 + rank) + ".cvtap"), std::ios::binary) << w.bytes();
  }
  Job read() const {
    auto j = job::read({dir.string()});
    EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
    return j.ok() ? std::move(*j) : Job{};
  }
};

// 4 ranks on 2 hosts: an allreduce #0 of MPI_COMM_WORLD (rank r enters at
// 1000 + 100 * r, rank 3 last), a bcast #0 of split(color=0) {0, 2}; rank 1
// never enters MPI_COMM_WORLD's #1 (the others do).
Capture fourRanks() {
  Capture cap;
  for (int r = 0; r < 4; ++r) {
    CaptureWriter w(r, 4, "node" + std::to_string(r / 2));
    w.comm(0, tap::kWorldId, tap::CommKind::world, {0, 1, 2, 3}, r, -1, 0, "MPI_COMM_WORLD");
    if (r % 2 == 0) w.comm(1, kSplit0, tap::CommKind::split, {0, 2}, r / 2, 0, tap::kWorldId);
    CaptureWriter::Call c;
    c.inElems = c.outElems = 4;
    c.in = doubles({double(r), 1.5, 2.5, -3.0});
    c.out = doubles({6, 6, 10, -12});
    c.enter = 1000 + 100 * std::uint64_t(r), c.exit = 5000;
    w.call(c);
    if (r != 1) {
      CaptureWriter::Call d = c;
      d.seq = 1, d.enter = 9000, d.exit = 0, d.out.clear();
      w.call(d);
    }
    if (r % 2 == 0) {
      CaptureWriter::Call b;
      b.comm = 1, b.func = tap::Func::bcast, b.root = 0, b.op = tap::ROp::none, b.dtype = tap::DType::int_, b.dtypeSize = 4;
      b.inElems = r == 0 ? 2 : 0, b.outElems = 2, b.in = r == 0 ? std::string("\x07\0\0\0\x08\0\0\0", 8) : "";
      b.out = std::string("\x07\0\0\0\x08\0\0\0", 8), b.enter = 7000 + std::uint64_t(r), b.exit = 8000;
      w.call(b);
    }
    cap.write(r, w);
  }
  return cap;
}

TEST(CapturedCall, MembersInOrderWithTimesAndBytes) {
  const Capture cap = fourRanks();
  const Job job = cap.read();
  auto c = capturedCallById(job, tap::kWorldId, 0);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->func, tap::Func::allreduce);
  EXPECT_EQ(c->dtype, tap::DType::double_);
  EXPECT_EQ(c->op, tap::ROp::sum);
  EXPECT_EQ(c->commName, "MPI_COMM_WORLD");
  EXPECT_EQ(c->hostsText(), "node0, node1");
  ASSERT_EQ(c->ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    const CapturedRank& m = c->ranks[std::size_t(r)];
    EXPECT_EQ(m.worldRank, r);
    EXPECT_TRUE(m.present && m.returned);
    EXPECT_EQ(m.tEnter, 1000u + 100u * unsigned(r));
    EXPECT_EQ(m.inElems, 4u);
    const std::string in = doubles({double(r), 1.5, 2.5, -3.0});
    EXPECT_EQ(std::string(m.in.begin(), m.in.end()), in);
    EXPECT_EQ(m.out.size(), 32u);
  }
  // The split's bcast: its two members, the root's input only.
  auto g = captureGroup(job, "split(color=0) of MPI_COMM_WORLD");
  ASSERT_TRUE(g) << g.error().message;
  auto b = capturedCall(job, *g, 0);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->commId, kSplit0);
  ASSERT_EQ(b->ranks.size(), 2u);
  EXPECT_EQ(b->ranks[1].worldRank, 2);
  EXPECT_EQ(b->ranks[0].in.size(), 8u);
  EXPECT_TRUE(b->ranks[1].in.empty());
  EXPECT_EQ(b->root, 0);
}

TEST(CapturedCall, AMemberWithoutARecordIsAbsent) {
  const Job job = fourRanks().read();
  auto c = capturedCallAt(job, "0x1:1");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->ranks[1].present);
  EXPECT_TRUE(c->ranks[0].present);
  EXPECT_FALSE(c->ranks[0].returned);
  EXPECT_TRUE(c->ranks[0].out.empty());
}

TEST(CapturedCall, ErrorsNameWhatExists) {
  const Job job = fourRanks().read();
  auto bad = capturedCallAt(job, "MPI_COMM_NOPE:0");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("no communicator MPI_COMM_NOPE: the capture has MPI_COMM_WORLD (0x1)"), std::string::npos)
      << bad.error().message;
  auto seq = capturedCallAt(job, "MPI_COMM_WORLD:7");
  ASSERT_FALSE(seq);
  EXPECT_NE(seq.error().message.find("MPI_COMM_WORLD (0x1) has no call 7: it has calls 0..1"), std::string::npos) << seq.error().message;
  auto shape = capturedCallAt(job, "MPI_COMM_WORLD");
  ASSERT_FALSE(shape);
  EXPECT_NE(shape.error().message.find("give COMM:SEQ"), std::string::npos);
  EXPECT_TRUE(capturedCallAt(job, "1:0"));  // the id's hex digits alone
  Job none;
  EXPECT_FALSE(capturedCall(none, 0, 0));
}

CapturedCall callOf(std::vector<std::pair<bool, std::uint64_t>> enters, std::uint64_t id = 1) {
  CapturedCall c;
  c.commId = id;
  for (std::size_t i = 0; i < enters.size(); ++i) {
    CapturedRank r;
    r.worldRank = int(10 + i), r.commRank = int(i), r.present = enters[i].first, r.tEnter = enters[i].second;
    c.ranks.push_back(r);
  }
  return c;
}

TEST(Arrival, EachRankRelativeToTheLast) {
  const Arrival a = arrival(callOf({{true, 100}, {true, 400}, {true, 250}}));
  EXPECT_EQ(a.last, std::vector<int>{1});
  EXPECT_EQ(a.waitNs, (std::vector<std::int64_t>{300, 0, 150}));
  EXPECT_EQ(a.lastEnterNs, 400u);
  const Arrival tie = arrival(callOf({{true, 400}, {false, 0}, {true, 400}}));
  EXPECT_EQ(tie.last, (std::vector<int>{0, 2}));
  EXPECT_EQ(tie.missing, 1);
  EXPECT_EQ(tie.waitNs[1], -1);
}

TEST(Arrival, TallyFedCallByCall) {
  StragglerTally t;
  for (int k = 0; k < 3; ++k) t.add(callOf({{true, 100}, {true, 500}, {true, 200}}));  // world rank 11 last
  t.add(callOf({{true, 900}, {true, 100}, {true, 100}}));                              // 10 last
  t.add(callOf({{true, 300}, {true, 300}, {true, 100}}));                              // 10 and 11 tie
  t.add(callOf({{true, 300}, {false, 0}, {true, 100}}));                               // 11 missing
  const CommTally* c = t.comm(1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->calls, 5);
  EXPECT_EQ(c->ties, 1);
  EXPECT_EQ(c->incomplete, 1);
  EXPECT_EQ(c->missing.at(11), 1);
  const auto top = c->top();
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].rank, 11);
  EXPECT_EQ(top[0].count, 4);
  EXPECT_DOUBLE_EQ(top[0].share, 0.8);
  EXPECT_EQ(top[0].waitedNs, 3 * 400 + 200);
  EXPECT_EQ(top[1].rank, 10);
  EXPECT_EQ(stragglerText(*c).english(),
            "arrived last most often: rank 11 in 4 of 5 calls (80%; the others waited 1.4 µs for it in all), rank 10 in 2 (40%); "
            "1 calls tied (each counted); 1 calls without every member's record not counted");
  EXPECT_EQ(t.comm(2), nullptr);
}

TEST(Arrival, TallyOfACapture) {
  const Job job = fourRanks().read();
  const CommTally t = tallyOf(job, job.groupIndex("0x1"));
  EXPECT_EQ(t.commId, tap::kWorldId);
  EXPECT_EQ(t.calls, 1);       // #0: rank 3 last
  EXPECT_EQ(t.incomplete, 1);  // #1: rank 1 never entered
  EXPECT_EQ(t.last.at(3), 1);
  EXPECT_EQ(t.missing.at(1), 1);
}

// A finished capture's verdict counts "outside MPI" to the capture's end
// (collviz watch's capture.json), and that file is the capture's own
// summary, not a file that is "not a job trace".
TEST(CapturedCall, AFinishedCapturesVerdictCountsToItsEnd) {
  Capture cap;
  for (int r = 0; r < 3; ++r) {
    CaptureWriter w(r, 3);
    w.comm(0, tap::kWorldId, tap::CommKind::world, {0, 1, 2}, r, -1, 0, "MPI_COMM_WORLD");
    CaptureWriter::Call c;
    c.enter = 1000, c.exit = 2000;
    w.call(c);
    if (r != 1) {  // rank 1 never comes back to MPI
      c.seq = 1, c.enter = 2100, c.exit = 0;
      w.call(c);
    }
    cap.write(r, w);
  }
  std::ofstream(cap.dir / "capture.json") << "{\n \"end\": \"1970-01-01T00:00:12.400Z\",\n \"hang_after_s\": 2.0\n}\n";
  const Job job = cap.read();
  EXPECT_EQ(job.endNs, std::int64_t(12400000000));
  for (const Note& n : job.notes) EXPECT_EQ(n.text.find("capture.json"), std::string::npos) << n.text;
  const Analysis a = analyse(job);
  EXPECT_NE(std::string(a.verdict).find("rank 1 has been outside MPI for 12.4 s since its MPI_Allreduce #0 of MPI_COMM_WORLD"), std::string::npos)
      << std::string(a.verdict);
}

}  // namespace
}  // namespace collviz::job
