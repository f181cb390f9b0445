// A private network namespace for a Gloo rank group. Gloo's pairs listen on
// fresh 127.0.0.1 ports with no authentication, so any local user could
// connect to them and break a run; inside a network namespace of the
// group's own, 127.0.0.1 is a loopback only the group's ranks share. As root
// a plain network namespace is made; otherwise an unprivileged user
// namespace (mapping only our own uid) owns it. A short-lived child creates
// it and brings `lo` up; the engine keeps descriptors to it, and each worker
// joins it (setns) between fork and exec. Where the system refuses (user
// namespaces disabled, seccomp), runs fall back to the host's loopback and
// say so.
#pragma once

#include <string>

#include "engine/text.h"

namespace collviz {

class PrivateNetwork {
 public:
  PrivateNetwork() = default;
  ~PrivateNetwork();
  PrivateNetwork(PrivateNetwork&& o) noexcept;
  PrivateNetwork& operator=(PrivateNetwork&& o) noexcept;
  PrivateNetwork(const PrivateNetwork&) = delete;
  PrivateNetwork& operator=(const PrivateNetwork&) = delete;

  static Result<PrivateNetwork> create();
  // Join it from a freshly forked child (async-signal-safe); false on failure.
  bool enter() const;
  bool active() const { return net_fd_ >= 0; }
  // "a network namespace" or "a user and network namespace"
  Text kind() const;

 private:
  int user_fd_ = -1, net_fd_ = -1;
};

// Whether runs here get a private network, and why not (probed once).
struct Isolation {
  bool available = false;
  Said how;            // what isolates the ranks
  Said why_not;        // the system's refusal
};
const Isolation& isolation();

}  // namespace collviz
