// Host specs (engine/group/hosts.h): Open MPI's -H and hostfile syntax,
// the mapping of ranks to hosts, and every refusal naming what is allowed.
#include "engine/group/hosts.h"
#include "engine/group/remote_probe.h"

#include <gtest/gtest.h>

namespace collviz {
namespace {

template <class T>
std::string err(const Result<T>& r) { return r ? "" : r.error().message; }

TEST(Hosts, ListWithSlotsAndBareNames) {
  auto h = parseHostList("a:4,node-2.lab:2,c");
  ASSERT_TRUE(h) << h.error().message;
  ASSERT_EQ(h->size(), 3u);
  EXPECT_EQ((*h)[0].name, "a");
  EXPECT_EQ((*h)[0].slots, 4);
  EXPECT_EQ((*h)[1].name, "node-2.lab");
  EXPECT_EQ((*h)[1].slots, 2);
  EXPECT_EQ((*h)[2].slots, 1);  // as mpirun -H: a bare name is one slot
}

TEST(Hosts, BadNamesSlotsAndDuplicatesAreRefusedWithWhatIsAllowed) {
  EXPECT_NE(err(parseHostList("")).find("allowed: host:slots"), std::string::npos);
  EXPECT_NE(err(parseHostList("a:4,")).find("empty"), std::string::npos);
  EXPECT_NE(err(parseHostList("a b:2")).find("host name 'a b' is not allowed; allowed: letters"), std::string::npos);
  EXPECT_NE(err(parseHostList("-a:2")).find("'-a'"), std::string::npos);
  EXPECT_NE(err(parseHostList("a;rm:2")).find("not allowed"), std::string::npos);
  EXPECT_NE(err(parseHostList("a:0")).find("slots '0' is not allowed; allowed: a whole number from 1 to 1024"),
            std::string::npos);
  EXPECT_NE(err(parseHostList("a:x")).find("slots 'x'"), std::string::npos);
  EXPECT_NE(err(parseHostList("a:99999")).find("slots '99999'"), std::string::npos);
  EXPECT_NE(err(parseHostList("a:")).find("slots ''"), std::string::npos);
  EXPECT_NE(err(parseHostList("a:2,b:2,a:1")).find("host a is named twice"), std::string::npos);
}

// Issue 55: a value with control characters (a title set, the screen
// cleared) is echoed escaped as --op's is (\x1b), never raw.
TEST(Hosts, ControlCharactersInAValueAreEchoedEscaped) {
  const std::string evil = "n\x1b]0;owned\x07\x1b[2J";
  HostArgs map_by, iface;
  map_by.hosts = iface.hosts = "a";
  map_by.map_by = evil;
  iface.iface = "e\x1b[2J";
  for (const std::string& e : {err(parseHostList(evil + ":2")), err(parseHostList("a:" + evil)),
                               err(parseHostfile("a\n" + evil + " slots=2\n", "hf")),
                               err(parseHostfile("a slots=2 " + evil + "\n", "hf")), err(parseHostArgs(map_by, "")),
                               err(parseHostArgs(iface, ""))}) {
    EXPECT_FALSE(e.empty());
    EXPECT_EQ(e.find_first_of("\x1b\x07"), std::string::npos) << e;
    EXPECT_NE(e.find("\\x1b"), std::string::npos) << e;
  }
  const std::string path = err(parseHostfile("a\n" + evil + "\n", "\xe4\xb8\xad\x1b]0;t\x07.txt"));
  EXPECT_NE(path.find("\xe4\xb8\xad\\x1b]0;t\\x07.txt line 2"), std::string::npos) << path;  // UTF-8 kept
  EXPECT_EQ(hostShown("a\\b\x1b\xe4"), "a\\\\b\\x1b\\xe4");
  EXPECT_EQ(hostShown(std::string(100, 'x')), std::string(80, 'x') + "...");
}

TEST(Hosts, HostfileAsOpenMpiWritesIt) {
  auto h = parseHostfile("# lab\nnode1 slots=4\n\n  node2 slots=2 max_slots=8  # two GPUs\nnode3\n", "hf");
  ASSERT_TRUE(h) << h.error().message;
  ASSERT_EQ(h->size(), 3u);
  EXPECT_EQ((*h)[0].slots, 4);
  EXPECT_EQ((*h)[1].name, "node2");
  EXPECT_EQ((*h)[1].slots, 2);
  EXPECT_EQ((*h)[2].slots, 1);
  EXPECT_NE(err(parseHostfile("a slots=0\n", "hf")).find("hf line 1: host a: slots '0'"), std::string::npos);
  EXPECT_NE(err(parseHostfile("a\nb cpus=2\n", "hf")).find("hf line 2: 'cpus=2' is not understood; allowed: HOST [slots=N]"),
            std::string::npos);
  EXPECT_NE(err(parseHostfile("# nothing\n\n", "hf")).find("hf names no host"), std::string::npos);
  EXPECT_NE(err(parseHostfile("a\na slots=2\n", "hf")).find("hf: host a is named twice"), std::string::npos);
}

TEST(Hosts, RanksBySlotThenByNode) {
  HostSpec s;
  s.hosts = {{"a", 4}, {"b", 4}};
  auto slot = placeOnHosts(s, 8);
  ASSERT_TRUE(slot);
  EXPECT_EQ(*slot, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(*placeOnHosts(s, 5), (std::vector<int>{0, 0, 0, 0, 1}));
  s.map_by = MapBy::node;
  EXPECT_EQ(*placeOnHosts(s, 8), (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
  s.hosts = {{"a", 1}, {"b", 3}};
  EXPECT_EQ(*placeOnHosts(s, 4), (std::vector<int>{0, 1, 1, 1}));  // a full: the rest on b
  EXPECT_NE(err(placeOnHosts(s, 5)).find("5 ranks do not fit in the hosts' 4 slots (a:1,b:3); allowed: at most 4 ranks"),
            std::string::npos);
}

TEST(Hosts, ArgsTogether) {
  HostArgs a;
  auto none = parseHostArgs(a, "");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());  // without hosts nothing changes
  a.iface = "eth0";
  EXPECT_NE(err(parseHostArgs(a, "")).find("need --hosts or --hostfile"), std::string::npos);
  a.hosts = "a:2,b:2";
  a.map_by = "node";
  a.agent = "ssh -p 2222";
  auto s = parseHostArgs(a, "");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->hostList(), "a:2,b:2");
  EXPECT_EQ(s->map_by, MapBy::node);
  EXPECT_EQ(s->iface, "eth0");
  EXPECT_EQ(s->agent, "ssh -p 2222");
  a.hostfile = "hf";
  EXPECT_NE(err(parseHostArgs(a, "a\n")).find("--hosts and --hostfile both given"), std::string::npos);
  a.hostfile.clear();
  a.map_by = "core";
  EXPECT_NE(err(parseHostArgs(a, "")).find("--map-by core is not a mapping; allowed: slot, node"), std::string::npos);
  a.map_by = "slot";
  a.iface = "a/b";
  EXPECT_NE(err(parseHostArgs(a, "")).find("--iface 'a/b' is not an interface name"), std::string::npos);
  a.iface = "averyveryverylongname";
  EXPECT_NE(err(parseHostArgs(a, "")).find("1 to 15 characters"), std::string::npos);
  a.iface = "cv0";
  a.agent = "ssh\nrm";
  EXPECT_NE(err(parseHostArgs(a, "")).find("--launcher-agent must be one line"), std::string::npos);
  a.agent = "  ";
  EXPECT_NE(err(parseHostArgs(a, "")).find("--launcher-agent is empty"), std::string::npos);
}


// NCCL across hosts is what every host's probe says: the first host's NCCL
// when all offer it, else the first that does not, named with its reason.
HostProbe probeWithNccl(const std::string& host, bool available, const std::string& reason, int gpus) {
  HostProbe p;
  p.host = host;
  BackendStatus b;
  b.kind = BackendKind::nccl;
  b.available = available;
  b.reason = reason;
  b.gpus = gpus;
  b.info.version = "2.28.9 on " + host;
  p.report = DeviceReport{};
  p.report->backends.push_back(b);
  return p;
}

TEST(HostsNccl, EveryHostMustOfferNcclAndTheFirstThatDoesNotIsNamed) {
  auto both = combineHostReports({probeWithNccl("a", true, "", 4), probeWithNccl("b", true, "", 2)});
  const BackendStatus* n = both.find(BackendKind::nccl);
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->available);
  EXPECT_EQ(n->gpus, 4);
  EXPECT_EQ(n->info.version, "2.28.9 on a");
  EXPECT_TRUE(both.choose(BackendKind::nccl, static_cast<std::string*>(nullptr)));

  auto second = combineHostReports({probeWithNccl("a", true, "", 4), probeWithNccl("b", false, "no GPU", 0),
                                    probeWithNccl("c", false, "no driver", 0)});
  auto refused = second.choose(BackendKind::nccl, static_cast<std::string*>(nullptr));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("backend nccl is unavailable: on host b: no GPU"), std::string::npos)
      << refused.error().message;

