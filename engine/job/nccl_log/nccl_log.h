// NCCL's own log (NCCL_DEBUG=INFO): what it built and chose, read back from
// the lines NCCL prints, from its format strings of 2.18 to 2.29 (src/debug.cc
// for the prefix, init.cc, graph/{rings,connect,trees}.cc, transport/*.cc,
// enqueue.cc). Streaming: feed() takes any slices of the text, lines are cut
// at kMaxLine (a longer line is counted, not stored), and what is kept is
// bounded (kMaxMembers ranks, kMaxTransports links per rank, kMaxChoices
// distinct tuning choices): a log of any size reads in flat memory. A line
// that is not NCCL's, not understood, interleaved (two processes writing one
// file) or wrong (a number that overflows, a rank >= nRanks, a ring that is
// not a permutation) is counted and described, never fatal; a file with no
// NCCL line at all is an error.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/collectives.h"
#include "engine/text.h"

namespace collviz::nccl_log {

constexpr std::size_t kMaxLine = 64 * 1024;
constexpr std::size_t kMaxMembers = 4096;
constexpr std::size_t kMaxTransports = 1 << 16;
constexpr std::size_t kMaxChoices = 4096;
constexpr std::size_t kMaxChannels = 1024;   // per rank: rings, trees, Ring lines (NCCL has at most 64)
constexpr std::size_t kMaxSamples = 16;       // lines kept as examples per kind of problem
constexpr std::int64_t kNoNcclBytes = 64LL << 20;  // give up after this much with no NCCL line

// One "Channel NN/MM : a b c ..." line (printed by rank 0): the ring of
// channel NN of MM, in order from rank 0. `cut`: NCCL cut the line (2.23+
// ends it with "...", 2.18-2.22 prints at most 20 ranks).
struct Ring {
  int channel = 0, of = 0;
  std::vector<int> order;
  bool cut = false;
};

// One link NCCL connected: "Channel NN/c : a[d] -> b[d] [send] via NET/...".
struct Transport {
  int channel = 0, conn = 0;
  int from = 0, fromDev = 0, to = 0, toDev = 0;
  std::string dir;   // "send", "receive" or "" (P2P, SHM print none)
  std::string kind;  // P2P, SHM, NET, COLLNET
  std::string via;   // all after "via ": "P2P/CUMEM/read", "NET/AWS Libfabric/1/GDRDMA(PCI)"
  std::string net;   // NET/COLLNET: the plugin's name ("IB", "Socket", "AWS Libfabric")
  int netDev = -1;
  int proxy = -1;    // NET/<name>/<dev>(<proxy rank>): PXN, sent through that rank's NIC
  bool gdr = false;  // /GDRDMA
};

// A rank's tree on one channel: "up -> me -> d0/d1/d2" (-1: none).
struct Tree {
  int up = -1;
  std::array<int, 3> down{-1, -1, -1};
};

// One communicator's rank in one process: what its lines said.
struct Member {
  std::string host, ptr, file;
  std::int64_t pid = -1;
  int dev = -1;  // the [dev] of the prefix
  int rank = -1, nRanks = -1, nNodes = -1, localRanks = -1, localRank = -1;
  int cudaDev = -1, nvmlDev = -1;
  std::string busId, commId;
  bool complete = false;  // Init COMPLETE seen
  std::map<int, std::array<int, 2>> ringNeighbours;  // "Ring NN : prev -> me -> next": channel -> {prev, next}
  std::map<int, Tree> trees;                         // "Trees [c] ..." or "Tree c : ..."
  std::vector<Transport> transports;                 // first kMaxTransports distinct
  std::int64_t transportsDropped = 0;
  int collChannels = -1, collnetChannels = -1, nvlsChannels = -1, p2pChannels = -1, p2pPerPeer = -1;
  int nvlsTrees = 0, collnetLines = 0;
  int nvlsHeadRank = -1, nvlsHeads = -1;             // "NVLS comm %p headRank %d nHeads %d ..."
  std::vector<Tree> nvlsTree;                        // "NVLS Trees : d/d/d->r->up d/d/d->r->up" (channels 0 and 1)
  std::vector<Ring> rings;                           // printed by rank 0
  std::map<std::string, std::int64_t> callsByOp;     // "AllReduce: opCount ..." lines
};

// What NCCL chose for a collective (NCCL_DEBUG_SUBSYS=TUNING, printed by rank 0).
struct Choice {
  std::string op;           // "AllReduce" ("" in 2.18-2.22: the line names none)
  std::int64_t bytes = 0;
  std::string algo, proto;  // names (NCCL's numbers of 2.18-2.23 turned into them)
  int chLo = -1, chHi = -1; // channel{Lo..Hi} (2.24+); symmetric: 0..nchannels-1
  std::int64_t times = 0;   // lines with this same choice
  int comm = -1;            // Log::comms index, where its calls tell
};

// One communicator: its ranks as the files saw them, keyed by commId (or by
// the comm pointer where no Init COMPLETE line gave one).
struct Comm {
  std::string commId;
  int nRanks = -1, nNodes = -1, collChannels = -1;
  std::vector<Member> members;   // by rank
  std::vector<Ring> rings;       // rank 0's, by channel
  std::vector<std::string> hosts;  // distinct hosts of the members seen
  std::map<std::string, std::int64_t> callsByOp;
  std::vector<Said> disagreements;  // files that disagree on this communicator
};

struct Counts {
  std::int64_t bytes = 0, lines = 0, ncclLines = 0, info = 0, warn = 0;
  std::int64_t read = 0;         // lines understood and kept
  std::int64_t other = 0;        // NCCL lines of kinds not read (bootstrap, topology, ...)
  std::int64_t foreign = 0;      // not NCCL's (the application's own output)
  std::int64_t interleaved = 0;  // two NCCL prefixes on one line
  std::int64_t tooLong = 0;      // over kMaxLine: counted, not read
  std::int64_t bad = 0;          // NCCL's form, wrong values
  std::int64_t membersDropped = 0, choicesDropped = 0;
  std::int64_t dropped = 0;      // read, but past a bound (kMaxChannels, kMaxTransports): not kept
};

struct Sample {
  std::string file;
  std::int64_t line = 0;
  Said what;
};

struct Log {
  std::vector<std::string> files;
  std::string version;                         // "2.26.2+cuda12.6"
  std::map<std::string, std::string> settings; // "NCCL_SOCKET_IFNAME" -> "=hsn0"
  std::vector<std::string> networks;           // "Using network X"
  std::vector<Comm> comms;
  std::vector<Choice> choices;
  std::vector<Sample> bad, warnings;           // first kMaxSamples each
  Counts counts;
  std::vector<Said> missing;                   // what the log does not say, and the subsystem that would
};

// Reads one stream (a file, or stdin); several streams (per-rank files) go
// through one Reader: feed each with its name, then finish() once.
class Reader {
 public:
  Reader();
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  void begin(std::string file);          // a new stream starts (its lines are numbered from 1)
  Status feed(std::string_view bytes);   // an error once the stream is plainly not NCCL's
  Status end();                          // the stream ends: an error when it had no NCCL line
  Log finish();                          // merge and check everything fed
  const Counts& counts() const;

