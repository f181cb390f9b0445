// The restricted pickle reader (engine/job/pickle.cpp) and bad input:
// Python's own pickles of plain data in protocols 2 to 5 (fixtures/
// protocolN.pkl, pickle.dumps of a dump-shaped dict: FRAME, MEMOIZE,
// SHORT_BINUNICODE, LONG1 of 2**70, a 4-tuple, frames) read back; pickles
// that would run code (pickle.dumps of an object whose __reduce__ returns
// (os.system, ('touch ...',)), in protocols 0, 2, 4 and 5, their bytes
// below) are refused with the opcode named and nothing runs; sets and bytes
// are refused; truncated, cyclic, deep and huge input ends in a clear
// error or a counted note in bounded time; 10 000 ranks read.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "engine/job/job.h"
#include "engine/job/plain.h"
#include "tests/engine/job/fr_writer.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// pickle.dumps(Evil(), protocol=N) where Evil.__reduce__ returns
// (os.system, ('touch /tmp/collviz_pickle_ran',)): GLOBAL posix system (or
// STACK_GLOBAL), the argument, REDUCE.
const std::string kEvil0(
    "\x63\x70\x6f\x73\x69\x78\x0a\x73\x79\x73\x74\x65\x6d\x0a\x70\x30\x0a\x28\x56\x74\x6f\x75\x63\x68\x20\x2f\x74\x6d\x70\x2f\x63\x6f\x6c"
    "\x6c\x76\x69\x7a\x5f\x70\x69\x63\x6b\x6c\x65\x5f\x72\x61\x6e\x0a\x70\x31\x0a\x74\x70\x32\x0a\x52\x70\x33\x0a\x2e", 61);
const std::string kEvil2(
    "\x80\x02\x63\x70\x6f\x73\x69\x78\x0a\x73\x79\x73\x74\x65\x6d\x0a\x71\x00\x58\x1d\x00\x00\x00\x74\x6f\x75\x63\x68\x20\x2f\x74\x6d\x70"
    "\x2f\x63\x6f\x6c\x6c\x76\x69\x7a\x5f\x70\x69\x63\x6b\x6c\x65\x5f\x72\x61\x6e\x71\x01\x85\x71\x02\x52\x71\x03\x2e", 61);
const std::string kEvil4(
    "\x80\x04\x95\x38\x00\x00\x00\x00\x00\x00\x00\x8c\x05\x70\x6f\x73\x69\x78\x94\x8c\x06\x73\x79\x73\x74\x65\x6d\x94\x93\x94\x8c\x1d\x74"
    "\x6f\x75\x63\x68\x20\x2f\x74\x6d\x70\x2f\x63\x6f\x6c\x6c\x76\x69\x7a\x5f\x70\x69\x63\x6b\x6c\x65\x5f\x72\x61\x6e\x94\x85\x94\x52\x94\x2e", 67);
const std::string kEvil5 = std::string("\x80\x05", 2) + kEvil4.substr(2);
const std::string kRan = "/tmp/collviz_pickle_ran";

TEST(Pickle, PythonsPlainDataInProtocols2To5ReadsBack) {
  for (int p = 2; p <= 5; ++p) {
    const std::string bytes = slurp(fs::path(COLLVIZ_JOB_FIXTURES) / ("protocol" + std::to_string(p) + ".pkl"));
    ASSERT_FALSE(bytes.empty()) << p;
    auto plain = readPickle(bytes);
    ASSERT_TRUE(plain) << p << ": " << plain.error().message;
    std::uint32_t entries, v;
    ASSERT_TRUE(plain->find(plain->root, "entries", entries));
    const std::uint32_t e = plain->children(entries).at(0);
    ASSERT_TRUE(plain->find(e, "big", v));
    EXPECT_EQ((*plain)[v].kind, Plain::Kind::big) << p;  // 2**70: kept as a big integer, not read
    std::int64_t x;
    ASSERT_TRUE(plain->find(e, "neg", v) && plain->integer(v, x));
    EXPECT_EQ(x, -5);
    ASSERT_TRUE(plain->find(e, "t", v));
    EXPECT_EQ(plain->children(v).size(), 4u);
    EXPECT_EQ((*plain)[v].kind, Plain::Kind::tuple);
    double d;
    ASSERT_TRUE(plain->find(e, "duration_ms", v) && plain->real(v, d));
    EXPECT_DOUBLE_EQ(d, 1.5);
    // And as a dump: rank 1 (its one-rank group), format 2.10, comm_lib_version.
    auto job = readBytes(bytes, "protocol" + std::to_string(p) + ".pkl");
    ASSERT_TRUE(job) << job.error().message;
    EXPECT_EQ(job->sources[0].rank, 1);
    EXPECT_EQ(job->sources[0].version, "2.10");
    EXPECT_EQ(job->sources[0].library, "2.28.3");
    ASSERT_EQ(job->calls.size(), 1u);
    EXPECT_EQ(job->calls[0].state, State::started);
    EXPECT_EQ(job->calls[0].started, 1758610505939751900);
    EXPECT_FLOAT_EQ(job->calls[0].durationMs, 1.5f);
    EXPECT_EQ(job->str(job->calls[0].inShape), "4x5");
  }
}