  HostProbe gone;
  gone.host = "d";
  gone.problem = lit("cannot be reached");
  auto unreachable = combineHostReports({gone, probeWithNccl("a", true, "", 4)});
  EXPECT_EQ(unreachable.find(BackendKind::nccl)->reason, "on host d: cannot be reached");
  EXPECT_FALSE(combineHostReports({}).find(BackendKind::nccl)->available);
}

// What mpirun printed, as Open MPI 4.1 prints it (help-orterun.txt and
// help-errmgr-base.txt, wrapped as there), read as the two failures collviz
// names; anything else is not named (the caller says mpirun's own words).
TEST(HostsProbe, MpirunsWrappedMessagesAreReadAsAMissingRankOrAnUnreachableHost) {
  const std::string missing =
      "--------------------------------------------------------------------------\n"
      "mpirun was unable to launch the specified application as it could not access\n"
      "or execute an executable:\n\n"
      "Executable: /opt/collviz/bin/collviz-rank\n"
      "Node: node2\n";
  const std::string m = mpirunFailure(missing, "node2", "/opt/collviz/bin/collviz-rank", "").english();
  EXPECT_NE(m.find("no collviz-rank at /opt/collviz/bin/collviz-rank there"), std::string::npos) << m;
  EXPECT_NE(m.find("install the same collviz at the same path on every host"), std::string::npos) << m;

  const std::string daemons =
      "--------------------------------------------------------------------------\n"
      "ORTE was unable to reliably start one or more daemons.\n"
      "This usually is caused by:\n";
  const std::string d = mpirunFailure(daemons, "node3", "/x/collviz-rank", "").english();
  EXPECT_NE(d.find("mpirun could not start its daemon on node3 through ssh"), std::string::npos) << d;
  const std::string a = mpirunFailure(daemons, "node3", "/x/collviz-rank", "/usr/bin/rsh").english();
  EXPECT_NE(a.find("on node3 through /usr/bin/rsh"), std::string::npos) << a;

  EXPECT_TRUE(mpirunFailure("", "node2", "/x/collviz-rank", "").empty());
  EXPECT_TRUE(mpirunFailure("MPI_ABORT was invoked on rank 0\n", "node2", "/x/collviz-rank", "").empty());
}

// A host's probe answer: the JSON is its last line; anything else, or
// another collviz's version, is a problem that says what was found.
TEST(HostsProbe, AnAnswerThatIsNotTheProbesJsonOrAnotherVersionIsAProblem) {
  const HostProbe junk = readHostProbe("node2", "bash: collviz-rank: command not found\n");
  EXPECT_FALSE(junk.ok());
  EXPECT_NE(junk.problem.english().find("it printed: bash: collviz-rank: command not found"), std::string::npos)
      << junk.problem.english();
  EXPECT_FALSE(readHostProbe("node2", "").ok());

  const HostProbe old = readHostProbe("node2", "a library's words\n{\"collviz\": \"0.0.1\", \"host\": \"n2\"}\n");
  EXPECT_FALSE(old.ok());
  EXPECT_EQ(old.hostname, "n2");
  EXPECT_NE(old.problem.english().find("runs collviz-rank 0.0.1 and this collviz is"), std::string::npos)
      << old.problem.english();
}

}  // namespace
}  // namespace collviz
