// A lecture script's hosts (issue 33): `hosts = [...]` or `hostfile`, with
// map_by, iface and launcher_agent, as `collviz run --hosts` takes them.
// Bad values name the file, the key's line and what is allowed; no host is
// reached here (the deck exported on emulated hosts: tests/hosts/).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/lecture/lecture.h"

namespace collviz::lecture {
namespace {

namespace fs = std::filesystem;

std::string errorOf(const std::string& script) {
  auto l = parseLecture(script, "h.toml");
  return l ? std::string("(loaded)") : l.error().message;
}

TEST(LectureHosts, TheDeckRunsOnItsHosts) {
  auto l = parseLecture(R"(hosts = ["node1:2", "node2:2"]
map_by = "node"
iface = "cv0"
launcher_agent = "ssh -p 2222"
[[step]]
op = "all_reduce"
ranks = 4
[[step]]
backend = "mpi"
ranks = 3
)", "h.toml");
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_EQ(l->hosts.hosts.size(), 2u);
  EXPECT_EQ(l->hosts.hostList(), "node1:2,node2:2");
  EXPECT_EQ(l->hosts.map_by, MapBy::node);
  EXPECT_EQ(l->hosts.iface, "cv0");
  EXPECT_EQ(l->hosts.agent, "ssh -p 2222");
  // One string, as --hosts takes it.
  auto one = parseLecture("hosts = \"a:2,b\"\n[[step]]\nranks = 3\n", "h.toml");
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->hosts.hostList(), "a:2,b:1");
  // No hosts: this machine.
  auto none = parseLecture("[[step]]\nranks = 8\n", "h.toml");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->hosts.empty());
}

TEST(LectureHosts, ABadHostIsRefusedWithItsLineAndWhatIsAllowed) {
  const std::string e = errorOf("title = \"t\"\nhosts = [\"node1:2\",\n  \"no de:2\"]\n[[step]]\nranks = 2\n");
  EXPECT_EQ(e.rfind("h.toml:3: hosts: host name 'no de' is not allowed; allowed: letters, digits", 0), 0u) << e;
  EXPECT_NE(errorOf("hosts = [\"a:0\"]\n[[step]]\n").find("h.toml:1: hosts: host a: slots '0' is not allowed; allowed: a whole number from 1 to 1024"),
            std::string::npos);
  EXPECT_NE(errorOf("hosts = [\"a:2\", \"a:2\"]\n[[step]]\n").find("h.toml:1: hosts: host a is named twice"), std::string::npos);
  EXPECT_NE(errorOf("hosts = []\n[[step]]\n").find("h.toml:1: hosts is empty; allowed: host:slots strings"), std::string::npos);
  EXPECT_NE(errorOf("hosts = [4]\n[[step]]\n").find("h.toml:1: hosts: must be a list of host:slots strings"),
            std::string::npos);
  EXPECT_NE(errorOf("hosts = [\"a\"]\nmap_by = \"diagonal\"\n[[step]]\n")
                .find("h.toml:2: map_by = \"diagonal\" is not allowed; allowed: slot, node"),
            std::string::npos);
  EXPECT_NE(errorOf("hosts = [\"a\"]\niface = \"e/th0\"\n[[step]]\n").find("h.toml:2: iface = \"e/th0\" is not allowed; allowed: an interface name"),
            std::string::npos);
  EXPECT_NE(errorOf("hosts = [\"a\"]\nlauncher_agent = \"  \"\n[[step]]\n").find("h.toml:2: launcher_agent: not a command"),
            std::string::npos);
  // A line break (allowed in a script's text) is echoed escaped, never as a second line.
  EXPECT_NE(errorOf("hosts = [\"a\"]\nmap_by = \"slot\\nh.toml:9: ok\"\n[[step]]\n")
                .find("map_by = \"slot\\x0ah.toml:9: ok\" is not allowed"),
            std::string::npos);
  EXPECT_NE(errorOf("hosts = [\"a\"]\niface = \"e\\tth0\"\n[[step]]\n").find("iface = \"e\\x09th0\" is not allowed"),
            std::string::npos);
  EXPECT_NE(errorOf("iface = \"eth0\"\n[[step]]\n").find("h.toml:1: iface needs hosts or hostfile"), std::string::npos);
  EXPECT_NE(errorOf("hosts = [\"a\"]\nhostfile = \"f\"\n[[step]]\n").find("h.toml:2: hosts and hostfile both given"),
            std::string::npos);
}

TEST(LectureHosts, EveryStepFitsOnTheHosts) {
  const std::string more = errorOf("hosts = [\"a:2\", \"b:2\"]\n[[step]]\nranks = 4\n[[step]]\nranks = 5\n");
  EXPECT_NE(more.find("h.toml:4: step 2: 5 ranks do not fit in the hosts' 4 slots (a:2,b:2)"), std::string::npos) << more;
  // NCCL runs across hosts too (whether a host has it is the run's answer).
  EXPECT_EQ(errorOf("hosts = [\"a:2\"]\n[[step]]\nranks = 2\nbackend = \"nccl\"\n"), "(loaded)");
}

TEST(LectureHosts, AHostfileNextToTheScript) {
  const fs::path dir = fs::temp_directory_path() / ("collviz-lecture-hosts-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "hosts.txt") << "# the lab\nnode1 slots=2\nnode2 slots=2 max_slots=4\n";
  std::ofstream(dir / "bad.txt") << "node1 slots=2\nnode2 cores=2\n";
  std::ofstream(dir / "deck.toml") << "hostfile = \"hosts.txt\"\n[[step]]\nranks = 4\n";
  std::ofstream(dir / "bad.toml") << "hostfile = \"bad.txt\"\n[[step]]\n";
  std::ofstream(dir / "none.toml") << "\nhostfile = \"missing.txt\"\n[[step]]\n";
  auto l = loadLecture((dir / "deck.toml").string());
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->hosts.hostList(), "node1:2,node2:2");
  auto bad = loadLecture((dir / "bad.toml").string());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.toml:1: hostfile: bad.txt line 2: 'cores=2' is not understood"), std::string::npos)
      << bad.error().message;
  auto none = loadLecture((dir / "none.toml").string());
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("none.toml:2: hostfile = \"missing.txt\" cannot be read"), std::string::npos)
      << none.error().message;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace collviz::lecture