TEST(Pickle, APickleThatWouldRunCodeIsRefusedAndNothingRuns) {
  fs::remove(kRan);
  const struct {
    const std::string* bytes;
    const char* op;
  } cases[] = {{&kEvil0, "GLOBAL (0x63) at byte 0"}, {&kEvil2, "GLOBAL (0x63) at byte 2"},
               {&kEvil4, "STACK_GLOBAL (0x93) at byte 28"}, {&kEvil5, "STACK_GLOBAL (0x93) at byte 28"}};
  for (const auto& c : cases) {
    auto job = readBytes(*c.bytes, "evil.pkl");
    ASSERT_FALSE(job);
    EXPECT_NE(job.error().message.find(std::string("refused: pickle opcode ") + c.op), std::string::npos) << job.error().message;
    EXPECT_NE(job.error().message.find("nothing is ever run"), std::string::npos) << job.error().message;
  }
  // The same with the GLOBAL skipped: REDUCE itself is refused.
  const std::string reduce = std::string("\x80\x02", 2) + "N)R.";
  auto r = readPickle(reduce);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("REDUCE (0x52) at byte 4"), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(kRan)) << "a pickle ran code";
}

TEST(Pickle, EveryOtherOpcodeIsRefusedByName) {
  const std::pair<std::string, const char*> cases[] = {
      {"\x80\x02}b.", "BUILD"},
      {"\x80\x02(iposix\nsystem\n.", "INST"},
      {"\x80\x02(o.", "OBJ"},
      {"\x80\x02)\x81.", "NEWOBJ"},
      {"\x80\x04\x8f\x94(K\x01\x90.", "EMPTY_SET"},        // pickle.dumps({1}): a set
      {"\x80\x04\x43\x02\x61\x62\x94.", "SHORT_BINBYTES"},  // pickle.dumps(b'ab')
      {"\x80\x02P1\n.", "PERSID"},
      {"\x80\x02\x82\x01.", "EXT1"},
  };
  for (const auto& [bytes, name] : cases) {
    auto r = readPickle(bytes);
    ASSERT_FALSE(r) << name;
    EXPECT_NE(r.error().message.find(std::string("refused: pickle opcode ") + name), std::string::npos) << r.error().message;
  }
  auto junk = readPickle("\x80\x02\xff.");
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().message.find("byte 0xff at offset 2 is not a pickle opcode"), std::string::npos);
  auto proto = readPickle("\x80\x07N.");
  ASSERT_FALSE(proto);
  EXPECT_NE(proto.error().message.find("pickle protocol 7: only protocols 2 to 5 are read"), std::string::npos);
}

// Every bytes opcode, where a dump has a string: {"version": <bytes>}. A
// reader that took one for a string would read these as a dump's version.
// BINBYTES: pickle.dumps({'version': b'a' * 256}, 3) (256 bytes and more
// leave SHORT_BINBYTES); BINBYTES8 (over 4 GiB in Python's own pickles) and
// BYTEARRAY8 (pickle.dumps(bytearray(...), 5)) at a length Python would not
// choose, which a reader must refuse all the same.
TEST(Pickle, EveryBytesOpcodeIsRefusedNotReadAsAString) {
  auto le = [](std::uint64_t v, int n) {
    std::string s;
    for (int k = 0; k < n; ++k) s += char((v >> (8 * k)) & 255);
    return s;
  };
  const std::string head = std::string("\x80\x03}q\x00X\x07\x00\x00\x00versionq\x01", 19);
  const std::string body(256, 'a');
  const struct {
    std::string bytes;
    const char* name;
  } cases[] = {
      {head + "B" + le(256, 4) + body + "q\x02s.", "BINBYTES (0x42) at byte 19"},
      {head + "\x8e" + le(256, 8) + body + "q\x02s.", "BINBYTES8 (0x8e) at byte 19"},
      {head + "\x96" + le(256, 8) + body + "q\x02s.", "BYTEARRAY8 (0x96) at byte 19"},
      {head + "C" + le(2, 1) + "abq\x02s.", "SHORT_BINBYTES (0x43) at byte 19"},
  };
  for (const auto& c : cases) {
    auto r = readPickle(c.bytes);
    ASSERT_FALSE(r) << c.name << " was read as plain data";
    EXPECT_NE(r.error().message.find(std::string("refused: pickle opcode ") + c.name), std::string::npos) << r.error().message;
    auto job = readBytes(c.bytes, "_dump_0");
    EXPECT_FALSE(job) << c.name << ": a dump read with bytes for its version";
  }
  // The head itself is well formed: a string there is read.
  auto ok = readPickle(head + "X" + le(3, 4) + "2.9q\x02s.");
  ASSERT_TRUE(ok) << ok.error().message;
}

