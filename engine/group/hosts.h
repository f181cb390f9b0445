// Hosts: where the ranks run when they run on several machines (issue 33).
// Open MPI's own syntax: `--hosts a:4,b:4` (its -H, host:slots) or a
// hostfile (`a slots=4` per line), ranks placed by slot (R0-R3 on a, R4-R7
// on b) or round-robin by node, the interface the hosts share and the
// launcher agent mpirun reaches them with (ssh unless one is named). Pure:
// parsed and checked here, unit-tested, no process started.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/text.h"

namespace collviz {

struct Host {
  std::string name;
  int slots = 1;
  bool operator==(const Host&) const = default;
};

enum class MapBy { slot, node };

struct HostSpec {
  std::vector<Host> hosts;  // empty: one machine, shared memory, as without hosts
  MapBy map_by = MapBy::slot;
  std::string iface;  // the interface the hosts share; empty: the one that reaches the first host
  std::string agent;  // mpirun's launcher agent (plm_rsh_agent); empty: Open MPI's (ssh)
  bool empty() const { return hosts.empty(); }
  int slots() const;
  // "a:4,b:4", as mpirun's -H takes it.
  std::string hostList() const;
  bool operator==(const HostSpec&) const = default;
};

inline constexpr int kMaxSlots = 1024;

// A value from --hosts, a hostfile or a peer as a refusal echoes it (issue
// 55): control characters and non-ASCII bytes as \xNN (as --op's), a
// backslash doubled, at most 80 characters then "...", so a host file
// cannot clear or retitle the terminal. The CLI echoes its flags' values
// the same way (cli_input's shown, at most 60).
std::string hostShown(std::string_view text, std::size_t max = 80);

// "a:4,b:4" (a bare name is one slot). Names: letters, digits, '.', '-',
// '_' (not first), at most 253 characters, each named once.
Result<std::vector<Host>> parseHostList(const std::string& list);
// Open MPI's hostfile: one host a line, `slots=N` (and `max_slots=N`,
// ignored), '#' comments, blank lines. `where` names the file in errors.
Result<std::vector<Host>> parseHostfile(const std::string& text, const std::string& where);
// "slot" or "node".
Result<MapBy> parseMapBy(const std::string& s);
// A network interface's name as Linux allows it (1-15 characters, no '/',
// ':' or blank).
Status checkIface(const std::string& name);
// A launcher agent: a command (with arguments), no newline.
Status checkAgent(const std::string& agent);

// The host each rank runs on (an index into spec.hosts), as mpirun maps them
// with --map-by slot or node; an error when ranks exceed the slots.
Result<std::vector<int>> placeOnHosts(const HostSpec& spec, int ranks);

// Everything a command takes: --hosts or --hostfile (not both), --map-by,
// --iface, --launcher-agent. `hostfile_text` is the file's content (read
// by the caller). With no hosts, --map-by, --iface and --launcher-agent are
// refused: they mean nothing on one machine.
struct HostArgs {
  std::string hosts, hostfile, map_by = "slot", iface, agent;
};
Result<HostSpec> parseHostArgs(const HostArgs& a, const std::string& hostfile_text);

}  // namespace collviz
