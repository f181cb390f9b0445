// What a hostile trace, folder or file name did to the reader (issue 55),
// each case small and generated here: control characters and bytes that
// are not UTF-8 never leave read() (break 1, 2), a pickle or a RAS JSON
// that would take many times its size in memory is refused within its
// bound (4), an INCOMPLETE RAS table is a finding even when no rank of it
// parses (8), and the paths: a FIFO, a device, a link loop said for what
// they are, dumps in subfolders read (with a depth bound), a path said once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/job/json.h"
#include "engine/job/plain.h"
#include "engine/job/readers.h"
#include "tests/engine/job/fr_writer.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;
using test::FrDump;
using test::FrEntry;

// A fresh folder, removed at the end.
struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("hostile_job_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  fs::path write(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

// Two ranks' dumps; the op names and the group's description as given.
FrDump dump(int rank, const std::string& op, const std::string& desc) {
  FrDump d;
  d.groups = {{"0", desc, {0, 1}}};
  FrEntry e;
  e.desc = desc;
  e.name = op;
  e.seq = 1, e.record = 0, e.state = "completed";
  d.entries.push_back(e);
  e.seq = 2, e.record = 1, e.state = rank == 0 ? "scheduled" : "completed";
  if (rank == 0) d.entries.push_back(e);
  d.status[0] = {rank == 0 ? 2 : 1, -1, 1};
  return d;
}

// Valid UTF-8 with no C0 control, DEL or C1 control: what a terminal, JSON and XML take.
::testing::AssertionResult safeText(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return ::testing::AssertionFailure() << "control byte " << int(c) << " in \"" << s << "\"";
    if (c >= 0x80) {
      const std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
      if (n == 0 || i + n > s.size()) return ::testing::AssertionFailure() << "a byte that is not UTF-8 in \"" << s << "\"";
      if (c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) return ::testing::AssertionFailure() << "a C1 control in \"" << s << "\"";
      i += n - 1;
    }
  }
  return ::testing::AssertionSuccess();
}

void expectAllSafe(const Job& j, const Analysis& a) {
  for (const std::string& n : j.names) EXPECT_TRUE(safeText(n));
  for (const Group& g : j.groups) {
    EXPECT_TRUE(safeText(g.id));
    EXPECT_TRUE(safeText(g.desc));
  }
  for (const Source& s : j.sources) {
    EXPECT_TRUE(safeText(s.path));
    for (const Note& n : s.notes) EXPECT_TRUE(safeText(n.text));
  }
  for (const Note& n : j.notes) EXPECT_TRUE(safeText(n.text));
  for (const Rank& r : j.ranks) EXPECT_TRUE(safeText(r.host));
  EXPECT_TRUE(safeText(a.verdict));
  for (const Finding& f : a.findings) EXPECT_TRUE(safeText(f.text));
}

// Break 1: ESC and BEL in a Flight Recorder profiling_name and a group's
// description (a terminal would retitle itself, an SVG would not parse).
TEST(HostileJob, ControlCharactersNeverLeaveTheReader) {
  const std::string op = "nccl:all_reduce\x1b]0;pwned\x07\x1b[31m\xc2\x9b" "2J";
  const std::string desc = "GROUP\x1b[2J\x7f\xef\xbf\xbe";
  TempDir t;
  for (int r : {0, 1}) t.write("_dump_" + std::to_string(r), test::pickleDump(dump(r, op, desc)));
  auto job = read({t.dir.string()});
  ASSERT_TRUE(job.ok()) << job.error().message;
  const Analysis a = analyse(*job);
  expectAllSafe(*job, a);
  bool escaped = false;  // the bytes are still told, as \xNN
  for (const std::string& n : job->names) escaped = escaped || n.find("all_reduce\\x1b]0;pwned\\x07\\x1b[31m\\xc2\\x9b") != std::string::npos;
  EXPECT_TRUE(escaped);
  ASSERT_FALSE(job->groups.empty());
  EXPECT_EQ(job->groups[0].desc, "GROUP [2J \\xef\\xbf\\xbe");  // the reader's own clean(): controls as spaces
  // One file's bytes (stdin, tests) the same.
  auto one = readBytes(test::pickleDump(dump(0, op, desc)), "x\x1b]0;t\x07_dump_0");
  ASSERT_TRUE(one.ok()) << one.error().message;
  expectAllSafe(*one, analyse(*one));
  // An error names the path safely too.
  auto bad = readBytes("not a trace", "x\x1b]0;t\x07");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(safeText(bad.error().message)) << bad.error().message;
}

