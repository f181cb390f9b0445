// `algo_file = "…"` in a lecture script: the path is the script's
// neighbour, the step shows the file's op, ranks and rounds; a broken file
// fails the script with the script's line and the file's own file:line.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "app/lecture/lecture.h"
#include "tests/engine/algo/msccl/msccl_fixtures.h"

namespace collviz::test {
namespace {

namespace fs = std::filesystem;

// A script in a fresh directory beside a copy of `xml` (as "algo.xml").
std::string scriptWith(const std::string& toml, const std::string& xml) {
  const fs::path dir = fs::temp_directory_path() / ("msccl_lecture_" + std::to_string(::getpid()));
  fs::create_directories(dir / "algos");
  fs::copy_file(xml, dir / "algos" / "algo.xml", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "talk.toml") << toml;
  return (dir / "talk.toml").string();
}

TEST(MscclLecture, AlgoFileIsRelativeToTheScript) {
  const std::string path = scriptWith(
      "[[step]]\nop = \"broadcast\"\n[[step]]\nalgo_file = \"algos/algo.xml\"\nround = 3\n",
      goodFixture("ring_allreduce_4_2ch.xml"));
  auto lec = lecture::loadLecture(path);
  ASSERT_TRUE(lec) << lec.error().message;
  ASSERT_EQ(lec->steps.size(), 2u);
  const lecture::Step& s = lec->steps[1];
  EXPECT_EQ(s.algo, "msccl:ring_allreduce_4_2ch");
  EXPECT_EQ(s.spec.op, Op::all_reduce);
  EXPECT_EQ(s.spec.ranks, 4);
  EXPECT_EQ(s.spec.elems % 2, 0);
  EXPECT_EQ(s.round, 3);
  fs::remove_all(fs::path(path).parent_path());
}

TEST(MscclLecture, BrokenFileNamesBothLines) {
  const std::string path = scriptWith("[[step]]\nalgo_file = \"algos/algo.xml\"\n",
                                      std::string(COLLVIZ_MSCCL_DIR) + "/bad/cycle.xml");
  auto lec = lecture::loadLecture(path);
  ASSERT_FALSE(lec);
  const std::string& m = lec.error().message;
  EXPECT_NE(m.find("talk.toml:2: algo_file = \"algos/algo.xml\": "), std::string::npos) << m;
  EXPECT_NE(m.find("algo.xml:4: "), std::string::npos) << m;
  EXPECT_NE(m.find("dependency cycle"), std::string::npos) << m;
  fs::remove_all(fs::path(path).parent_path());
}

TEST(MscclLecture, RoundBeyondTheFileIsRefused) {
  const std::string path = scriptWith("[[step]]\nalgo_file = \"algos/algo.xml\"\nround = 7\n",
                                      goodFixture("ring_allreduce_4_1ch.xml"));
  auto lec = lecture::loadLecture(path);
  ASSERT_FALSE(lec);
  EXPECT_NE(lec.error().message.find("allowed: 0 to 6"), std::string::npos) << lec.error().message;
  fs::remove_all(fs::path(path).parent_path());
}

TEST(MscclLecture, AlgoFileThatIsNotAFileIsNamedAtOnce) {
  const std::string path = scriptWith("[[step]]\nalgo_file = \"algos/algo.xml\"\n", goodFixture("ring_allreduce_4_1ch.xml"));
  const fs::path dir = fs::path(path).parent_path();
  ASSERT_EQ(::mkfifo((dir / "fifo.xml").c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", dir / "zero.xml");
  std::ofstream(dir / "empty.xml").flush();
  const std::pair<std::string, std::string> cases[] = {
      {"fifo.xml", "fifo.xml: is not a regular file"},
      {"zero.xml", "zero.xml: is not a regular file"},
      {"algos", "algos: is a directory"},
      {"empty.xml", "empty.xml: is empty"},
      {"", "talk.toml:2: algo_file is empty"},
  };
  for (const auto& [file, words] : cases) {
    SCOPED_TRACE(file);
    std::ofstream(path) << "[[step]]\nalgo_file = \"" + file + "\"\n";
    const auto start = std::chrono::steady_clock::now();
    auto lec = lecture::loadLecture(path);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
    ASSERT_FALSE(lec);
    EXPECT_NE(lec.error().message.find(words), std::string::npos) << lec.error().message;
  }
  fs::remove_all(dir);
}

// Issue 38 (minor): a step with both algo = "ring" and algo_file silently
// took the file; refused as the CLI refuses --algo with --algo-file, in
// either order. algo = "native" beside a file stays allowed, as on the CLI.
TEST(MscclLecture, AlgoAndAlgoFileTogetherAreRefused) {
  for (const std::string body : {"[[step]]\nalgo = \"ring\"\nalgo_file = \"algos/algo.xml\"\n",
                                 "[[step]]\nalgo_file = \"algos/algo.xml\"\nalgo = \"ring\"\n"}) {
    SCOPED_TRACE(body);
    const std::string path = scriptWith(body, goodFixture("ring_allreduce_4_1ch.xml"));
    auto lec = lecture::loadLecture(path);
    ASSERT_FALSE(lec) << "a step with algo = \"ring\" and algo_file was taken";
    EXPECT_NE(lec.error().message.find("algo = \"ring\" and algo_file both name an algorithm; give one"),
              std::string::npos)
        << lec.error().message;
    fs::remove_all(fs::path(path).parent_path());
  }
  const std::string path = scriptWith("[[step]]\nalgo = \"native\"\nalgo_file = \"algos/algo.xml\"\n",
                                      goodFixture("ring_allreduce_4_1ch.xml"));
  auto lec = lecture::loadLecture(path);
  EXPECT_TRUE(lec) << lec.error().message;
  fs::remove_all(fs::path(path).parent_path());
}

}  // namespace
}  // namespace collviz::test
