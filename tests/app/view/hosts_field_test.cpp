// The window's Hosts field (issue 33) without a window: the text typed into
// hosts (or this machine), or the error the status line shows.
#include <gtest/gtest.h>

#include "app/lang/lang.h"
#include "app/view/hosts_field.h"

namespace collviz::ui {
namespace {

TEST(HostsField, EmptyIsThisMachine) {
  auto h = hostsFromField({"", ""});
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_TRUE(h->empty());
  auto blank = hostsFromField({"   ", " "});
  ASSERT_TRUE(blank);
  EXPECT_TRUE(blank->empty());
}

TEST(HostsField, HostsAndTheAgentAsRunTakesThem) {
  auto h = hostsFromField({" a:2, b:2 ", " ssh -p 2222 "});
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->hostList(), "a:2,b:2");
  EXPECT_EQ(h->agent, "ssh -p 2222");
  EXPECT_EQ(h->map_by, MapBy::slot);
  EXPECT_TRUE(h->iface.empty());
  auto bare = hostsFromField({"node1,node2:3", ""});
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->hostList(), "node1:1,node2:3");
  // The field that shows a lecture's hosts reads back as the same hosts.
  EXPECT_EQ(hostsFromField(fieldOf(*h))->hostList(), "a:2,b:2");
  EXPECT_EQ(fieldOf(*h).agent, "ssh -p 2222");
}

TEST(HostsField, ABadHostIsAnErrorThatSaysWhatIsAllowed) {
  auto bad = hostsFromField({"a:2,b c:2", ""});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "Hosts: host name 'b c' is not allowed; allowed: letters, digits, '.', '-' and '_', not starting with "
            "'-' or '.', at most 253 characters");
  auto slots = hostsFromField({"a:0", ""});
  ASSERT_FALSE(slots);
  EXPECT_EQ(slots.error().message, "Hosts: host a: slots '0' is not allowed; allowed: a whole number from 1 to 1024");
  EXPECT_FALSE(hostsFromField({"a:2,,b", ""}));
  EXPECT_FALSE(hostsFromField({"a,a", ""}));
  auto agent = hostsFromField({"", "ssh -p 2222"});
  ASSERT_FALSE(agent);
  EXPECT_NE(agent.error().message.find("a launcher agent without hosts"), std::string::npos);
  // In Chinese too (the status line is in the reader's language).
  setLanguage(Lang::zh);
  EXPECT_EQ(render(slots.error()), "主机：主机 a：槽数“0”不允许；允许的值：1 到 1024 的整数");
  setLanguage(Lang::en);
}

}  // namespace
}  // namespace collviz::ui
