#include "app/view/hosts_field.h"

#include <cctype>

namespace collviz::ui {
namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

}  // namespace

Result<HostSpec> hostsFromField(const HostsField& f) {
  // Blanks around each item are the typist's; inside a name they stay (and
  // are refused as not a host name).
  std::string list;
  const std::string text = trim(f.hosts);
  for (std::size_t at = 0; !text.empty() && at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    list += (at == 0 ? "" : ",") + trim(text.substr(at, comma - at));
    at = comma + 1;
  }
  const std::string agent = trim(f.agent);
  HostSpec spec;
  if (list.empty()) {
    if (!agent.empty())
      return Error{say("Hosts: a launcher agent without hosts; allowed: hosts such as a:2,b:2 with it, or no agent")};
    return spec;  // this machine
  }
  auto hosts = parseHostList(list);
  if (!hosts) return Error{say("Hosts: {0}", hosts.error().text)};
  spec.hosts = std::move(*hosts);
  if (!agent.empty()) {
    if (Status st = checkAgent(agent); !st) return Error{say("Hosts: {0}", st.text())};
    spec.agent = agent;
  }
  return spec;
}

HostsField fieldOf(const HostSpec& spec) { return {spec.hostList(), spec.agent}; }

}  // namespace collviz::ui
