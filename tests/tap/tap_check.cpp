// Reads an MPI tap's capture folder with tap/capture_format.h alone and
// checks it against what the test program did (tests/tap/tap_prog.c, or
// the Fortran programs tap_use_mpi.f90 / tap_mpif.f90 / tap_f08.f90): one file per rank,
// every call in the program's order with its communicator, sequence
// number, flags, counts, datatype and op, the ids every member agrees on,
// the members as world ranks, and the bytes kept equal to the values the
// program computed (rank r's element i is r * 1000 + i).
// `killed` (tap_killed.c): rank 1 was killed after three calls; every call
// that returned is there, finished, and only a call in flight is not.
// `threads` (tap_threads.c): 4 threads a rank on their own duplicates of
// MPI_COMM_WORLD, 200 calls each: every one there, in order, with its bytes.
// `cap` (tap-bench-loop under COLLVIZ_TAP_MAX_MB=1): each file stops at
// 1 MiB, says how many records it lost and why, and what it holds is whole.
// `full` (tap-bench-loop on a full disk, tap_full_disk.sh): each file says
// it lost records to a full disk, and what it holds is whole.
//   usage: tap_check DIR N c|fortran|killed|threads|cap|full [--dump]
// Exit 0 when all holds, else 1 with every failure printed.
#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tap/capture_format.h"

using namespace collviz::tap;

namespace {

int g_failures = 0;
#define EXPECT(cond, ...)                                   \
  do {                                                      \
    if (!(cond)) {                                          \
      std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                    \
      std::fprintf(stderr, "\n");                           \
      ++g_failures;                                         \
    }                                                       \
  } while (0)

struct Comm {
  CommRecord rec;
  std::vector<std::int32_t> members;
  std::string name;
  bool freed = false;
};
// The records hold atomics (not copyable): kept as their bytes.
struct Call {
  alignas(8) std::uint8_t raw[sizeof(CallRecord)];
  const CallRecord& rec() const { return *reinterpret_cast<const CallRecord*>(raw); }
  std::vector<std::uint8_t> in, out;
};
struct Note {
  NoteCode code;
  std::string text;
};
struct Rank {
  std::string file;
  alignas(8) std::uint8_t raw[sizeof(FileHeader)];
  const FileHeader& head() const { return *reinterpret_cast<const FileHeader*>(raw); }
  std::map<std::uint32_t, Comm> comms;
  std::vector<Call> calls;
  std::vector<Note> notes;
};

bool readRank(const std::string& path, Rank& r) {
  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < kHeaderBytes) return std::fprintf(stderr, "%s: shorter than its header\n", path.c_str()), false;
  r.file = path;
  std::memcpy(r.raw, bytes.data(), sizeof(FileHeader));
  if (std::memcmp(r.head().magic, kMagic, sizeof kMagic) != 0 || r.head().version != kVersion) {
    std::fprintf(stderr, "%s: not a version %u capture\n", path.c_str(), kVersion);
    return false;
  }
  const std::uint64_t committed = r.head().committed.load();
  if (kHeaderBytes + committed > bytes.size()) return std::fprintf(stderr, "%s: cut short\n", path.c_str()), false;
  const auto* base = reinterpret_cast<const std::uint8_t*>(bytes.data()) + kHeaderBytes;
  for (std::uint64_t at = 0; at < committed;) {
    RecordHead h;
    std::memcpy(&h, base + at, sizeof h);
    if (h.size < sizeof h || h.size % 8 || at + h.size > committed) {
      std::fprintf(stderr, "%s: a record of %u bytes at %llu\n", path.c_str(), h.size, (unsigned long long)at);
      return false;
    }
    const std::uint8_t* p = base + at;
    switch (RecordType(h.type)) {
      case RecordType::comm: {
        Comm c;
        std::memcpy(&c.rec, p, sizeof c.rec);
        c.members.resize(std::size_t(c.rec.ranks));
        std::memcpy(c.members.data(), p + sizeof c.rec, c.members.size() * 4);
        c.name.assign(reinterpret_cast<const char*>(p + sizeof c.rec + pad8(std::uint32_t(c.members.size() * 4))),
                      c.rec.name_bytes);
        r.comms[c.rec.comm] = c;
        break;
      }
      case RecordType::comm_free: {
        CommFreeRecord fr;
        std::memcpy(&fr, p, sizeof fr);
        r.comms[fr.comm].freed = true;
        break;
      }
      case RecordType::call: {
        Call c;
        std::memcpy(c.raw, p, sizeof c.raw);
        const CallRecord& k = c.rec();
        c.in.assign(p + sizeof k, p + sizeof k + k.in_kept);
        const std::uint8_t* o = p + sizeof k + pad8(k.in_kept);
        if (k.t_exit.load() != 0) c.out.assign(o, o + k.out_kept);
        r.calls.push_back(std::move(c));
        break;
      }
      case RecordType::note: {
        NoteRecord n;
        std::memcpy(&n, p, sizeof n);
        r.notes.push_back(Note{NoteCode(n.head.sub), std::string(reinterpret_cast<const char*>(p + sizeof n), n.len)});
        break;
      }
      default:
        std::fprintf(stderr, "%s: a record of type %u\n", path.c_str(), h.type);
        return false;
    }
    at += h.size;
  }
  return true;
}

