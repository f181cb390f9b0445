// The stand-in's ncclCommSplit (tests only): every rank of the parent sends
// its color, key and a unique id of its own making to every other over the
// parent's connections; the ranks of one color are ordered by (key, parent
// rank), as NCCL documents, and join the unique id of the first of them
// through the bootstrap. The parent's queued work is drained first, so its
// stream work never takes these messages for an op's (a simplification:
// NCCL's split does not wait for queued ops; a program cannot tell).
#include <algorithm>
#include <cstring>
#include <vector>

#include "tests/standin/internal.h"
#include "tests/standin/nccl_comm.h"

namespace collviz::standin {

int physicalDevice(int visible);  // runtime_devices.cpp

namespace {
struct SplitHello {
  std::int32_t color = 0, key = 0;
  ncclUniqueId id{};
};
constexpr std::int32_t kSplitOp = -2;  // Header::op of a split's message (never an op's)
}  // namespace

ncclResult_t splitComm(const std::shared_ptr<Comm>& parent, int color, int key, std::shared_ptr<Comm>* out) {
  out->reset();
  if (color < 0 && color != NCCL_SPLIT_NOCOLOR) {
    setLastError("stand-in NCCL: ncclCommSplit: color " + std::to_string(color) +
                 " is negative and not NCCL_SPLIT_NOCOLOR");
    return ncclInvalidArgument;
  }
  parent->drain();
  const int n = parent->nranks, me = parent->rank;
  std::vector<SplitHello> all(static_cast<std::size_t>(n));
  all[std::size_t(me)].color = color;
  all[std::size_t(me)].key = key;
  makeUniqueId(&all[std::size_t(me)].id);
  Header h{kMagic, kData, 0, kSplitOp, 0, 0, 0, 0, sizeof(SplitHello)};
  for (int p = 0; p < n; ++p)
    if (p != me && !parent->send(p, h, &all[std::size_t(me)])) return ncclRemoteError;
  for (int p = 0; p < n; ++p) {
    if (p == me) continue;
    Message m;
    if (!parent->receive(p, &m)) return ncclRemoteError;
    if (m.h.op != kSplitOp || m.data.size() != sizeof(SplitHello)) {
      setLastError("stand-in NCCL: ncclCommSplit: rank " + std::to_string(p) +
                   " sent something other than its split (did every rank call ncclCommSplit?)");
      return ncclInvalidUsage;
    }
    std::memcpy(&all[std::size_t(p)], m.data.data(), sizeof(SplitHello));
  }
  if (color == NCCL_SPLIT_NOCOLOR) return ncclSuccess;
  std::vector<int> members;
  for (int p = 0; p < n; ++p)
    if (all[std::size_t(p)].color == color) members.push_back(p);
  std::stable_sort(members.begin(), members.end(),
                   [&](int a, int b) { return all[std::size_t(a)].key < all[std::size_t(b)].key; });
  const int rank = int(std::find(members.begin(), members.end(), me) - members.begin());
  const int first = *std::min_element(members.begin(), members.end());
  return bootstrap(all[std::size_t(first)].id, int(members.size()), rank, parent->device,
                   physicalDevice(parent->device), parent->version, out);
}

}  // namespace collviz::standin
