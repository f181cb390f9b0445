// What collviz says back on bad input: one JSON document with "error" under
// --json (bad arguments included), user text escaped and cut, numbers out of
// range reported as given, empty values called empty, unknown commands
// named with the list of commands; export's name and size rules; bench says
// when it rounds a size.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_process.h"

namespace {

using namespace std::chrono_literals;
using namespace collviz::test;
namespace fs = std::filesystem;

struct Cli : collviz::test::Cli {
  explicit Cli(std::vector<std::string> args)
      : collviz::test::Cli("collviz_messages_", std::move(args), 60s) {}
};

class Messages : public SubreaperTest {};

TEST_F(Messages, JsonErrorsAreOneDocument) {
  const std::vector<std::vector<std::string>> cases = {
      {"run", "--json", "--ranks", "x"},       {"run", "--json", "--frobnicate"},
      {"run", "--json", "--elems", "0"},       {"bench", "--json", "-b", "12Q"},
      {"run", "--json", "--op", "\xff\xfe"},   {"devices", "--json", "--nope"},
  };
  for (const auto& args : cases) {
    Cli c(args);
    EXPECT_EQ(c.wait(), 2) << args.back() << ": " << c.err;
    const auto j = nlohmann::json::parse(c.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << args.back() << ": stdout is not one JSON document:\n" << c.out;
    ASSERT_TRUE(j.contains("error")) << c.out;
    EXPECT_FALSE(j["error"].get<std::string>().empty());
    EXPECT_EQ(j["exit_code"], 2);
  }
}

TEST_F(Messages, UserTextIsEscapedAndCut) {
  Cli c({"run", "--op", "a\x1b[31mb"});
  ASSERT_EQ(c.wait(), 2);
  EXPECT_EQ(c.err.find('\x1b'), std::string::npos) << "a terminal escape reached stderr";
  EXPECT_NE(c.err.find("--op a\\x1b[31mb is not a collective"), std::string::npos) << c.err;
  Cli l({"run", "--dtype", std::string(100000, 'x')});
  ASSERT_EQ(l.wait(), 2);
  EXPECT_LT(l.err.size(), 400u) << "the whole input was echoed";
  EXPECT_NE(l.err.find("..."), std::string::npos) << l.err;
}

TEST_F(Messages, NumbersAndEmptyValuesAsGiven) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--elems", "99999999999999999999999"}, "--elems 99999999999999999999999 is out of range"},
      {{"run", "--ranks", "99999999999"}, "--ranks 99999999999 is out of range"},
      {{"run", "--deadline-ms", "99999999999"}, "--deadline-ms 99999999999 is out of range"},
      {{"run", "--elems", "9223372036854775807", "--backend", "gloo"}, "more than 9e18 bytes"},
      {{"bench", "-b", "99999999999999999999999"}, "-b 99999999999999999999999 is out of range"},
      {{"run", "--elems", ""}, "--elems is empty"},
      {{"run", "--op", ""}, "--op is empty"},
      {{"bench", "-e", ""}, "-e is empty"},
      {{"export", "-o", ""}, "-o is empty"},
      {{"export", "--scale", "1e999"}, "--scale 1e999 is out of range"},
      {{"export", "--size", "64x64", "--scale", "0.25", "--format", "svg"}, "makes 16x16 pixels"},
      {{"nosuchcmd"}, "unknown command nosuchcmd; the commands are run, devices, bench, export"},
  };
  for (const auto& [args, says] : cases) {
    Cli c(args);
    EXPECT_EQ(c.wait(), 2) << args.front() << " " << args.back() << ": " << c.err;
    EXPECT_NE(c.err.find(says), std::string::npos) << c.err;
    EXPECT_EQ(c.err.find("-9223372036854775808"), std::string::npos) << c.err;
    expectNoOrphans(c);
  }
}

TEST_F(Messages, ExportTakesAnUpperCaseExtension) {
  const fs::path out = fs::temp_directory_path() / ("collviz_upper_" + std::to_string(::getpid()) + ".SVG");
  Cli c({"export", "--backend", "gloo", "--ranks", "2", "-o", out.string()});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(slurp(out).find("<svg"), std::string::npos);
  fs::remove(out);
}

TEST_F(Messages, BenchSaysWhenItRoundsASize) {
  Cli c({"bench", "-b", "7", "-e", "7", "-n", "1", "-w", "0", "--ranks", "4", "--backend", "gloo"});
  ASSERT_EQ(c.wait(), 0) << c.err;
  EXPECT_NE(c.err.find("7 B rounded up to 16 B"), std::string::npos) << c.err;
}

}  // namespace
