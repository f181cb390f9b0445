// The window's Hosts field (issue 33): where the window's runs go. "a:2,b:2"
// as `collviz run --hosts` takes it (empty: this machine) and the launcher
// agent mpirun reaches them with (empty: ssh). Pure: the field's text to
// hosts or to the error the status line shows, unit-tested.
#pragma once

#include <string>

#include "engine/group/hosts.h"
#include "engine/text.h"

namespace collviz::ui {

struct HostsField {
  std::string hosts;  // "a:2,b:2"; blanks around names and commas are ignored
  std::string agent;  // "ssh -p 2222"; blank: Open MPI's (ssh)
  bool operator==(const HostsField&) const = default;
};

// The hosts the field names (empty: this machine), or what is wrong with it
// and what is allowed.
Result<HostSpec> hostsFromField(const HostsField& f);
// The field that shows `spec` (a lecture's hosts).
HostsField fieldOf(const HostSpec& spec);

}  // namespace collviz::ui