TEST(Pickle, TruncatedBrokenAndCyclicInputEndsClearly) {
  const std::string dump = test::pickleDump([] {
    test::FrDump d;
    d.groups = {{"0", "default_pg", {0, 1}}, {"9", "SOLO", {1}}};
    d.entries.resize(3);
    return d;
  }());
  for (std::size_t cut : {std::size_t(1), std::size_t(2), dump.size() / 2, dump.size() - 1}) {
    auto r = readBytes(dump.substr(0, cut), "_dump_1");
    ASSERT_FALSE(r) << cut;
    EXPECT_NE(r.error().message.find("truncated: the pickle ends at byte " + std::to_string(cut) + " before its STOP"), std::string::npos)
        << cut << ": " << r.error().message;
  }
  auto getUnset = readPickle("\x80\x02h\x05.");
  ASSERT_FALSE(getUnset);
  EXPECT_NE(getUnset.error().message.find("memo index 5 at byte 2 was never set"), std::string::npos);
  static const char kFar[] = "\x80\x02Nr\x00\x00\x00\x7f.";
  auto far = readPickle(std::string(kFar, sizeof kFar - 1));  // LONG_BINPUT 2**31: not a 16 GiB memo
  ASSERT_FALSE(far);
  EXPECT_NE(far.error().message.find("is far past the 0 values kept"), std::string::npos) << far.error().message;
  // A list that holds itself, as a dump's "entries": read, the entry that is not a dict counted.
  static const char kCyclic[] = "\x80\x02}(X\x07\x00\x00\x00versionX\x03\x00\x00\x00" "2.9X\x07\x00\x00\x00" "entries]q\x00h\x00\x61u.";
  const std::string cyclic(kCyclic, sizeof kCyclic - 1);
  auto c = readBytes(cyclic, "x/_dump_0");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_FALSE(c->sources[0].notes.empty());
  EXPECT_EQ(std::string(c->sources[0].notes[0].text), "an entry that is not a dict: skipped");
  // JSON nested past the bound.
  auto deep = readJsonPlain(std::string(100000, '[') + std::string(100000, ']'));
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message.find("nested deeper than 64"), std::string::npos);
}

TEST(Pickle, TenThousandRanksReadInBoundedTime) {
  std::vector<int> all(10000);
  for (int r = 0; r < 10000; ++r) all[std::size_t(r)] = r;
  test::FrDump d;
  d.groups = {{"0", "default_pg", all}, {"9", "SOLO", {9999}}};
  d.status[0] = {3, -1, 2};
  test::FrEntry e;
  e.seq = 3, e.state = "scheduled";
  d.entries.push_back(e);
  const auto t0 = std::chrono::steady_clock::now();
  auto job = readBytes(test::pickleDump(d), "_dump_9999");
  ASSERT_TRUE(job) << job.error().message;
  const Analysis a = analyse(*job);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);  // a bound, not a speed goal: seconds, not minutes
  EXPECT_EQ(job->worldSize, 10000);
  EXPECT_EQ(a.missingDumps.size(), 9999u);
  EXPECT_EQ(std::string(a.verdict),
            "rank 9999 waits in all_reduce #3 of default_pg (0); no dump of ranks 0–9998: whether they entered is not known");
}

TEST(Pickle, AFileLargerThanTheBoundIsRefusedNamed) {
  const fs::path f = fs::temp_directory_path() / ("collviz_job_big_" + std::to_string(::getpid()));
  {
    std::ofstream out(f, std::ios::binary);
    out << "\x80\x02";
    out.seekp(kMaxFileBytes + 10);  // sparse: 512 MiB on paper, nothing on disk
    out << '.';
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto job = read({f.string()});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fs::remove(f);
  ASSERT_FALSE(job);
  EXPECT_NE(job.error().message.find("513 MiB, larger than the 512 MiB read from one file: not read"), std::string::npos) << job.error().message;
  EXPECT_LT(s, 1.0);  // refused from its size, unread
}

}  // namespace
}  // namespace collviz::job
