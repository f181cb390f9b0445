// NCCL's profiler plugin's records in a capture (engine/job/capture.cpp,
// issue 59): each joined to its call by communicator id, function and
// NCCL's per-function number, which skips calls of count 0 (NCCL discards
// them), and inside a group by count (NCCL numbers a group's collectives
// as it schedules them, by size); the call then carries NCCL's algorithm, protocol, channels and the
// kernel's duration. Records that match no call are counted in a note, and
// the tap's word on the plugin (another plugin named, none, NCCL too old)
// is said as a note of the file.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/job/job.h"
#include "tests/engine/job/capture_writer.h"

namespace collviz::job {
namespace {

using test::CaptureWriter;
using tap::Func;

constexpr std::uint64_t kHash = 0x9e3779b97f4a7c15ull;

std::string profile(Func f, std::uint64_t seq, std::uint64_t count, const char* algo, const char* proto, int channels,
                    std::uint64_t gpuNs, std::uint64_t hostStart, std::uint64_t hostEnd, std::uint64_t comm = kHash) {
  tap::ProfileRecord r{};
  r.head = {std::uint8_t(tap::RecordType::profile), std::uint8_t(f), 0, sizeof r};
  r.comm_id = comm;
  r.seq = seq;
  r.count = count;
  std::strncpy(r.algo, algo, sizeof r.algo - 1);
  std::strncpy(r.proto, proto, sizeof r.proto - 1);
  r.channels = std::uint8_t(channels);
  r.channels_done = std::uint8_t(channels);
  r.kernel_start = hostStart;
  r.kernel_gpu_ns = gpuNs;
  r.kernel_end = hostEnd;
  std::string b(sizeof r, '\0');
  std::memcpy(b.data(), static_cast<const void*>(&r), sizeof r);
  return b;
}

std::string note(tap::NoteCode code, const std::string& text) {
  tap::NoteRecord n{};
  n.head = {std::uint8_t(tap::RecordType::note), std::uint8_t(code), 0, std::uint32_t(sizeof n + tap::pad8(std::uint32_t(text.size())))};
  n.len = std::uint32_t(text.size());
  std::string b(n.head.size, '\0');
  std::memcpy(b.data(), &n, sizeof n);
  std::memcpy(b.data() + sizeof n, text.data(), text.size());
  return b;
}

CaptureWriter::Call ncclCall(Func f, std::uint32_t seq, std::uint32_t elems) {
  CaptureWriter::Call c;
  c.func = f, c.seq = seq, c.inElems = c.outElems = elems;
  c.dtype = tap::DType::nccl_float32, c.dtypeSize = 4, c.op = tap::ROp::nccl_sum;
  return c;
}

std::string notes(const Job& j) {
  std::string s;
  for (const Note& n : j.sources[0].notes) s += std::string(n.text) + "\n";
  return s;
}

TEST(CaptureProfile, EachProfilerRecordFillsItsCallByNcclsOwnNumbering) {
  CaptureWriter w(1, 2);
  w.comm(0, kHash, tap::CommKind::nccl, {0, 1}, 1);
  // The tap numbers every call of the communicator; NCCL numbers per function and skips count 0.
  w.call(ncclCall(Func::nccl_allreduce, 0, 64));       // AllReduce #0
  w.call(ncclCall(Func::nccl_broadcast, 1, 65536));    // Broadcast #0
  w.call(ncclCall(Func::nccl_allreduce, 2, 0));        // count 0: no number
  w.call(ncclCall(Func::nccl_allreduce, 3, 262144));   // AllReduce #1
  w.raw(profile(Func::nccl_allreduce, 0, 64, "TREE", "LL", 1, 0, 5000, 7000));  // no GPU time: the host's
  w.raw(profile(Func::nccl_broadcast, 0, 65536, "RING", "LL128", 4, 5000000, 0, 0));  // kernel not finished (a channel's GPU time so far)
  w.raw(profile(Func::nccl_allreduce, 1, 262144, "RING", "SIMPLE", 4, 3000000, 1, 9));
  auto job = readBytes(w.bytes(), "tap-node1-1001.cvtap");
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->calls.size(), 4u);
  auto bySeq = [&](std::int64_t seq) -> const Call& {
    for (const Call& c : job->calls)
      if (c.seq == seq) return c;
    ADD_FAILURE() << "no call " << seq;
    return job->calls[0];
  };
  EXPECT_EQ(job->str(bySeq(0).algo), "TREE");
  EXPECT_EQ(job->str(bySeq(0).proto), "LL");
  EXPECT_EQ(bySeq(0).channels, 1);
  EXPECT_FLOAT_EQ(bySeq(0).durationMs, 0.002f);
  EXPECT_EQ(job->str(bySeq(1).algo), "RING");
  EXPECT_EQ(job->str(bySeq(1).proto), "LL128");
  EXPECT_EQ(bySeq(1).channels, 4);
  EXPECT_FLOAT_EQ(bySeq(1).durationMs, 0.001f) << "its kernel not finished: the call's own time, not its channels' GPU time so far";
  EXPECT_EQ(job->str(bySeq(2).algo), "") << "a call of count 0 has no record of NCCL's";
  EXPECT_EQ(bySeq(2).channels, -1);
  EXPECT_EQ(job->str(bySeq(3).algo), "RING");
  EXPECT_EQ(job->str(bySeq(3).proto), "SIMPLE");
  EXPECT_FLOAT_EQ(bySeq(3).durationMs, 3.0f) << "the GPU's own timer first";
  EXPECT_EQ(notes(*job), "");
}

// Inside a group NCCL numbers its collectives as it schedules them, roughly
// by size, descending: the counts put each record on its own call.
TEST(CaptureProfile, AGroupNumberedBySizeStillJoinsEachRecordToItsCall) {
  CaptureWriter w(0, 2);
  w.comm(0, kHash, tap::CommKind::nccl, {0, 1}, 0);
  w.call(ncclCall(Func::nccl_allgather, 0, 16));       // group: the small one first
  w.call(ncclCall(Func::nccl_allgather, 1, 1 << 20));  // then the big one
  w.call(ncclCall(Func::nccl_alltoall, 2, 8));         // all-to-all: 4 elements a peer
  w.raw(profile(Func::nccl_allgather, 0, 1 << 20, "RING", "SIMPLE", 8, 0, 0, 0));  // NCCL: the big one is #0
  w.raw(profile(Func::nccl_allgather, 1, 16, "RING", "LL", 1, 0, 0, 0));
  w.raw(profile(Func::nccl_alltoall, 0, 4, "RING", "SIMPLE", 2, 0, 0, 0));
  auto job = readBytes(w.bytes(), "tap-node1-1000.cvtap");
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->calls.size(), 3u);
  for (const Call& c : job->calls) {
    if (c.seq == 0) EXPECT_EQ(job->str(c.proto), "LL") << "the small all-gather";
    if (c.seq == 1) EXPECT_EQ(job->str(c.proto), "SIMPLE") << "the big all-gather";
    if (c.seq == 2) EXPECT_EQ(c.channels, 2) << "a peer's share is all-to-all's count";
  }
  EXPECT_EQ(notes(*job), "");
}