// Break 2: a file name that is not UTF-8 (a folder copied from another
// system): read, its path escaped, the JSON document made.
TEST(HostileJob, AFileNameThatIsNotUtf8IsEscapedAndTheJsonMade) {
  TempDir t;
  t.write("\xff\xfe_dump_0", test::pickleDump(dump(0, "nccl:all_reduce", "default_pg")));
  t.write("_dump_1", test::pickleDump(dump(1, "nccl:all_reduce", "default_pg")));
  t.write("notes\xc3\x28.txt", "not a trace\n");
  auto job = read({t.dir.string()});
  ASSERT_TRUE(job.ok()) << job.error().message;
  const Analysis a = analyse(*job);
  expectAllSafe(*job, a);
  bool found = false;
  for (const Source& s : job->sources) found = found || s.path.find("\\xff\\xfe_dump_0") != std::string::npos;
  EXPECT_TRUE(found);
  std::string doc;
  EXPECT_NO_THROW(doc = toJson(*job, a, [](const Text& x) { return x.english(); }, true).dump());
  EXPECT_NE(doc.find("notes\\\\xc3(.txt"), std::string::npos) << doc.substr(0, 2000);
}

// Break 4: a pickle of many empty dicts takes far more than its bytes (48
// times in a tree of nodes): refused at its bound, early, naming it.
TEST(HostileJob, APickleBombIsRefusedWithinItsMemoryBound) {
  const std::size_t n = 3000000;  // 3 MB: its bound is 8 x 3 MB + 16 MiB
  const std::string bomb = std::string("\x80\x02](", 4) + std::string(n, '}') + "e.";
  Plain p;
  const Status st = readPickle(bomb, p);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("would take more than 38 MiB of memory to read (8 times its size plus 16 MiB"), std::string::npos) << st.message();
  EXPECT_LE(p.used, plainBudget(bomb.size()) + 4096);
  // The same as JSON ([{}, {}, ...]), and a list of lists.
  std::string json = "[";
  for (std::size_t i = 0; i < n / 3; ++i) json += "{},";
  json += "{}]";
  const Status js = readJsonPlain(json, p);
  ASSERT_FALSE(js.ok());
  EXPECT_NE(js.message().find("would take more than"), std::string::npos) << js.message();
  // A folder of such files: each refused, named once, nothing read.
  TempDir t;
  t.write("_dump_0", bomb);
  t.write("_dump_1", bomb);
  auto job = read({t.dir.string()});
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.error().message.find("_dump_0: would take more than"), std::string::npos) << job.error().message;
}

// What real dumps take stays well inside the bound (the bound refuses
// bombs, never a dump): the fixtures of each protocol and a dump written as
// torch writes it (the real dumps of ../shared/data take 3 to 5.4 times
// their bytes; fr_writer's, its lists not memoized, 7.1).
TEST(HostileJob, RealDumpsStayWellInsideTheirBound) {
  std::vector<std::string> files;
  for (int v : {2, 3, 4, 5}) {
    std::ifstream f(std::string(COLLVIZ_JOB_FIXTURES) + "/protocol" + std::to_string(v) + ".pkl", std::ios::binary);
    files.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  FrDump d = dump(0, "nccl:all_reduce", "default_pg");
  for (int k = 0; k < 2000; ++k) {
    FrEntry e = d.entries[0];
    e.seq = 3 + k, e.record = 2 + k;
    d.entries.push_back(e);
  }
  files.push_back(test::pickleDump(d));
  for (const std::string& bytes : files) {
    ASSERT_FALSE(bytes.empty());
    Plain p;
    ASSERT_TRUE(readPickle(bytes, p).ok());
    // The fixtures (torch's own pickles) within 6 times, the written dump (no memo for its lists) within 8.
    EXPECT_LE(p.used, bytes.size() * (&bytes == &files.back() ? kPlainFactor : 6)) << bytes.size() << " bytes took " << p.used;
  }
}

// Break 4: a RAS JSON status of many small ranks (nlohmann's DOM: about 9
// times its bytes) is refused from a count made before any DOM is built.
TEST(HostileJob, AHugeRasJsonIsRefusedBeforeItsDomIsBuilt) {
  std::string doc = R"({"nccl_version":"2.27.3","communicators":[{"hash":"0x1","size":1000000,"ranks":[)";
  for (int r = 0; r < 150000; ++r)
    doc += (r ? "," : "") + std::string(R"({"rank":)") + std::to_string(r) +
           R"(,"host":"h","pid":1,"cuda_dev":0,"status":{"async_error":0,"abort_flag":false},"collective_counts":{"AllReduce":5}})";
  doc += "]}]}";
  EXPECT_FALSE(jsonDomFits(doc, plainBudget(doc.size())));
  auto job = readBytes(doc, "ras.json");
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.error().message.find("ras.json: would take more than"), std::string::npos) << job.error().message;
  // A RAS status of a real size is read.
  EXPECT_TRUE(jsonDomFits(R"({"nccl_version":"2.27.3","communicators":[]})", plainBudget(40)));
}

