// collviz export --job CAPTURE --call COMM:SEQ (app/export/call_export.cpp,
// app/view/call_figure): a call's grid. On a capture the real MPI tap made
// of tests/tap/tap_prog (4 ranks under mpirun through collviz watch; skipped,
// saying why, without mpirun or the tap): MPI_Alltoall #11's value cells are
// the program's values (rank r sends r*1000 + j to rank j), and the last
// arrival is outlined on the rank that entered last. On captures written
// here (capture_writer.h): a block the tap kept part of says "first 64 B of
// 128 B", one past the kept bytes "not kept"; a bad COMM and a bad SEQ are
// named with what exists, and `collviz job` lists what COMM:SEQ takes; the
// figure in 中文; a hostile communicator name stays text in the HTML.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <regex>

#include "app/view/call_figure.h"
#include "app/view/call_figure_parts.h"
#include "engine/job/captured_call.h"
#include "engine/job/job.h"
#include "tests/app/cli/cli_process.h"
#include "tests/engine/job/capture_writer.h"

namespace collviz::test {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path = fs::temp_directory_path() / ("collviz_call_export_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Dir() { fs::create_directories(path); }
  ~Dir() { fs::remove_all(path); }
};

// value cells: (world rank, side, element) -> data-value
std::map<std::tuple<int, std::string, int>, std::string> values(const std::string& svg) {
  std::map<std::tuple<int, std::string, int>, std::string> out;
  const std::regex re(R"re(class="value" data-rank="(\d+)" data-side="(in|out)" data-block="\d+" data-elem="(\d+)" data-value="([^"]*)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    out[{std::stoi((*it)[1]), (*it)[2], std::stoi((*it)[3])}] = (*it)[4];
  return out;
}

std::vector<int> ranksOf(const std::string& svg, const std::string& cls) {
  std::vector<int> out;
  const std::regex re("<rect class=\"" + cls + "\" data-rank=\"(\\d+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) out.push_back(std::stoi((*it)[1]));
  return out;
}

TEST(CallExport, ARealTapCapturesAlltoall) {
  const fs::path prog = fs::path(COLLVIZ_CLI).parent_path() / "tap_prog";
  const fs::path tap = fs::path(COLLVIZ_CLI).parent_path() / "libcollviz-tap-mpi.so";
  if (!fs::exists(prog) || !fs::exists(tap)) GTEST_SKIP() << "the MPI tap or tests/tap's tap_prog is not built (Open MPI not found at configure)";
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "no mpirun on PATH (apt-get install openmpi-bin)";
  Dir d;
  const std::string cap = (d.path / "cap").string();
  std::vector<std::string> args = {"watch", "--out", cap, "--", "mpirun", "--oversubscribe"};
  if (::geteuid() == 0) args.push_back("--allow-run-as-root");
  for (const char* a : {"-n", "4"}) args.push_back(a);
  args.push_back(prog.string());
  Cli watch("call_export_", args, 120s);
  ASSERT_EQ(watch.wait(), 0) << watch.err;
  const std::string svg = (d.path / "a.svg").string();
  Cli ex("call_export_", {"export", "--job", cap, "--call", "MPI_COMM_WORLD:11", "-o", svg});
  ASSERT_EQ(ex.wait(), 0) << ex.err;
  const std::string s = slurp(svg);
  EXPECT_NE(s.find("MPI_Alltoall #11 of MPI_COMM_WORLD (0x1)"), std::string::npos);
  const auto v = values(s);
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(v.at({r, "in", j}), std::to_string(r * 1000 + j)) << "rank " << r << " input " << j;
      EXPECT_EQ(v.at({r, "out", j}), std::to_string(j * 1000 + r)) << "rank " << r << " output " << j;
    }
  // The last to enter, from the capture's own times.
  auto job = job::read({cap});
  ASSERT_TRUE(job) << job.error().message;
  int last = -1;
  std::int64_t latest = -1;
  for (const job::Call& c : job->calls)
    if (c.group == job->groupIndex("0x1") && c.seq == 11 && c.started > latest) latest = c.started, last = c.rank;
  EXPECT_EQ(ranksOf(s, "last"), std::vector<int>{last});
}

// 4 ranks of an MPI_Allgather of 16 doubles each (rank r's element i is
// r + i / 8); the tap kept 64 B of every input (8 values) and 160 B of
// every output (block 0 whole, block 1 in part, blocks 2 and 3 not at all).
// Rank 2 enters last.
std::string writeAllgather(const fs::path& dir, const std::string& name = "MPI_COMM_WORLD") {
  fs::create_directories(dir);
  auto doubles = [](int from, int n, int rankOf) {
    std::string s;
    for (int i = from; i < from + n; ++i) {
      const double x = (rankOf >= 0 ? rankOf : i / 16) + double(i % 16) / 8;
      s.append(reinterpret_cast<const char*>(&x), 8);
    }
    return s;
  };
  for (int r = 0; r < 4; ++r) {
    CaptureWriter w(r, 4, "node" + std::to_string(r));
    w.comm(0, tap::kWorldId, tap::CommKind::world, {0, 1, 2, 3}, r, -1, 0, name);
    CaptureWriter::Call c;
    c.func = tap::Func::allgather, c.op = tap::ROp::none, c.inElems = 16, c.outElems = 64;
    c.in = doubles(0, 8, r), c.out = doubles(0, 20, -1);
    c.enter = r == 2 ? 5000 : 1000 + std::uint64_t(r), c.exit = 6000;
    w.call(c);
    std::ofstream(dir / ("tap-node" + std::to_string(r) + "-" + std::to_string(100 + r) + ".cvtap"), std::ios::binary) << w.bytes();
  }
  return dir.string();
}

TEST(CallExport, APartBlockSaysHowMuchWasKept) {
  Dir d;
  const std::string cap = writeAllgather(d.path / "cap");
  const std::string svg = (d.path / "g.svg").string();
  Cli ex("call_export_", {"export", "--job", cap, "--call", "0x1:0", "--trace", "1", "-o", svg});
  ASSERT_EQ(ex.wait(), 0) << ex.err;
  const std::string s = slurp(svg);
  EXPECT_NE(s.find("first 64 B of 128 B"), std::string::npos);  // input: 8 of 16 values
  EXPECT_NE(s.find("first 32 B of 128 B"), std::string::npos);  // output block 1: 4 of 16
  EXPECT_NE(s.find("not kept"), std::string::npos);             // output blocks 2, 3
  EXPECT_EQ(ranksOf(s, "last"), std::vector<int>{2});
  EXPECT_EQ(ranksOf(s, "highlight"), std::vector<int>{1});
  const auto v = values(s);
  EXPECT_EQ(v.at({3, "in", 0}), "3");
  EXPECT_EQ(v.at({3, "in", 4}), "3.5");
  EXPECT_EQ(v.at({0, "out", 17}), "1.125");  // block 1 (rank 1's), element 1
  EXPECT_EQ(v.count({0, "out", 20}), 0u);    // past the kept bytes
  // The same in 中文.
  const std::string zh = (d.path / "g_zh.svg").string();
  Cli exZh("call_export_", {"--lang", "zh", "export", "--job", cap, "--call", "0x1:0", "-o", zh});
  ASSERT_EQ(exZh.wait(), 0) << exZh.err;
  const std::string z = std::regex_replace(slurp(zh), std::regex("<tspan[^>]*>|</tspan>"), "");  // CJK runs set in their own font
  EXPECT_NE(z.find("128 B 中的前 64 B"), std::string::npos);
  EXPECT_NE(z.find("最后到达"), std::string::npos);
}

TEST(CallExport, ABadCommOrSeqIsNamedWithWhatExists) {
  Dir d;
  const std::string cap = writeAllgather(d.path / "cap");
  Cli comm("call_export_", {"export", "--job", cap, "--call", "MPI_COMM_NOPE:0", "-o", (d.path / "x.svg").string()});
  EXPECT_EQ(comm.wait(), 2);
  EXPECT_NE(comm.err.find("no communicator MPI_COMM_NOPE: the capture has MPI_COMM_WORLD (0x1)"), std::string::npos) << comm.err;
  Cli seq("call_export_", {"export", "--job", cap, "--call", "MPI_COMM_WORLD:9", "-o", (d.path / "x.svg").string()});
  EXPECT_EQ(seq.wait(), 2);
  EXPECT_NE(seq.err.find("MPI_COMM_WORLD (0x1) has no call 9: it has calls 0..0"), std::string::npos) << seq.err;
  Cli shape("call_export_", {"export", "--job", cap, "--call", "9", "-o", (d.path / "x.svg").string()});
  EXPECT_EQ(shape.wait(), 2);
  EXPECT_NE(shape.err.find("give COMM:SEQ"), std::string::npos) << shape.err;
  EXPECT_FALSE(fs::exists(d.path / "x.svg"));
  // collviz job lists what --call takes: the id, the name, the call numbers.
  Cli job("call_export_", {"job", cap});
  ASSERT_EQ(job.wait(), 0) << job.err;
  EXPECT_NE(job.out.find("0x1        MPI_COMM_WORLD"), std::string::npos) << job.out;
  EXPECT_NE(job.out.find("ranks 0–3 · 4 calls · seq 0..0"), std::string::npos) << job.out;
}

TEST(CallExport, AHostileNameStaysTextInTheHtml) {
  Dir d;
  const std::string cap = writeAllgather(d.path / "cap", "<script>alert(1)</script>");
  const std::string html = (d.path / "c.html").string();
  Cli ex("call_export_", {"export", "--job", cap, "--call", "0x1:0", "-o", html});
  ASSERT_EQ(ex.wait(), 0) << ex.err;
  const std::string h = slurp(html);
  EXPECT_EQ(h.find("<script>alert"), std::string::npos);
  EXPECT_NE(h.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(h.find("data-value=\"1.125\""), std::string::npos);  // the grid's values in the page
}

// Values decoded in the capture's datatypes, MPI's and NCCL's.
TEST(CallExport, ValuesInEveryDatatype) {
  auto value = [](tap::DType d, std::uint32_t size, std::uint64_t bits) {
    std::uint8_t b[8];
    std::memcpy(b, &bits, 8);
    return ui::capturedValue(d, size, b);
  };
  EXPECT_EQ(value(tap::DType::nccl_float16, 2, 0x3e00), "1.5");
  EXPECT_EQ(value(tap::DType::nccl_bfloat16, 2, 0xbfc0), "-1.5");
  EXPECT_EQ(value(tap::DType::int8, 1, 0xfd), "-3");
  EXPECT_EQ(value(tap::DType::unsigned_short, 2, 0xffff), "65535");
  EXPECT_EQ(value(tap::DType::two_int, 8, (std::uint64_t(2) << 32) | 7), "7|2");
  float f = 0.1f;
  std::uint32_t fb;
  std::memcpy(&fb, &f, 4);
  EXPECT_EQ(value(tap::DType::float_, 4, fb), "0.1");
  EXPECT_EQ(value(tap::DType::derived, 2, 0xbeef), "0xefbe");
  EXPECT_EQ(ui::byteSize(256), "256 B");
  EXPECT_EQ(ui::byteSize(4u << 20), "4 MiB");
  EXPECT_EQ(ui::byteSize(1536), "1.5 KiB");
}

// A reduced block is named by the call's op, as collviz's own ops are: an
// MPI_MAX all-reduce's output is "max", never Σ (LAMMPS' MPI_MAX allreduces
// were drawn as sums).
TEST(CallExport, AReducedBlockIsNamedByItsOp) {
  job::CapturedCall c;
  c.func = tap::Func::allreduce, c.dtype = tap::DType::double_, c.dtypeSize = 8;
  c.ranks.resize(2);
  for (auto& r : c.ranks) r.present = r.returned = true, r.inElems = r.outElems = 2;
  const std::pair<tap::ROp, const char*> cases[] = {{tap::ROp::sum, "Σ"}, {tap::ROp::max, "max"}, {tap::ROp::min, "min"},
                                                    {tap::ROp::prod, "Π"}, {tap::ROp::nccl_max, "max"}, {tap::ROp::band, "band"}};
  for (const auto& [op, label] : cases) {
    c.op = op;
    const auto side = ui::call_figure_parts::sideOf(c, 0, true);
    ASSERT_FALSE(side.blocks.empty());
    EXPECT_EQ(side.blocks[0].label.rfind(label, 0), 0u) << tap::ropName(op) << ": " << side.blocks[0].label;
  }
}

}  // namespace
}  // namespace collviz::test
