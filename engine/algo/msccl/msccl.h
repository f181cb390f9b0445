// MSCCL algorithm files (the XML msccl-tools writes and the MSCCL runtime
// reads): read and check one (msccl_read.cpp, pugixml), and lower it to a
// Schedule of rounds (msccl_lower.cpp). Every error names the file and line
// and what is wrong; nothing runs from a file that fails a check.
//
// How a file maps onto collviz's working buffer: a chunk is one slot. The
// op's blocks of E elements split into `parts` chunks each (parts = the
// input's chunks ÷ the op's input blocks), so a slot holds E/parts
// elements. Each rank's working buffer is its input chunks, then its output
// chunks (none when in place: the output is a window of the input, or the
// input of the output), then its scratch chunks. The input chunks start
// with the rank's input; the output is read from the output chunks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/algo/schedule.h"
#include "engine/spec.h"
#include "engine/text.h"

namespace collviz::algo {

enum class MscclType { s, r, rcs, rrs, rrc, rrcs, cpy, re, nop };

struct MscclStep {
  int line = 0;
  int s = 0;
  MscclType type = MscclType::nop;
  char srcbuf = 'i', dstbuf = 'o';
  int srcoff = 0, dstoff = 0, cnt = 1;
  int depid = -1, deps = -1;
  bool hasdep = false;
};

struct MscclTb {
  int line = 0;
  int id = 0, send = -1, recv = -1, chan = 0;
  std::vector<MscclStep> steps;
};

struct MscclGpu {
  int line = 0;
  int id = 0, i_chunks = 0, o_chunks = 0, s_chunks = 0;
  std::vector<MscclTb> tbs;
};

struct MscclAlgo {
  std::string path;  // for messages
  std::string name, proto, coll;
  int line = 1;
  int nchannels = 1, nchunksperloop = 1, ngpus = 1;
  bool inplace = false;
  Op op = Op::all_reduce;
  int parts = 1;  // chunks per block of the op
  int root = 0;   // the root the chunk counts were checked for
  std::vector<MscclGpu> gpus;  // by id
};

// The most chunks (i_chunks + o_chunks + s_chunks) one gpu of a file may
// have, whatever the memory: a chunk holds at least one element, and the
// engine keeps bookkeeping per chunk per rank. Callers that know the memory
// budget pass a tighter cap (mscclChunkBudget, engine/group/memory_budget.h).
inline constexpr std::int64_t kMscclMaxChunks = std::int64_t(1) << 24;
// The bytes the reader and the lowering keep per chunk of one rank (the
// figure mscclChunkBudget divides the memory by).
inline constexpr std::int64_t kMscclBytesPerChunk = 256;

// The error when the root asked for is not one of the file's gpus: the
// root is the caller's, so the message names no line of the file (the CLI
// says --root). Arguments: the root, the last gpu, ngpus.
inline constexpr const char* kMscclRootOutOfRange =
    "root {0} is out of range for this file; allowed: 0 to {1} (ngpus = {2})";

// Read `path` and check it: `ranks` > 0 must equal ngpus (0: take ngpus);
// `root` is the op's root for broadcast/reduce/gather/scatter; no gpu may
// have more than `max_chunks` chunks. Only a regular file is read.
Result<MscclAlgo> readMscclFile(const std::string& path, int ranks = 0, int root = 0,
                                std::int64_t max_chunks = kMscclMaxChunks);
// The same from text already read (`path` names it in messages).
Result<MscclAlgo> parseMscclText(const std::string& path, const std::string& text, int ranks = 0,
                                 int root = 0, std::int64_t max_chunks = kMscclMaxChunks);

// `text` (a path, a value from a file) fit for a terminal, JSON or SVG:
// control characters and bytes that are not UTF-8 as \xNN.
std::string mscclShown(std::string_view text);

// The name a run shows for the file: "msccl:" + the algo's name.
std::string mscclAlgoName(const MscclAlgo& a);
// The slots of the file's buffers on rank `rank` (in order i, o, s).
struct MscclLayout {
  int in = 0, out = 0, scratch = 0;  // first slot of each buffer
  int slots = 0;
};
MscclLayout mscclLayout(const MscclAlgo& a, int rank);

// The rounds the file's steps form (see docs/algorithms.md): a step runs in
// the first round after everything it waits for; a send and its receive are
// one message of a round; local copies and reduces are the round's local
// work. `s` must be the file's op on ngpus ranks with elems a multiple of
// parts (the error says so).
Result<Schedule> lowerMscclFile(const MscclAlgo& a, const OpSpec& s);
// Can the file run `s`? Names what does not fit (op, ranks, root, elems).
Status checkMscclRun(const MscclAlgo& a, const OpSpec& s);

// Files read in this process, by name (mscclAlgoName): the algorithm
// table's look-ups (algorithms.h) fall back to them, so a loaded file runs,
// exports and shows like any algorithm. A file of the same name replaces
// the one before.
void registerMscclFile(std::shared_ptr<const MscclAlgo> a);
std::shared_ptr<const MscclAlgo> findMscclFile(std::string_view name);
std::vector<std::shared_ptr<const MscclAlgo>> mscclFiles();

}  // namespace collviz::algo