int v(int r, int i) { return r * 1000 + i; }
std::vector<std::uint8_t> ints(const std::vector<int>& a) {
  std::vector<std::uint8_t> b(a.size() * 4);
  std::memcpy(b.data(), a.data(), b.size());
  return b;
}
std::vector<std::uint8_t> doubles(const std::vector<int>& a) {
  std::vector<std::uint8_t> b(a.size() * 8);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = a[i];
    std::memcpy(b.data() + 8 * i, &d, 8);
  }
  return b;
}
std::vector<int> row(int r, int n, int from = 0) {
  std::vector<int> a;
  for (int i = 0; i < n; ++i) a.push_back(v(r, from + i));
  return a;
}
std::vector<int> sumRows(const std::vector<int>& ranks, int n) {
  std::vector<int> a(std::size_t(n), 0);
  for (int r : ranks)
    for (int i = 0; i < n; ++i) a[std::size_t(i)] += v(r, i);
  return a;
}
std::vector<int> upTo(int n) {
  std::vector<int> a;
  for (int i = 0; i < n; ++i) a.push_back(i);
  return a;
}
std::string hex(const std::vector<std::uint8_t>& b) {
  std::string s;
  char t[4];
  for (std::size_t i = 0; i < b.size() && i < 64; ++i) std::snprintf(t, sizeof t, "%02x", b[i]), s += t;
  return s;
}

// One expected call: its function, communicator ("W" world, "S" the split,
// "D" the dup, "1" self), flags that must be set, root, datatype, op, and
// the bytes kept (empty: not checked; "none": nothing kept).
struct Want {
  Func f;
  char comm;
  std::uint16_t flags;
  int root;
  DType dt;
  ROp op;
  bool check_in, check_out;
  std::vector<std::uint8_t> in, out;
};

Want want(Func f, char comm, std::uint16_t flags = 0, int root = -1, DType dt = DType::unknown, ROp op = ROp::none) {
  return Want{f, comm, flags, root, dt, op, false, false, {}, {}};
}
Want& in(Want& w, std::vector<std::uint8_t> b) { return w.check_in = true, w.in = std::move(b), w; }
Want& out(Want& w, std::vector<std::uint8_t> b) { return w.check_out = true, w.out = std::move(b), w; }

