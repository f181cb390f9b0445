// Inside the MSCCL reader: the checks (msccl_check.cpp) and the graph of a
// file's steps the checks and the lowering share: which send each receive
// matches, what waits on what, and the round of every part of a step.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/algo/msccl/msccl.h"

namespace collviz::algo {

// An error at a line of the file being read ("FILE:LINE: what").
using MscclAt = std::function<Error(int line, const Text& what)>;

std::optional<Op> mscclOp(std::string_view coll);
std::string_view mscclCollNames();
bool mscclSends(MscclType t);     // s, rcs, rrs, rrcs
bool mscclReceives(MscclType t);  // r, rcs, rrs, rrc, rrcs

// Every check of the table in docs/algorithms.md; fills a.op and a.parts
// and orders a.gpus by id. The chunk counts are checked against
// `max_chunks` first, before anything is sized by them.
Status checkMscclFile(MscclAlgo& a, int ranks, int root, const MscclAt& at,
                      std::int64_t max_chunks = kMscclMaxChunks);

// The bytes of a file (file_text.cpp).
inline constexpr std::uint64_t kMscclFileCap = std::uint64_t(64) << 20;
// Only a regular, non-empty file of at most kMscclFileCap bytes is read.
Result<std::string> readAlgoText(const std::string& path);
// UTF-8 (no UTF-16, no stray bytes, no NUL), named with the line.
Status checkMscclBytes(const std::string& path, const std::string& text);
// Valid UTF-8 without control characters.
bool mscclPrintable(std::string_view text);
// The index in g.tbs of every tb id (-1: none), ids 0 .. the largest.
std::vector<int> mscclTbIndex(const MscclGpu& g);

struct MscclNode {
  enum class Kind { recv, send, local } kind = Kind::local;
  int gpu = 0, tb = 0, step = 0;  // indices into a.gpus, .tbs, .steps
  int message = -1;               // recv/send: the message
  int round = 0;                  // recv: the message's round; send: when it is ready; local: after this round's messages (0: before round 1's)
};
struct MscclMessage {
  int from = 0, to = 0;  // gpus
  int send_node = 0, recv_node = 0;
};
struct MscclGraph {
  std::vector<MscclNode> nodes;
  std::vector<MscclMessage> messages;
  std::vector<int> order;  // node indices, everything a node waits on first
  int rounds = 0;
};
// Matches sends with receives, finds a dependency cycle, forms the rounds.
Result<MscclGraph> mscclGraph(const MscclAlgo& a, const MscclAt& at);

}  // namespace collviz::algo