TEST(CaptureProfile, RecordsOfNoCallAreCountedAndTheTapsWordOnThePluginIsSaid) {
  CaptureWriter w(0, 2);
  w.comm(0, kHash, tap::CommKind::nccl, {0, 1}, 0);
  w.call(ncclCall(Func::nccl_allreduce, 0, 64));
  w.raw(profile(Func::nccl_allreduce, 0, 64, "RING", "LL", 1, 0, 0, 0, kHash + 1));  // another communicator
  w.raw(profile(Func::nccl_allgather, 0, 64, "RING", "LL", 1, 0, 0, 0));            // no such call
  w.raw(profile(Func::nccl_allreduce, 0, 99, "RING", "LL", 1, 0, 0, 0));            // no call of that count
  w.raw(note(tap::NoteCode::nccl_profiler, "other /opt/lib/libnccl-profiler-inspector.so"));
  w.raw(note(tap::NoteCode::nccl_profiler, "old 22703"));
  auto job = readBytes(w.bytes(), "tap-node1-1000.cvtap");
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->calls.size(), 1u);
  EXPECT_EQ(job->str(job->calls[0].algo), "");
  const std::string n = notes(*job);
  EXPECT_NE(n.find("3 records of NCCL's profiler plugin match no call of the capture"), std::string::npos) << n;
  EXPECT_NE(n.find("NCCL_PROFILER_PLUGIN names another profiler plugin (/opt/lib/libnccl-profiler-inspector.so): the tap "
                   "works without its own"),
            std::string::npos)
      << n;
  EXPECT_NE(n.find("NCCL 2.27.3 is older than 2.28: the tap's profiler plugin is absent"), std::string::npos) << n;
}

}  // namespace
}  // namespace collviz::job