// tests/tap/tap_prog.c, call by call, as rank r of N sees it.
std::vector<Want> programC(int r, int N) {
  std::vector<Want> w;
  const auto all = upTo(N);
  std::vector<int> half;
  for (int q = r % 2; q < N; q += 2) half.push_back(q);
  const int hroot = half[0];
  Want x = want(Func::barrier, 'W');
  w.push_back(x);
  x = want(Func::bcast, 'W', 0, 1, DType::int_);  // 1
  if (r == 1) in(x, ints(row(1, 8))), out(x, {});
  else in(x, {}), out(x, ints(row(1, 8)));
  w.push_back(x);
  x = want(Func::reduce, 'W', 0, 0, DType::int_, ROp::sum);  // 2
  in(x, ints(row(r, 8))), out(x, r == 0 ? ints(sumRows(all, 8)) : std::vector<std::uint8_t>{});
  w.push_back(x);
  x = want(Func::allreduce, 'W', 0, -1, DType::double_, ROp::sum);  // 3
  in(x, doubles(row(r, 8))), out(x, doubles(sumRows(all, 8)));
  w.push_back(x);
  x = want(Func::allreduce, 'W', kInPlace, -1, DType::int_, ROp::max);  // 4
  in(x, ints(row(r, 8))), out(x, ints(row(N - 1, 8)));
  w.push_back(x);
  std::vector<int> g;
  for (int q = 0; q < N; ++q) g.push_back(v(q, 0)), g.push_back(v(q, 1));
  x = want(Func::gather, 'W', 0, 2, DType::int_);  // 5
  in(x, ints(row(r, 2))), out(x, r == 2 ? ints(g) : std::vector<std::uint8_t>{});
  w.push_back(x);
  std::vector<int> gv;
  for (int q = 0; q < N; ++q)
    for (int i = 0; i <= q; ++i) gv.push_back(v(q, i));
  x = want(Func::gatherv, 'W', 0, 0, DType::int_);  // 6
  in(x, ints(row(r, r + 1))), out(x, r == 0 ? ints(gv) : std::vector<std::uint8_t>{});
  w.push_back(x);
  x = want(Func::scatter, 'W', 0, 3, DType::int_);  // 7
  in(x, r == 3 ? ints(row(3, 2 * N)) : std::vector<std::uint8_t>{}), out(x, ints(row(3, 2, 2 * r)));
  w.push_back(x);
  int at = 0;
  for (int q = 0; q < r; ++q) at += q + 1;
  x = want(Func::scatterv, 'W', 0, 0, DType::int_);  // 8
  out(x, ints(row(0, r + 1, at)));
  w.push_back(x);
  x = want(Func::allgather, 'W', 0, -1, DType::int_);  // 9
  in(x, ints(row(r, 2))), out(x, ints(g));
  w.push_back(x);
  x = want(Func::allgatherv, 'W', 0, -1, DType::int_);  // 10
  in(x, ints(row(r, r + 1))), out(x, ints(gv));
  w.push_back(x);
  std::vector<int> t;
  for (int q = 0; q < N; ++q) t.push_back(v(q, r));
  x = want(Func::alltoall, 'W', 0, -1, DType::int_);  // 11
  in(x, ints(row(r, N))), out(x, ints(t));
  w.push_back(x);
  x = want(Func::alltoallv, 'W', 0, -1, DType::int_);  // 12
  in(x, ints(row(r, N))), out(x, ints(t));
  w.push_back(x);
  x = want(Func::alltoallw, 'W', kBytesLeftOut);  // 13
  in(x, {}), out(x, {});
  w.push_back(x);
  std::vector<int> rs;
  for (int i = 0; i < 2; ++i) rs.push_back(0);
  for (int q = 0; q < N; ++q) rs[0] += v(q, 2 * r), rs[1] += v(q, 2 * r + 1);
  x = want(Func::reduce_scatter, 'W', 0, -1, DType::int_, ROp::sum);  // 14
  in(x, ints(row(r, 2 * N))), out(x, ints(rs));
  w.push_back(x);
  x = want(Func::reduce_scatter_block, 'W', 0, -1, DType::int_, ROp::sum);  // 15
  in(x, ints(row(r, 2 * N))), out(x, ints(rs));
  w.push_back(x);
  x = want(Func::scan, 'W', 0, -1, DType::int_, ROp::sum);  // 16
  in(x, ints(row(r, 4))), out(x, ints(sumRows(upTo(r + 1), 4)));
  w.push_back(x);
  x = want(Func::exscan, 'W', 0, -1, DType::int_, ROp::sum);  // 17
  in(x, ints(row(r, 4)));
  if (r > 0) out(x, ints(sumRows(upTo(r), 4)));
  w.push_back(x);
  const std::vector<int> every_other = {v(0, 0), v(0, 2), v(0, 4), v(0, 6)};
  x = want(Func::bcast, 'W', kDerived, 0, DType::derived);  // 18: packed
  if (r == 0) in(x, ints(every_other)), out(x, {});
  else in(x, {}), out(x, ints(every_other));
  w.push_back(x);
  x = want(Func::allgather, 'W', kDerived, -1, DType::derived);  // 19: contiguous
  in(x, ints(row(r, 2))), out(x, ints(g));
  w.push_back(x);
  x = want(Func::allreduce, 'W', kUserOp, -1, DType::int_, ROp::user);  // 20
  in(x, ints(row(r, 4))), out(x, ints(sumRows(all, 4)));
  w.push_back(x);
  x = want(Func::allreduce, 'S', 0, -1, DType::int_, ROp::sum);  // 21
  in(x, ints(row(r, 4))), out(x, ints(sumRows(half, 4)));
  w.push_back(x);
  x = want(Func::bcast, 'S', 0, 0, DType::int_);  // 22: the split's rank 0 sends
  if (r == hroot) in(x, ints(sumRows(half, 4)));
  else out(x, ints(sumRows(half, 4)));
  w.push_back(x);
  x = want(Func::allreduce, 'W', kNonblocking, -1, DType::int_, ROp::sum);  // 23
  in(x, ints(row(r, 4))), out(x, ints(sumRows(all, 4)));
  w.push_back(x);
  x = want(Func::bcast, 'W', kNonblocking, 2, DType::int_);  // 24
  if (r == 2) in(x, ints(row(2, 4)));
  else out(x, ints(row(2, 4)));
  w.push_back(x);
  w.push_back(want(Func::barrier, 'W', kNonblocking));  // 25
  x = want(Func::allgather, 'W', kNonblocking, -1, DType::int_);  // 26
  in(x, ints(row(r, 2))), out(x, ints(g));
  w.push_back(x);
  x = want(Func::reduce, 'W', kNonblocking, 1, DType::int_, ROp::sum);  // 27
  in(x, ints(row(r, 4))), out(x, r == 1 ? ints(sumRows(all, 4)) : std::vector<std::uint8_t>{});
  w.push_back(x);
  x = want(Func::allreduce, '1', 0, -1, DType::int_, ROp::sum);  // 28
  in(x, ints(row(r, 1))), out(x, ints(row(r, 1)));
  w.push_back(x);
  w.push_back(want(Func::barrier, 'D'));  // 29
  return w;
}