  struct State;  // state.h: internal

 private:
  std::unique_ptr<State> s_;
};

// Read files or folders (every regular file in a folder), "-" for stdin.
// progress(bytes done, bytes total) is called now and then (total 0: unknown).
Result<Log> read(const std::vector<std::string>& paths,
                 void (*progress)(std::int64_t, std::int64_t, void*) = nullptr, void* ctx = nullptr);
Result<Log> readText(std::string_view text, std::string name = "text");

// Names of NCCL's numbers (tuning.cc of 2.18-2.23): 0 TREE 1 RING 2
// COLLNET_DIRECT 3 COLLNET_CHAIN 4 NVLS 5 NVLS_TREE 6 PAT; 0 LL 1 LL128 2 SIMPLE.
std::string algoName(std::int64_t n);
std::string protoName(std::int64_t n);

// The sentence: "8 ranks on 2 nodes · 24 rings · inter-node links through NET/AWS Libfabric".
Text sentence(const Comm& c);
// What names a communicator: its commId, else the comm pointer its first
// rank printed ("0x2cbdc060", as in its "comm 0x2cbdc060" line), else "?".
std::string commLabel(const Comm& c);
// The communicator's ring of a channel as every rank's next, from rank 0's
// line or, where it is missing or cut, the members' "Ring" lines; empty when neither says.
std::vector<int> ringOrder(const Comm& c, int channel);
// The transport of the link a -> b (any channel), "" when unknown.
std::string linkKind(const Comm& c, int from, int to);

// The NCCL backend's own log (engine/group/nccl_debug_env.h): the last
// choice NCCL's TUNING lines made for `op` in the files under `dir`
// (nullopt: none, or an op NCCL has no call of its own for), and what it
// says beside the op ("NCCL: RING · LL128 · channels 0–23").
std::optional<Choice> lastChoice(const std::string& dir, Op op);
std::optional<Choice> lastChoice(const Log& log, Op op);
Text choiceText(const Choice& c);

}  // namespace collviz::nccl_log