// Break 4: one line of an Inspector file (a record is a few KB) that would
// take many times its bytes as a DOM is skipped, counted, before it is built.
TEST(HostileJob, AHugeJsonLineIsSkippedBeforeItsDomIsBuilt) {
  std::ifstream f(std::string(COLLVIZ_JOB_FIXTURES) + "/inspector_p2p_verbose.jsonl");
  std::string record;
  std::getline(f, record);
  ASSERT_FALSE(record.empty());
  std::string huge = R"({"header":{"id":"0x1","rank":0,"n_ranks":2},"coll_perf":{"coll":"AllReduce","coll_sn":1},"junk":[)";
  for (int i = 0; i < 1500000; ++i) huge += "0,";
  huge += "0]}";
  auto job = readBytes(record + "\n" + huge + "\n", "inspector.jsonl");
  ASSERT_TRUE(job.ok()) << job.error().message;
  bool noted = false;
  for (const Note& n : job->sources[0].notes) noted = noted || std::string(n.text).find("a line whose values would take more than") != std::string::npos;
  EXPECT_TRUE(noted);
}

// Break 8: RAS's table says INCOMPLETE and its error lines name a rank and
// a process that do not parse: still a finding, never "nothing wrong found".
TEST(HostileJob, AnIncompleteRasTableIsAFindingWhenNoRankOfItParses) {
  const std::string report =
      "Communicators... (0.002s)\n=============\n\n"
      "Group     Comms      Nodes     Ranks     Ranks     Ranks   Status  Errors\n"
      "    #  in group   per comm  per node  per comm  in group\n"
      "    0         1          2       3-4         8         7  RUNNING  INCOMPLETE\n\n"
      "Errors\n======\n\n"
      "INCOMPLETE\n  Missing communicator data from 1 job process\n  Process 37x on node node1 managing GPU 3\n\n"
      "#0-0 (1bdb83b038775869) INCOMPLETE\n  Missing communicator data from 1 rank\n  Rank seven -- GPU 3 managed by process 3748990 on node node1\n";
  for (const std::string& text : {report, std::string(report).replace(report.find("#0-0 (1bdb83b038775869)"), 23, "#0-0")}) {
    auto job = readBytes(text, "ras.txt");
    ASSERT_TRUE(job.ok()) << job.error().message;
    const Analysis a = analyse(*job);
    EXPECT_EQ(std::string(a.verdict).find("nothing wrong"), std::string::npos) << a.verdict;
    bool ras = false;
    for (const Finding& f : a.findings) ras = ras || (f.kind == FindingKind::ras && std::string(f.text).find("INCOMPLETE") != std::string::npos);
    EXPECT_TRUE(ras) << a.verdict;
  }
}

// Break 10: what a path is, said; dumps in subfolders read, a depth bound;
// a refused file's path said once.
TEST(HostileJob, PathsThatAreNotFilesAreSaidForWhatTheyAre) {
  TempDir t;
  const fs::path fifo = t.dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto f = read({fifo.string()});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message, fifo.string() + ": not a regular file (a FIFO): not read");
  auto dev = read({"/dev/null"});
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.error().message, "/dev/null: not a regular file (a device): not read");
  fs::create_symlink(t.dir / "b", t.dir / "a");
  fs::create_symlink(t.dir / "a", t.dir / "b");
  auto loop = read({(t.dir / "a").string()});
  ASSERT_FALSE(loop.ok());
  EXPECT_EQ(loop.error().message, (t.dir / "a").string() + ": a symbolic-link loop: not read");
  auto gone = read({(t.dir / "none").string()});
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().message, (t.dir / "none").string() + ": no such file or folder");
}

TEST(HostileJob, DumpsInSubfoldersAreReadToADepth) {
  TempDir t;
  t.write("node0/_dump_0", test::pickleDump(dump(0, "nccl:all_reduce", "default_pg")));
  t.write("node1/_dump_1", test::pickleDump(dump(1, "nccl:all_reduce", "default_pg")));
  auto job = read({t.dir.string()});
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_EQ(job->sources.size(), 2u);
  EXPECT_EQ(job->ranks.size(), 2u);
  TempDir deep;
  deep.write("a/b/c/d/_dump_0", test::pickleDump(dump(0, "nccl:all_reduce", "default_pg")));
  auto none = read({deep.dir.string()});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, deep.dir.string() + ": no file in the folder or its subfolders (3 levels down)");
  deep.write("a/b/c/_dump_0", test::pickleDump(dump(0, "nccl:all_reduce", "default_pg")));  // 3 levels: read
  EXPECT_TRUE(read({deep.dir.string()}).ok());
}

TEST(HostileJob, ARefusedFilesPathIsSaidOnce) {
  TempDir t;
  const fs::path big = t.dir / "x.json";
  { std::ofstream(big) << "{"; }
  fs::resize_file(big, std::uintmax_t(kMaxFileBytes) + (std::uintmax_t(1) << 20));  // sparse: no disk
  auto job = read({big.string()});
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.error().message, big.string() + ": 513 MiB, larger than the 512 MiB read from one file: not read");
}

}  // namespace
}  // namespace collviz::job