// tests/tap/tap_use_mpi.f90, tap_mpif.f90 and tap_f08.f90 (the same calls).
std::vector<Want> programFortran(int r, int N) {
  std::vector<Want> w;
  const auto all = upTo(N);
  std::vector<int> half;
  for (int q = r % 2; q < N; q += 2) half.push_back(q);
  const std::uint16_t F = kFortran;
  w.push_back(want(Func::barrier, 'W', F));
  Want x = want(Func::bcast, 'W', F, 0, DType::f_integer);
  if (r == 0) in(x, ints(row(0, 4)));
  else out(x, ints(row(0, 4)));
  w.push_back(x);
  x = want(Func::allreduce, 'W', F, -1, DType::f_double_precision, ROp::sum);
  in(x, doubles(row(r, 4))), out(x, doubles(sumRows(all, 4)));
  w.push_back(x);
  x = want(Func::allreduce, 'W', F | kInPlace, -1, DType::f_integer, ROp::sum);
  in(x, ints(row(r, 4))), out(x, ints(sumRows(all, 4)));
  w.push_back(x);
  std::vector<int> g;
  for (int q = 0; q < N; ++q) g.push_back(v(q, 0)), g.push_back(v(q, 1));
  x = want(Func::gather, 'W', F, 1, DType::f_integer);
  in(x, ints(row(r, 2))), out(x, r == 1 ? ints(g) : std::vector<std::uint8_t>{});
  w.push_back(x);
  x = want(Func::allreduce, 'W', F | kNonblocking, -1, DType::f_integer, ROp::sum);
  in(x, ints(row(r, 4))), out(x, ints(sumRows(all, 4)));
  w.push_back(x);
  x = want(Func::allreduce, 'S', F, -1, DType::f_integer, ROp::sum);
  in(x, ints(row(r, 4))), out(x, ints(sumRows(half, 4)));
  w.push_back(x);
  return w;
}

