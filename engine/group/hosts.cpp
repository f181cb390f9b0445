#include "engine/group/hosts.h"

#include "engine/algo/msccl/msccl.h"

#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

namespace collviz {
namespace {

Text nameRule() { return say("letters, digits, '.', '-' and '_', not starting with '-' or '.', at most 253 characters"); }

Status checkName(const std::string& n) {
  if (n.empty()) return Error{say("a host name is empty; allowed: {0}", nameRule())};
  if (n.size() > 253 || n[0] == '-' || n[0] == '.')
    return Error{say("host name '{0}' is not allowed; allowed: {1}", hostShown(n), nameRule())};
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'))
      return Error{say("host name '{0}' is not allowed; allowed: {1}", hostShown(n), nameRule())};
  return {};
}

Result<int> parseSlots(const std::string& host, const std::string& v) {
  bool digits = !v.empty() && v.size() <= 5;
  for (char c : v) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  const int n = digits ? std::stoi(v) : -1;
  if (n < 1 || n > kMaxSlots)
    return Error{say("host {0}: slots '{1}' is not allowed; allowed: a whole number from 1 to {2}", host, hostShown(v),
                     kMaxSlots)};
  return n;
}

Status noDuplicates(const std::vector<Host>& hosts) {
  std::set<std::string> seen;
  for (const Host& h : hosts)
    if (!seen.insert(h.name).second)
      return Error{say("host {0} is named twice; name each host once with all its slots ({0}:N)", h.name)};
  return {};
}

}  // namespace

std::string hostShown(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t n = 0;
  for (unsigned char c : text) {
    if (++n > max) return out + "...";
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out;
}

int HostSpec::slots() const {
  int n = 0;
  for (const Host& h : hosts) n += h.slots;
  return n;
}

std::string HostSpec::hostList() const {
  std::string out;
  for (const Host& h : hosts) out += (out.empty() ? "" : ",") + h.name + ":" + std::to_string(h.slots);
  return out;
}

Result<std::vector<Host>> parseHostList(const std::string& list) {
  std::vector<Host> out;
  if (list.empty()) return Error{say("--hosts is empty; allowed: host:slots[,host:slots...], e.g. a:4,b:4")};
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, comma - at);
    const std::size_t colon = item.find(':');
    Host h;
    h.name = item.substr(0, colon);
    if (Status st = checkName(h.name); !st) return st.error();
    if (colon != std::string::npos) {
      auto s = parseSlots(h.name, item.substr(colon + 1));
      if (!s) return s.error();
      h.slots = *s;
    }
    out.push_back(h);
    at = comma + 1;
  }
  if (Status st = noDuplicates(out); !st) return st.error();
  return out;
}

Result<std::vector<Host>> parseHostfile(const std::string& text, const std::string& where_given) {
  const std::string where = algo::mscclShown(where_given);  // a path: UTF-8 kept, control characters escaped
  std::vector<Host> out;
  std::istringstream in(text);
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string w;
    if (!(words >> w)) continue;
    Host h;
    h.name = w;
    if (Status st = checkName(h.name); !st) return Error{say("{0} line {1}: {2}", where, no, st.text())};
    while (words >> w) {
      const auto eq = w.find('=');
      const std::string key = w.substr(0, eq), value = eq == std::string::npos ? "" : w.substr(eq + 1);
      if (key == "slots") {
        auto s = parseSlots(h.name, value);
        if (!s) return Error{say("{0} line {1}: {2}", where, no, s.error().text)};
        h.slots = *s;
      } else if (key == "max_slots" || key == "max-slots") {
        if (auto s = parseSlots(h.name, value); !s) return Error{say("{0} line {1}: {2}", where, no, s.error().text)};
      } else {
        return Error{say("{0} line {1}: '{2}' is not understood; allowed: HOST [slots=N] [max_slots=N]", where, no,
                         hostShown(w))};
      }
    }
    out.push_back(h);
  }
  if (out.empty()) return Error{say("{0} names no host; allowed: one host a line, HOST [slots=N]", where)};
  if (Status st = noDuplicates(out); !st) return Error{say("{0}: {1}", where, st.text())};
  return out;
}

Result<MapBy> parseMapBy(const std::string& s) {
  if (s == "slot") return MapBy::slot;
  if (s == "node") return MapBy::node;
  return Error{say("--map-by {0} is not a mapping; allowed: slot, node", hostShown(s))};
}

Status checkIface(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 15 && name != "." && name != "..";
  for (char c : name) ok = ok && c != '/' && c != ':' && !std::isspace(static_cast<unsigned char>(c)) && c > 32 && c < 127;
  if (!ok)
    return Error{say("--iface '{0}' is not an interface name; allowed: 1 to 15 characters without '/', ':' or blanks (see ip link)",
                     hostShown(name))};
  return {};
}

Status checkAgent(const std::string& agent) {
  bool blank = true;
  for (char c : agent) {
    if (c == '\n' || c == '\r' || c == '\0')
      return Error{say("--launcher-agent must be one line; allowed: a command and its arguments, e.g. 'ssh -p 2222'")};
    blank = blank && std::isspace(static_cast<unsigned char>(c));
  }
  if (blank) return Error{say("--launcher-agent is empty; allowed: a command and its arguments, e.g. 'ssh -p 2222'")};
  return {};
}

Result<std::vector<int>> placeOnHosts(const HostSpec& spec, int ranks) {
  if (ranks > spec.slots())
    return Error{say("{0} ranks do not fit in the hosts' {1} slots ({2}); allowed: at most {1} ranks, or more slots",
                     ranks, spec.slots(), spec.hostList())};
  std::vector<int> host;
  if (spec.map_by == MapBy::slot) {
    for (int h = 0; h < int(spec.hosts.size()) && int(host.size()) < ranks; ++h)
      for (int s = 0; s < spec.hosts[std::size_t(h)].slots && int(host.size()) < ranks; ++s) host.push_back(h);
    return host;
  }
  std::vector<int> used(spec.hosts.size(), 0);
  while (int(host.size()) < ranks)
    for (int h = 0; h < int(spec.hosts.size()) && int(host.size()) < ranks; ++h)
      if (used[std::size_t(h)] < spec.hosts[std::size_t(h)].slots) {
        ++used[std::size_t(h)];
        host.push_back(h);
      }
  return host;
}

Result<HostSpec> parseHostArgs(const HostArgs& a, const std::string& hostfile_text) {
  HostSpec spec;
  if (!a.hosts.empty() && !a.hostfile.empty())
    return Error{say("--hosts and --hostfile both given; allowed: one of them")};
  if (a.hosts.empty() && a.hostfile.empty()) {
    if (!a.iface.empty() || !a.agent.empty() || a.map_by != "slot")
      return Error{say("--map-by, --iface and --launcher-agent need --hosts or --hostfile")};
    return spec;
  }
  auto hosts = a.hosts.empty() ? parseHostfile(hostfile_text, a.hostfile) : parseHostList(a.hosts);
  if (!hosts) return hosts.error();
  spec.hosts = std::move(*hosts);
  auto m = parseMapBy(a.map_by);
  if (!m) return m.error();
  spec.map_by = *m;
  if (!a.iface.empty()) {
    if (Status st = checkIface(a.iface); !st) return st.error();
    spec.iface = a.iface;
  }
  if (!a.agent.empty()) {
    if (Status st = checkAgent(a.agent); !st) return st.error();
    spec.agent = a.agent;
  }
  return spec;
}

}  // namespace collviz
