// Reads the capture of tests/tap/tap_counts.c (4 ranks) with
// tap/capture_format.h alone and checks what differs from rank to rank:
// each rank's own count of a reduce_scatter and its bytes, the gatherv's
// received count at the root, and an in-place allgatherv's input (this
// rank's part at its own displacement), and an intercommunicator's id, the
// same on both sides. Issue 56, round four.
//   usage: tap_counts_check DIR N
// Exit 0 when all holds, else 1 with every failure printed.
#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tap/capture_format.h"

using namespace collviz::tap;

namespace {

int g_failures = 0;
#define EXPECT(cond, ...)                                       \
  do {                                                          \
    if (!(cond)) {                                              \
      std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                        \
      std::fprintf(stderr, "\n");                               \
      ++g_failures;                                             \
    }                                                           \
  } while (0)

// The records hold atomics (not copyable): kept as their bytes.
struct Call {
  alignas(8) std::uint8_t raw[sizeof(CallRecord)];
  const CallRecord& rec() const { return *reinterpret_cast<const CallRecord*>(raw); }
  std::vector<std::uint8_t> in, out;
};
struct Rank {
  int world_rank = -1;
  std::vector<Call> calls;
  std::map<std::uint32_t, CommRecord> comms;  // by CommRecord::comm
};

bool readRank(const std::string& path, Rank& r) {
  std::ifstream f(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < kHeaderBytes) return std::fprintf(stderr, "%s: shorter than its header\n", path.c_str()), false;
  alignas(8) std::uint8_t head[sizeof(FileHeader)];
  std::memcpy(head, bytes.data(), sizeof head);
  const auto& h = *reinterpret_cast<const FileHeader*>(head);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.version != kVersion)
    return std::fprintf(stderr, "%s: not a version %u capture\n", path.c_str(), kVersion), false;
  r.world_rank = h.world_rank;
  const std::uint64_t committed = h.committed.load();
  if (kHeaderBytes + committed > bytes.size()) return std::fprintf(stderr, "%s: cut short\n", path.c_str()), false;
  const auto* base = reinterpret_cast<const std::uint8_t*>(bytes.data()) + kHeaderBytes;
  for (std::uint64_t at = 0; at < committed;) {
    RecordHead rh;
    std::memcpy(&rh, base + at, sizeof rh);
    if (rh.size < sizeof rh || rh.size % 8 || at + rh.size > committed)
      return std::fprintf(stderr, "%s: a record of %u bytes at %llu\n", path.c_str(), rh.size,
                          (unsigned long long)at), false;
    const std::uint8_t* p = base + at;
    if (RecordType(rh.type) == RecordType::comm) {
      CommRecord c;
      std::memcpy(&c, p, sizeof c);
      r.comms[c.comm] = c;
    }
    if (RecordType(rh.type) == RecordType::call) {
      Call c;
      std::memcpy(c.raw, p, sizeof c.raw);
      const CallRecord& k = c.rec();
      c.in.assign(p + sizeof k, p + sizeof k + k.in_kept);
      const std::uint8_t* o = p + sizeof k + pad8(k.in_kept);
      if (k.t_exit.load() != 0) c.out.assign(o, o + k.out_kept);
      r.calls.push_back(std::move(c));
    }
    at += rh.size;
  }
  return true;
}

