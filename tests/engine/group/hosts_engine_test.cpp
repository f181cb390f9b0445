// The engine with ranks on emulated hosts (issue 33): run inside
// tests/hosts/emulated_hosts.sh (COLLVIZ_TEST_HOSTS, _AGENT, _IFACE set),
// else skipped. Every op and the decomposition on MPI and on Gloo (both
// launched by mpirun), each rank where
// --map-by slot puts it, every output verified after its trip over TCP.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "engine/engine.h"

namespace collviz {
namespace {

TEST(HostsEngine, EveryOpAcrossHostsVerifies) {
  const char* names = std::getenv("COLLVIZ_TEST_HOSTS");
  if (!names) GTEST_SKIP() << "not inside tests/hosts/emulated_hosts.sh (COLLVIZ_TEST_HOSTS unset)";
  EngineOptions eo;
  std::vector<std::string> hosts;
  std::stringstream in(names);
  for (std::string h; std::getline(in, h, ',');) hosts.push_back(h);
  for (const auto& h : hosts) eo.hosts.hosts.push_back({h, 2});
  eo.hosts.iface = std::getenv("COLLVIZ_TEST_IFACE");
  eo.hosts.agent = std::getenv("COLLVIZ_TEST_AGENT");
  eo.deadline = std::chrono::milliseconds(10000);
  Engine e(eo);
  const int n = int(hosts.size()) * 2;
  for (BackendKind backend : {BackendKind::mpi, BackendKind::gloo})
  for (int k = 0; k <= int(kOpCount); ++k) {
    Request r;
    r.backend = backend;
    r.spec.ranks = n;
    r.spec.elems = 3;
    r.spec.root = n - 1;
    if (k == int(kOpCount)) {
      r.program = Program::all_reduce_decomposed;
      r.spec.op = Op::all_reduce;
    } else {
      r.spec.op = Op(k);
    }
    auto s = e.waitFor(e.submit(r), std::chrono::milliseconds(60000));
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->error.empty()) << s->error.c_str();
    EXPECT_TRUE(s->verified) << name(backend) << " " << name(r.spec.op);
    EXPECT_EQ(s->backend.name, name(backend));
    ASSERT_EQ(int(s->places.size()), n);
    for (int rank = 0; rank < n; ++rank) {
      EXPECT_EQ(s->places[std::size_t(rank)].host, hosts[std::size_t(rank / 2)]);
      EXPECT_GT(s->places[std::size_t(rank)].pid, 0);
    }
  }
}

// The window's Hosts field (issue 33): an engine started on this machine
// moves its ranks to the hosts at the next run after setHosts, and back.
TEST(HostsEngine, SetHostsMovesTheNextRun) {
  const char* names = std::getenv("COLLVIZ_TEST_HOSTS");
  if (!names) GTEST_SKIP() << "not inside tests/hosts/emulated_hosts.sh (COLLVIZ_TEST_HOSTS unset)";
  HostSpec spec;
  std::stringstream in(names);
  for (std::string h; std::getline(in, h, ',');) spec.hosts.push_back({h, 1});
  spec.iface = std::getenv("COLLVIZ_TEST_IFACE");
  spec.agent = std::getenv("COLLVIZ_TEST_AGENT");
  EngineOptions eo;
  eo.deadline = std::chrono::milliseconds(10000);
  Engine e(eo);
  Request r;
  r.backend = BackendKind::mpi;
  r.spec.ranks = 2;
  r.spec.op = Op::all_reduce;
  auto here = e.waitFor(e.submit(r), std::chrono::milliseconds(60000));
  ASSERT_TRUE(here);
  EXPECT_TRUE(here->verified) << here->error.c_str();
  EXPECT_TRUE(here->places.empty());  // this machine
  e.setHosts(spec);
  auto there = e.waitFor(e.submit(r), std::chrono::milliseconds(60000));
  ASSERT_TRUE(there);
  EXPECT_TRUE(there->verified) << there->error.c_str();
  ASSERT_EQ(there->places.size(), 2u);
  EXPECT_EQ(there->places[0].host, spec.hosts[0].name);
  EXPECT_EQ(there->places[1].host, spec.hosts[1].name);
  e.setHosts({});
  auto back = e.waitFor(e.submit(r), std::chrono::milliseconds(60000));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->verified) << back->error.c_str();
  EXPECT_TRUE(back->places.empty());
}

}  // namespace
}  // namespace collviz
