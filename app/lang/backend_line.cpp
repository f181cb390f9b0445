#include "app/lang/backend_line.h"

#include "app/lang/lang.h"

namespace collviz {

std::string BackendLine::text() const {
  std::string out = head;
  for (const std::string& p : parts) out += " · " + p;
  return out;
}

BackendLine backendLine(const BackendInfo& b, bool transport) {
  BackendLine l;
  l.head = b.version.empty() ? b.name : b.name + " " + b.version;
  if (!b.devices.empty()) l.parts.push_back(render(b.devices));
  if (transport && !b.transport.empty()) l.parts.push_back(render(b.transport));
  return l;
}

}  // namespace collviz