void dump(const Rank& r) {
  std::printf("%s: rank %d of %d, host %s, pid %lld, bytes %u, lost %llu (%u), finalized %u, program %s, %s\n",
              r.file.c_str(), r.head().world_rank, r.head().world_size, r.head().host, (long long)r.head().pid,
              r.head().bytes_limit, (unsigned long long)r.head().lost_records.load(), r.head().lost_reason.load(),
              r.head().finalized.load(), r.head().program, r.head().library_version);
  for (const auto& n : r.notes) std::printf("  note %u: %s\n", unsigned(n.code), n.text.c_str());
  for (const auto& [num, c] : r.comms) {
    std::printf("  comm %u kind %u id %llx parent %llx rank %d color %d key %d%s name '%s' members", num,
                c.rec.head.sub, (unsigned long long)c.rec.id, (unsigned long long)c.rec.parent, c.rec.my_rank,
                c.rec.color, c.rec.key, c.freed ? " freed" : "", c.name.c_str());
    for (int m : c.members) std::printf(" %d", m);
    std::printf("\n");
  }
  for (const auto& call : r.calls) {
    const CallRecord& c = call.rec();
    std::printf("  %s comm %u seq %u flags %x root %d %s/%u %s in %u/%u out %u/%u status %d %lluns in=%s out=%s\n",
                funcName(Func(c.head.sub), c.head.flags & kNonblocking), c.comm, c.seq,
                c.head.flags, c.root, dtypeName(DType(c.dtype)), c.dtype_size,
                ropName(ROp(c.op)), c.in_elems, c.in_kept, c.out_elems, c.out_kept,
                c.status, (unsigned long long)(c.t_exit.load() - c.t_enter), hex(call.in).c_str(),
                hex(call.out).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return std::fprintf(stderr, "usage: tap_check DIR N c|fortran|killed|threads|cap|full [--dump]\n"), 2;
  const std::string dir = argv[1];
  const int N = std::atoi(argv[2]);
  const bool fortran = std::string(argv[3]) == "fortran";
  const bool killed = std::string(argv[3]) == "killed";
  const bool threads = std::string(argv[3]) == "threads";
  const bool cap = std::string(argv[3]) == "cap";
  const bool full = std::string(argv[3]) == "full";
  const bool show = argc > 4 && std::string(argv[4]) == "--dump";
  std::vector<Rank> ranks(static_cast<std::size_t>(N));
  std::set<int> seen;
  DIR* d = opendir(dir.c_str());
  if (!d) return std::fprintf(stderr, "FAIL: no capture folder %s\n", dir.c_str()), 1;
  int files = 0;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind("tap-", 0) != 0 || n.size() < 6 || n.substr(n.size() - 6) != kFileSuffix) continue;
    ++files;
    Rank r;
    if (!readRank(dir + "/" + n, r)) return closedir(d), 1;
    if (show) dump(r);
    EXPECT(r.head().world_rank >= 0 && r.head().world_rank < N && !seen.count(r.head().world_rank),
           "%s: world rank %d (seen: %zu)", n.c_str(), r.head().world_rank, seen.size());
    if (r.head().world_rank >= 0 && r.head().world_rank < N) seen.insert(r.head().world_rank), ranks[std::size_t(r.head().world_rank)] = std::move(r);
  }
  closedir(d);
  EXPECT(files == N, "%d capture files for %d ranks", files, N);
  if (g_failures) return 1;

  if (cap) {
    for (int r = 0; r < N; ++r) {
      const Rank& k = ranks[std::size_t(r)];
      const std::uint64_t end = kHeaderBytes + k.head().committed.load();
      EXPECT(end <= (1u << 20) && end > (1u << 20) - 4096, "rank %d: %llu bytes used of the 1 MiB cap", r,
             (unsigned long long)end);
      EXPECT(k.head().lost_records.load() > 0 && Lost(k.head().lost_reason.load()) == Lost::size_cap,
             "rank %d: %llu records lost, reason %u", r, (unsigned long long)k.head().lost_records.load(),
             k.head().lost_reason.load());
      EXPECT(k.head().finalized.load() == 1, "rank %d: MPI_Finalize not flagged", r);
      std::size_t done = 0;
      for (const auto& c : k.calls)
        done += c.rec().t_exit.load() != 0 &&
                (Func(c.rec().head.sub) == Func::barrier || (c.in.size() == 8 && c.out.size() == 8));
      EXPECT(done == k.calls.size() && done > 10000, "rank %d: %zu of %zu calls whole", r, done, k.calls.size());
    }
    if (g_failures) return std::fprintf(stderr, "%d failures\n", g_failures), 1;
    std::printf("tap_check: every file stopped at its cap and counted what it lost\n");
    return 0;
  }
  if (full) {
    for (int r = 0; r < N; ++r) {
      const Rank& k = ranks[std::size_t(r)];
      EXPECT(k.head().lost_records.load() > 0 && Lost(k.head().lost_reason.load()) == Lost::disk_full,
             "rank %d: %llu records lost, reason %u (not %u, disk_full)", r,
             (unsigned long long)k.head().lost_records.load(), k.head().lost_reason.load(),
             unsigned(Lost::disk_full));
      EXPECT(k.head().finalized.load() == 1, "rank %d: MPI_Finalize not flagged", r);
      std::size_t done = 0;
      for (const auto& c : k.calls)
        done += c.rec().t_exit.load() != 0 &&
                (Func(c.rec().head.sub) == Func::barrier || (c.in.size() == 8 && c.out.size() == 8));
      EXPECT(done == k.calls.size() && done > 0, "rank %d: %zu of %zu calls whole", r, done, k.calls.size());
      std::printf("tap_check: rank %d: %zu calls kept, %llu records lost to the full disk\n", r, done,
                  (unsigned long long)k.head().lost_records.load());
    }
    if (g_failures) return std::fprintf(stderr, "%d failures\n", g_failures), 1;
    std::printf("tap_check: every file counted what the full disk lost, and what it holds is whole\n");
    return 0;
  }
  if (threads) {
    constexpr int kThreads = 4, kCalls = 200;
    std::map<std::uint64_t, std::set<int>> members_of;  // dup id -> ranks
    for (int r = 0; r < N; ++r) {
      const Rank& k = ranks[std::size_t(r)];
      EXPECT(k.head().lost_records.load() == 0, "rank %d: records lost", r);
      std::map<std::uint32_t, int> thread_of;  // comm number -> thread (the order of the dups)
      for (const auto& [num, c] : k.comms)
        if (CommKind(c.rec.head.sub) == CommKind::dup) {
          const int t = int(thread_of.size());
          thread_of[num] = t, members_of[c.rec.id].insert(r);
        }
      EXPECT(thread_of.size() == kThreads, "rank %d: %zu duplicates", r, thread_of.size());
      EXPECT(k.calls.size() == kThreads * kCalls, "rank %d: %zu calls, not %d", r, k.calls.size(), kThreads * kCalls);
      std::map<std::uint32_t, std::uint32_t> next;
      for (const auto& call : k.calls) {
        const CallRecord& c = call.rec();
        if (!thread_of.count(c.comm)) {
          EXPECT(false, "rank %d: a call on comm %u", r, c.comm);
          continue;
        }
        const int t = thread_of[c.comm], n = int(next[c.comm]++);
        const int x = r * 1000 + t * 100 + n, y = (N * (N - 1) / 2) * 1000 + N * (t * 100 + n);
        EXPECT(c.seq == std::uint32_t(n) && c.t_exit.load() != 0, "rank %d thread %d: call %d has seq %u", r, t, n, c.seq);
        EXPECT(call.in == ints({x}) && call.out == ints({y}), "rank %d thread %d call %d: in %s out %s", r, t, n,
               hex(call.in).c_str(), hex(call.out).c_str());
      }
    }
    for (const auto& [id, who] : members_of)
      EXPECT(int(who.size()) == N, "dup id %llx held by %zu ranks", (unsigned long long)id, who.size());
    EXPECT(members_of.size() == 4, "%zu dup ids, not 4", members_of.size());
    if (g_failures) return std::fprintf(stderr, "%d failures\n", g_failures), 1;
    std::printf("tap_check: 4 threads a rank: every call in order with its bytes\n");
    return 0;
  }
  if (killed) {
    for (int r = 0; r < N; ++r) {
      const Rank& k = ranks[std::size_t(r)];
      EXPECT(k.head().finalized.load() == 0, "rank %d: MPI_Finalize flagged in a killed job", r);
      EXPECT(r == 1 ? k.calls.size() == 3 : k.calls.size() >= 3 && k.calls.size() <= 4,
             "rank %d: %zu calls recorded", r, k.calls.size());
      for (std::size_t i = 0; i < k.calls.size(); ++i) {
        const CallRecord& c = k.calls[i].rec();
        EXPECT(Func(c.head.sub) == Func::allreduce && c.comm == 0 && c.seq == i, "rank %d call %zu: %s #%u", r, i,
               funcName(Func(c.head.sub)), c.seq);
        EXPECT(k.calls[i].in == ints(row(r, 4)), "rank %d call %zu: input bytes %s", r, i, hex(k.calls[i].in).c_str());
        if (i < 3) {
          EXPECT(c.t_exit.load() != 0 && k.calls[i].out == ints(sumRows(upTo(N), 4)),
                 "rank %d call %zu returned, but its exit is %s (output %s)", r, i,
                 c.t_exit.load() ? "there" : "missing", hex(k.calls[i].out).c_str());
        } else {
          EXPECT(c.t_exit.load() == 0, "rank %d call %zu: returned while rank 1 was dead", r, i);
        }
      }
    }
    if (g_failures) return std::fprintf(stderr, "%d failures\n", g_failures), 1;
    std::printf("tap_check: rank 1 killed: every call that returned is in the capture\n");
    return 0;
  }
  std::map<char, std::map<int, std::uint64_t>> ids;  // comm tag -> rank -> id
  for (int r = 0; r < N; ++r) {
    const Rank& k = ranks[std::size_t(r)];
    EXPECT(k.head().world_size == N, "rank %d: world size %d", r, k.head().world_size);
    EXPECT(k.head().bytes_limit == kDefaultBytes, "rank %d: bytes limit %u", r, k.head().bytes_limit);
    EXPECT(k.head().lost_records.load() == 0, "rank %d: %llu records lost", r,
           (unsigned long long)k.head().lost_records.load());
    EXPECT(k.head().finalized.load() == 1, "rank %d: MPI_Finalize not flagged", r);
    EXPECT(std::string(k.head().library_version).find("Open MPI") != std::string::npos, "rank %d: library '%s'", r,
           k.head().library_version);
    EXPECT(!k.notes.empty() && k.notes[0].code == NoteCode::init, "rank %d: no init note first", r);
    // The communicators: world, and the program's own.
    std::map<std::uint32_t, char> tag;
    for (const auto& [num, c] : k.comms) {
      const CommKind kind = CommKind(c.rec.head.sub);
      std::vector<std::int32_t> expect;
      char t = '?';
      if (kind == CommKind::world) {
        t = 'W', expect.assign(N, 0);
        for (int q = 0; q < N; ++q) expect[std::size_t(q)] = q;
        EXPECT(c.rec.id == kWorldId && c.name == "MPI_COMM_WORLD", "rank %d: world id %llx name '%s'", r,
               (unsigned long long)c.rec.id, c.name.c_str());
      } else if (kind == CommKind::split) {
        t = 'S';
        for (int q = r % 2; q < N; q += 2) expect.push_back(q);
        EXPECT(c.rec.color == r % 2 && c.rec.key == r && c.rec.parent == kWorldId && c.freed,
               "rank %d: split color %d key %d parent %llx freed %d", r, c.rec.color, c.rec.key,
               (unsigned long long)c.rec.parent, c.freed);
        EXPECT(c.rec.id >> 32 == std::uint64_t(r % 2) + 1, "rank %d: split id %llx is not made by world rank %d", r,
               (unsigned long long)c.rec.id, r % 2);
      } else if (kind == CommKind::dup) {
        t = 'D', expect.assign(N, 0);
        for (int q = 0; q < N; ++q) expect[std::size_t(q)] = q;
        EXPECT(c.rec.id >> 32 == 1 && c.freed, "rank %d: dup id %llx freed %d", r, (unsigned long long)c.rec.id,
               c.freed);
      } else if (kind == CommKind::self) {
        t = '1', expect = {r};
        EXPECT((c.rec.id & kLazyBit) != 0, "rank %d: self id %llx not lazy", r, (unsigned long long)c.rec.id);
      }
      EXPECT(t != '?', "rank %d: a communicator of kind %u", r, unsigned(kind));
      EXPECT(c.members == expect, "rank %d: comm %c members differ (%zu of %zu)", r, t, c.members.size(),
             expect.size());
      int my = -1;
      for (std::size_t i = 0; i < expect.size(); ++i)
        if (expect[i] == r) my = int(i);
      EXPECT(c.rec.my_rank == my, "rank %d: comm %c my rank %d, not %d", r, t, c.rec.my_rank, my);
      tag[num] = t;
      ids[t][r] = c.rec.id;
    }
    // The calls, in the program's order.
    const std::vector<Want> w = fortran ? programFortran(r, N) : programC(r, N);
    EXPECT(k.calls.size() == w.size(), "rank %d: %zu calls recorded, the program made %zu", r, k.calls.size(),
           w.size());
    std::map<std::uint32_t, std::uint32_t> next_seq;
    for (std::size_t i = 0; i < k.calls.size() && i < w.size(); ++i) {
      const CallRecord& c = k.calls[i].rec();
      const Want& e = w[i];
      const char* f = funcName(e.f, e.flags & kNonblocking);
      EXPECT(Func(c.head.sub) == e.f, "rank %d call %zu: %s, not %s", r, i,
             funcName(Func(c.head.sub), c.head.flags & kNonblocking), f);
      EXPECT(tag.count(c.comm) && tag[c.comm] == e.comm, "rank %d call %zu (%s): comm %u, not %c", r, i, f, c.comm,
             e.comm);
      EXPECT(c.seq == next_seq[c.comm], "rank %d call %zu (%s): seq %u, not %u", r, i, f, c.seq, next_seq[c.comm]);
      next_seq[c.comm] = c.seq + 1;
      EXPECT((c.head.flags & e.flags) == e.flags && !(c.head.flags & kInPlace) == !(e.flags & kInPlace),
             "rank %d call %zu (%s): flags %x, want %x", r, i, f, c.head.flags, e.flags);
      EXPECT(!(c.head.flags & kFortran) == !fortran, "rank %d call %zu (%s): Fortran flag %x", r, i, f, c.head.flags);
      EXPECT(c.root == e.root, "rank %d call %zu (%s): root %d, not %d", r, i, f, c.root, e.root);
      if (e.dt != DType::unknown)
        EXPECT(DType(c.dtype) == e.dt, "rank %d call %zu (%s): dtype %s, not %s", r, i, f,
               dtypeName(DType(c.dtype)), dtypeName(e.dt));
      EXPECT(ROp(c.op) == e.op, "rank %d call %zu (%s): op %s, not %s", r, i, f, ropName(ROp(c.op)), ropName(e.op));
      EXPECT(c.t_exit.load() >= c.t_enter && c.t_enter > 0, "rank %d call %zu (%s): never returned", r, i, f);
      EXPECT(c.status == 0, "rank %d call %zu (%s): status %d", r, i, f, c.status);
      if (e.check_in)
        EXPECT(k.calls[i].in == e.in, "rank %d call %zu (%s): input bytes %s, the program's %s", r, i, f,
               hex(k.calls[i].in).c_str(), hex(e.in).c_str());
      if (e.check_out)
        EXPECT(k.calls[i].out == e.out, "rank %d call %zu (%s): output bytes %s, the program's %s", r, i, f,
               hex(k.calls[i].out).c_str(), hex(e.out).c_str());
      if (e.check_in && e.dt == DType::int_)
        EXPECT(c.in_elems * 4 >= k.calls[i].in.size(), "rank %d call %zu (%s): %u elements in, %zu bytes kept", r,
               i, f, c.in_elems, k.calls[i].in.size());
    }
  }
  // Every member agrees on each communicator's id; the two halves differ.
  for (const auto& [t, by_rank] : ids) {
    for (const auto& [r, id] : by_rank) {
      for (const auto& [q, other] : by_rank) {
        const bool same_comm = t != 'S' || r % 2 == q % 2;
        if (t == '1') continue;  // each process's own
        EXPECT((id == other) == same_comm, "comm %c: rank %d's id %llx, rank %d's %llx", t, r,
               (unsigned long long)id, q, (unsigned long long)other);
      }
    }
  }
  if (g_failures) return std::fprintf(stderr, "%d failures\n", g_failures), 1;
  std::printf("tap_check: %d ranks, every call as the program made it\n", N);
  return 0;
}
