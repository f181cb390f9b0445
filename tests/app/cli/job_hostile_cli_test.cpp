// collviz job and export --job given hostile input (issue 55): ESC and BEL
// in a dump never reach the terminal, the SVG stays XML (break 1); a file
// name that is not UTF-8 gives a JSON document (2); out of memory in any
// reading thread is exit 1 with job's own words (3); stdin is read in
// blocks and stops at the cap, its memory near the cap (9); --window with
// --json is refused (10).
#include <sys/resource.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_process.h"
#include "tests/engine/job/fr_writer.h"

namespace collviz::test {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path dir;
  explicit Dir(const std::string& name) : dir(fs::temp_directory_path() / (name + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// Two ranks; rank 0 waits in all_reduce #2, which rank 1 never entered.
void writeTwoRanks(const fs::path& dir, const std::string& op, const std::string& desc, const std::string& name0 = "_dump_0") {
  for (int r : {0, 1}) {
    FrDump d;
    d.groups = {{"0", desc, {0, 1}}};
    FrEntry e;
    e.desc = desc, e.name = op, e.seq = 1, e.record = 0;
    d.entries.push_back(e);
    if (r == 0) {
      e.seq = 2, e.record = 1, e.state = "scheduled";
      d.entries.push_back(e);
    }
    std::ofstream(dir / (r == 0 ? name0 : "_dump_1"), std::ios::binary) << pickleDump(d);
  }
}

// The bytes a terminal would obey or XML refuses: C0 controls (but tab,
// newline and return where `text`), DEL, C1 controls.
std::string controls(const std::string& s, bool text) {
  std::string found;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool bad = (c < 0x20 && !(text && (c == '\t' || c == '\n' || c == '\r'))) || c == 0x7f ||
                     (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xa0);
    if (bad) found += std::to_string(int(c)) + "@" + std::to_string(i) + " ";
  }
  return found;
}

TEST(JobHostileCli, NoControlCharacterReachesTheTerminalOrTheSvg) {
  Dir d("job_hostile_ctl_");
  writeTwoRanks(d.dir, "nccl:all_reduce\x1b]0;pwned\x07\x1b[31m", "GROUP\x1b[2J\xc2\x9b" "1m");
  Cli text("job_hostile_", {"job", d.dir.string()});
  ASSERT_EQ(text.wait(), 0) << text.err;
  EXPECT_EQ(controls(text.out, true), "") << text.out;
  EXPECT_EQ(controls(text.err, true), "") << text.err;
  EXPECT_NE(text.out.find("all_reduce\\x1b]0;pwned\\x07"), std::string::npos) << text.out;  // the bytes still told
  Cli json("job_hostile_", {"job", "--json", d.dir.string()});
  ASSERT_EQ(json.wait(), 0) << json.err;
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
  const fs::path svg = d.dir.parent_path() / ("job_hostile_" + std::to_string(::getpid()) + ".svg");
  Cli exp("job_hostile_", {"export", "--job", d.dir.string(), "-o", svg.string()});
  ASSERT_EQ(exp.wait(), 0) << exp.err;
  const std::string s = slurp(svg);
  fs::remove(svg);
  ASSERT_NE(s.find("<svg"), std::string::npos);
  EXPECT_EQ(controls(s, true), "");
}

TEST(JobHostileCli, JsonOfAFolderWithAFileNameThatIsNotUtf8) {
  Dir d("job_hostile_utf8_");
  writeTwoRanks(d.dir, "nccl:all_reduce", "default_pg", "\xff\xfe_dump_0");
  Cli json("job_hostile_", {"job", "--json", d.dir.string()});
  ASSERT_EQ(json.wait(), 0) << json.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(json.out)) << json.out;
  bool found = false;
  for (const auto& f : j["files"]) found = found || f["path"].get<std::string>().find("\\xff\\xfe_dump_0") != std::string::npos;
  EXPECT_TRUE(found) << json.out;
}

// The address space collviz takes to start, in KiB: `collviz job -`
// waiting on an open pipe (its room for stdin, 512 MiB + 1, reserved by
// then, is taken off). -1 if it could not be seen.
long startKib() {
  int in[2];
  if (::pipe(in) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::close(in[0]), ::close(in[1]);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1), ::dup2(null, 2);
    ::execl(COLLVIZ_CLI, COLLVIZ_CLI, "job", "-", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  long kib = -1;
  const auto end = std::chrono::steady_clock::now() + 20s;
  const std::string proc = "/proc/" + std::to_string(pid);
  while (kib < 0 && std::chrono::steady_clock::now() < end) {  // until it waits in the pipe's read (bounded)
    if (slurp(proc + "/wchan").find("pipe") != std::string::npos) {
      std::istringstream st(slurp(proc + "/status"));
      for (std::string line; std::getline(st, line);)
        if (line.rfind("VmSize:", 0) == 0) kib = std::stol(line.substr(7)) - (512L << 10) - 4;
    }
    if (kib < 0) std::this_thread::sleep_for(5ms);
  }
  ::close(in[1]);
  ::waitpid(pid, nullptr, 0);
  return kib;
}

// A folder of pickles that each need more address space than the limit
// leaves: whichever thread runs out, exit 1 with job's words, never an
// abort. The same limit reads a small job (the limit is not below what
// collviz needs to start).
TEST(JobHostileCli, OutOfMemoryInAnyThreadIsAMessage) {
  Dir small("job_hostile_small_");
  writeTwoRanks(small.dir, "nccl:all_reduce", "default_pg");
  Dir d("job_hostile_oom_");
  // Strings of 40 characters, one a value: within the file's memory bound,
  // but its tree's room (about 6 times 24 MB) is past what the limit leaves.
  std::string big = "\x80\x02](";
  const std::string item = std::string("\x8c\x28", 2) + std::string(40, 'x');
  while (big.size() < (std::size_t(24) << 20)) big += item;
  big += "e.";
  for (int r = 0; r < 4; ++r) std::ofstream(d.dir / ("_dump_" + std::to_string(r)), std::ios::binary) << big;
  const long start = startKib();
  ASSERT_GT(start, 0) << "collviz job - never waited on its stdin";
  // Room for a few threads' stacks and a small job, not for a 24 MB file's values (about 460 MB).
  const std::string limit = "ULIMIT_V_KIB=" + std::to_string(start + (200L << 10));
  Cli ok("job_hostile_", {"job", small.dir.string()}, 60s, {limit});
  ASSERT_EQ(ok.wait(), 0) << "a small job under the limit: " << ok.err;
  Cli c("job_hostile_", {"job", d.dir.string()}, 60s, {limit});
  EXPECT_EQ(c.wait(), 1) << c.err;
  EXPECT_NE(c.err.find("out of memory reading the job's files: read fewer files, or allow more memory (ulimit -v)"), std::string::npos)
      << c.err;
  EXPECT_EQ(c.err.find("smaller size"), std::string::npos) << c.err;
  EXPECT_EQ(c.err.find("terminate"), std::string::npos) << c.err;
}

// collviz job - with `bytes` of zeros written to its stdin (stopping when it
// stops reading): its exit, its stderr, what it took and its peak memory.
struct Piped {
  int code = -1;
  std::string err;
  std::size_t written = 0;
  long maxRssKib = 0;
};
Piped jobOnStdin(std::size_t bytes) {
  Piped r;
  int in[2];
  if (::pipe(in) != 0) return r;
  const fs::path errFile = fs::temp_directory_path() / ("job_hostile_stdin_" + std::to_string(::getpid()));
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::close(in[0]), ::close(in[1]);
    const int fe = ::open(errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fe, 2);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::execl(COLLVIZ_CLI, COLLVIZ_CLI, "job", "-", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  const auto old = std::signal(SIGPIPE, SIG_IGN);  // a closed pipe: EPIPE, not the end of the test
  const std::string block(std::size_t(1) << 20, '\0');
  while (r.written < bytes) {
    const ssize_t n = ::write(in[1], block.data(), std::min(block.size(), bytes - r.written));
    if (n <= 0) break;
    r.written += std::size_t(n);
  }
  ::close(in[1]);
  std::signal(SIGPIPE, old);
  int st = 0;
  rusage ru{};
  ::wait4(pid, &st, 0, &ru);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.maxRssKib = ru.ru_maxrss;
  r.err = slurp(errFile);
  fs::remove(errFile);
  return r;
}

TEST(JobHostileCli, StdinStopsAtTheCapWithItsMemoryNearTheCap) {
  const std::size_t offered = std::size_t(700) << 20;  // past the 512 MiB cap
  const Piped r = jobOnStdin(offered);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("stdin: larger than 512 MiB: not read"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("stdin: stdin"), std::string::npos) << r.err;
  EXPECT_LT(r.written, offered) << "collviz read all of stdin, past its cap";
  EXPECT_LT(r.maxRssKib, 640L << 10) << "peak memory " << (r.maxRssKib >> 10) << " MiB for a cap of 512 MiB";
}

TEST(JobHostileCli, WindowWithJsonIsRefused) {
  Dir d("job_hostile_win_");
  writeTwoRanks(d.dir, "nccl:all_reduce", "default_pg");
  Cli c("job_hostile_", {"job", d.dir.string(), "--window", "--json"});
  EXPECT_EQ(c.wait(), 2) << c.err;
  EXPECT_NE(c.err.find("--window and --json: give one"), std::string::npos) << c.err;
}

}  // namespace
}  // namespace collviz::test