int v(int r, int i) { return r * 1000 + i; }
std::vector<std::uint8_t> ints(const std::vector<int>& a) {
  std::vector<std::uint8_t> b(a.size() * 4);
  std::memcpy(b.data(), a.data(), b.size());
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: tap_counts_check DIR N\n"), 2;
  const std::string dir = argv[1];
  const int N = std::atoi(argv[2]);
  std::vector<Rank> ranks(static_cast<std::size_t>(N));
  DIR* d = opendir(dir.c_str());
  if (!d) return std::fprintf(stderr, "FAIL: no capture folder %s\n", dir.c_str()), 1;
  int files = 0;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind("tap-", 0) != 0 || n.size() < 6 || n.substr(n.size() - 6) != kFileSuffix) continue;
    Rank r;
    if (!readRank(dir + "/" + n, r)) return closedir(d), 1;
    ++files;
    if (r.world_rank >= 0 && r.world_rank < N) ranks[std::size_t(r.world_rank)] = std::move(r);
  }
  closedir(d);
  if (files != N) return std::fprintf(stderr, "FAIL: %d capture files for %d ranks\n", files, N), 1;
  const int total = N * (N + 1) / 2;
  std::map<std::uint64_t, std::set<int>> inter_ids;  // id -> ranks
  for (int r = 0; r < N; ++r) {
    const Rank& k = ranks[std::size_t(r)];
    if (k.calls.size() != 4) {
      EXPECT(false, "rank %d: %zu calls recorded, the program made 4", r, k.calls.size());
      continue;
    }
    // 0: reduce_scatter, rank r's block is r + 1 ints from r(r+1)/2 on.
    const CallRecord& rs = k.calls[0].rec();
    std::vector<int> in, sum;
    for (int i = 0; i < total; ++i) in.push_back(v(r, i));
    for (int j = 0, from = r * (r + 1) / 2; j <= r; ++j) {
      int s = 0;
      for (int q = 0; q < N; ++q) s += v(q, from + j);
      sum.push_back(s);
    }
    EXPECT(Func(rs.head.sub) == Func::reduce_scatter, "rank %d call 0: %s, not MPI_Reduce_scatter", r,
           funcName(Func(rs.head.sub)));
    EXPECT(rs.in_elems == std::uint32_t(total) && rs.out_elems == std::uint32_t(r + 1),
           "rank %d reduce_scatter: %u elements in, %u out, where %d in and its own count %d out", r, rs.in_elems,
           rs.out_elems, total, r + 1);
    EXPECT(k.calls[0].in == ints(in), "rank %d reduce_scatter: %zu input bytes kept", r, k.calls[0].in.size());
    EXPECT(k.calls[0].out == ints(sum), "rank %d reduce_scatter: %zu output bytes kept where its %d ints belong", r,
           k.calls[0].out.size(), r + 1);
    // 1: gatherv to rank 0: every count arrives at the root.
    const CallRecord& gv = k.calls[1].rec();
    EXPECT(Func(gv.head.sub) == Func::gatherv && gv.root == 0, "rank %d call 1: %s root %d, not MPI_Gatherv to 0",
           r, funcName(Func(gv.head.sub)), gv.root);
    EXPECT(gv.in_elems == std::uint32_t(r + 1), "rank %d gatherv: %u elements in, not %d", r, gv.in_elems, r + 1);
    EXPECT(gv.out_elems == std::uint32_t(r == 0 ? total : 0), "rank %d gatherv: %u elements out, not %d", r,
           gv.out_elems, r == 0 ? total : 0);
    // 2: allgatherv in place: the input is this rank's part, found at its
    // displacement r(r+1)/2 (not r * its count), and every part arrives.
    const CallRecord& ag = k.calls[2].rec();
    std::vector<int> mine, all;
    for (int j = 0; j <= r; ++j) mine.push_back(v(r, j));
    for (int q = 0; q < N; ++q)
      for (int j = 0; j <= q; ++j) all.push_back(v(q, j));
    EXPECT(Func(ag.head.sub) == Func::allgatherv && (ag.head.flags & kInPlace),
           "rank %d call 2: %s flags %x, not MPI_Allgatherv in place", r, funcName(Func(ag.head.sub)), ag.head.flags);
    EXPECT(ag.in_elems == std::uint32_t(r + 1) && ag.out_elems == std::uint32_t(total),
           "rank %d allgatherv in place: %u elements in, %u out, not %d and %d", r, ag.in_elems, ag.out_elems, r + 1,
           total);
    EXPECT(k.calls[2].in == ints(mine), "rank %d allgatherv in place: its input bytes are not its own part", r);
    EXPECT(k.calls[2].out == ints(all), "rank %d allgatherv in place: %zu output bytes kept", r,
           k.calls[2].out.size());
    // 3: a barrier on the intercommunicator of the even and the odd ranks.
    const CallRecord& ib = k.calls[3].rec();
    const auto it = k.comms.find(ib.comm);
    EXPECT(Func(ib.head.sub) == Func::barrier && it != k.comms.end(), "rank %d call 3: %s on comm %u, not a barrier on a comm it recorded", r,
           funcName(Func(ib.head.sub)), ib.comm);
    if (it != k.comms.end()) {
      const CommRecord& c = it->second;
      EXPECT(CommKind(c.head.sub) == CommKind::intercomm_create && (c.head.flags & kCommInter),
             "rank %d: the barrier's comm is of kind %u flags %x, not an intercommunicator", r, unsigned(c.head.sub),
             unsigned(c.head.flags));
      inter_ids[c.id].insert(r);
    }
  }
  // Both groups agree on the intercommunicator's id.
  EXPECT(inter_ids.size() == 1, "the intercommunicator has %zu ids across the %d ranks (even and odd differ)",
         inter_ids.size(), N);
  if (g_failures) return std::fprintf(stderr, "%d failures\n", g_failures), 1;
  std::printf("tap_counts_check: %d ranks: each one's own counts and parts, one intercommunicator id\n", N);
  return 0;
}
