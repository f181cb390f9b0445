// Checks the NCCL tap's capture of tests/tap/nccl/nccl_program.cpp against
// what the program wrote it computed (expect.h), with tap/capture_format.h
// alone (the reader, engine/job/capture.cpp, is run by nccl_tap_test.sh
// through `collviz job`).
//
//   nccl_check MODE CAPTURE_DIR PROGRAM_OUT N
// Prints what it checked; exit 0 when all of it held, 1 with each fault.
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "tests/tap/nccl/expect.h"

using namespace collviz::tap;
using collviz::tap::nccltest::Expected;

namespace {

int g_faults = 0;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      std::fprintf(stderr, "nccl_check: FAULT: " __VA_ARGS__); \
      std::fprintf(stderr, "\n");                         \
      ++g_faults;                                         \
    }                                                     \
  } while (0)

struct Comm {
  std::uint64_t id = 0, parent = 0;
  std::vector<std::int32_t> members;
  int my_rank = -1;
};
// CallRecord's layout without its atomic (copied as plain bytes).
struct PlainCall {
  RecordHead head;
  std::uint32_t comm, seq;
  std::uint8_t dtype, op;
  std::uint16_t pad;
  std::int32_t root;
  std::uint32_t in_elems, out_elems, dtype_size, in_kept, out_kept;
  std::int32_t status;
  std::uint64_t t_enter, t_exit;
};
static_assert(sizeof(PlainCall) == sizeof(CallRecord), "PlainCall");
struct Call {
  PlainCall r;
  std::uint64_t t_exit = 0;
  std::vector<std::uint8_t> in, out;
};
struct File {
  int rank = -1, size = 0;
  std::uint32_t limit = 0;
  std::map<std::uint32_t, Comm> comms;
  std::vector<Call> calls;
};

bool readFile(const std::string& path, File& f) {
  std::ifstream in(path, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (b.size() < kHeaderBytes || std::memcmp(b.data(), kMagic, sizeof kMagic) != 0) return false;
  auto h = reinterpret_cast<const FileHeader*>(b.data());
  if (h->library != std::uint32_t(Library::nccl)) return false;
  f.rank = h->world_rank, f.size = h->world_size, f.limit = h->bytes_limit;
  const std::uint64_t end = kHeaderBytes + h->committed.load();
  for (std::uint64_t at = kHeaderBytes; at + sizeof(RecordHead) <= end && at + sizeof(RecordHead) <= b.size();) {
    RecordHead head;
    std::memcpy(&head, b.data() + at, sizeof head);
    if (head.size == 0 || at + head.size > b.size()) return false;
    const char* rec = b.data() + at;
    if (head.type == std::uint8_t(RecordType::comm)) {
      CommRecord c;
      std::memcpy(&c, rec, sizeof c);
      Comm k;
      k.id = c.id, k.parent = c.parent, k.my_rank = c.my_rank;
      k.members.resize(std::size_t(c.ranks));
      std::memcpy(k.members.data(), rec + sizeof c, std::size_t(c.ranks) * 4);
      f.comms[c.comm] = k;
    } else if (head.type == std::uint8_t(RecordType::call)) {
      Call c;
      std::memcpy(&c.r, rec, sizeof c.r);
      c.t_exit = c.r.t_exit;
      c.in.assign(rec + sizeof(CallRecord), rec + sizeof(CallRecord) + c.r.in_kept);
      const char* o = rec + sizeof(CallRecord) + pad8(c.r.in_kept);
      c.out.assign(o, o + c.r.out_kept);
      f.calls.push_back(std::move(c));
    }
    at += head.size;
  }
  return true;
}

std::vector<std::uint8_t> prefix(const std::vector<std::uint8_t>& v, std::uint32_t limit) {
  return std::vector<std::uint8_t>(v.begin(), v.begin() + std::min<std::size_t>(v.size(), limit));
}

// A finished call whose kept bytes are the program's.
void sameBytes(const File& f, std::size_t i, const Expected& e) {
  const Call& c = f.calls[i];
  CHECK(c.r.head.sub == std::uint8_t(e.func), "rank %d call %zu: function %d, the program called %d", f.rank, i,
        int(c.r.head.sub), int(e.func));
  CHECK(c.t_exit != 0, "rank %d call %zu: never finished (t_exit 0)", f.rank, i);
  CHECK(c.r.status == 0, "rank %d call %zu: status %d", f.rank, i, c.r.status);
  CHECK(!(c.r.head.flags & (kCudaCopyFailed | kBytesLeftOut | kGraphCapture)), "rank %d call %zu: flags 0x%x", f.rank,
        i, unsigned(c.r.head.flags));
  CHECK(c.r.dtype == std::uint8_t(DType::nccl_float32) && c.r.dtype_size == 4, "rank %d call %zu: dtype %d size %u",
        f.rank, i, int(c.r.dtype), c.r.dtype_size);
  CHECK(c.in == prefix(e.in, f.limit), "rank %d call %zu: %zu input bytes kept, not the program's %zu (limit %u)",
        f.rank, i, c.in.size(), e.in.size(), f.limit);
  CHECK(c.out == prefix(e.out, f.limit), "rank %d call %zu: %zu output bytes kept, not the program's %zu (limit %u)",
        f.rank, i, c.out.size(), e.out.size(), f.limit);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return std::fprintf(stderr, "usage: nccl_check MODE CAPTURE_DIR PROGRAM_OUT N\n"), 2;
  const std::string mode = argv[1], dir = argv[2], out = argv[3];
  const int n = std::atoi(argv[4]);
  std::map<int, File> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() < 6 || name.compare(name.size() - 6, 6, ".cvtap") != 0) continue;
      File f;
      CHECK(readFile(dir + "/" + name, f), "%s: not an NCCL capture", name.c_str());
      CHECK(f.rank >= 0 && f.rank < n && f.size == n, "%s: rank %d of %d, not of %d", name.c_str(), f.rank, f.size, n);
      CHECK(!files.count(f.rank), "two files of rank %d", f.rank);
      files[f.rank] = std::move(f);
    }
    ::closedir(d);
  }
  CHECK(int(files.size()) == n, "%zu capture files, not %d", files.size(), n);
  std::uint64_t world = 0;
  std::map<int, std::uint64_t> split_ids;  // by color
  std::size_t calls = 0;
  for (auto& [r, f] : files) {
    std::vector<Expected> want;
    if (std::FILE* e = std::fopen((out + "/rank-" + std::to_string(r) + ".bin").c_str(), "rb"))
      want = nccltest::readExpected(e), std::fclose(e);
    calls += f.calls.size();
    // The world: the first communicator, ranks 0..n-1, one id in every file.
    CHECK(!f.comms.empty(), "rank %d: no communicator", r);
    if (f.comms.empty()) continue;
    const Comm& w = f.comms.begin()->second;
    std::vector<std::int32_t> all(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) all[std::size_t(i)] = i;
    CHECK(w.members == all && w.my_rank == r, "rank %d: the first communicator's members or rank are not the world's", r);
    if (!world) world = w.id;
    CHECK(w.id == world, "rank %d: the first communicator's id differs", r);
    if (mode == "ops") {
      CHECK(f.calls.size() == want.size(), "rank %d: %zu calls captured, the program made %zu", r, f.calls.size(),
            want.size());
      for (std::size_t i = 0; i < std::min(f.calls.size(), want.size()); ++i) sameBytes(f, i, want[i]);
      if (f.calls.size() != 12) continue;
      for (std::size_t i = 0; i < 11; ++i)
        CHECK(f.calls[i].r.comm == f.comms.begin()->first && f.calls[i].r.seq == i, "rank %d call %zu: comm %u seq %u",
              r, i, f.calls[i].r.comm, f.calls[i].r.seq);
      CHECK(f.calls[1].r.head.flags & kInPlace, "rank %d: the in-place all-reduce is not flagged", r);
      CHECK(f.calls[9].r.root == (r + 1) % n && f.calls[10].r.root == (r + n - 1) % n, "rank %d: send/recv peers %d %d",
            r, f.calls[9].r.root, f.calls[10].r.root);
      CHECK(f.calls[2].r.root == 1 && f.calls[3].r.root == 0, "rank %d: broadcast/reduce roots", r);
      // The split: its members as world ranks, in its rank order (key -rank).
      const auto it = f.comms.find(f.calls[11].r.comm);
      CHECK(it != f.comms.end() && f.calls[11].r.seq == 0, "rank %d: the split's call", r);
      if (it == f.comms.end()) continue;
      std::vector<std::int32_t> members;
      for (int q = n - 1; q >= 0; --q)
        if (q % 2 == r % 2) members.push_back(q);
      CHECK(it->second.members == members, "rank %d: the split's members are not its color's, by key", r);
      CHECK(it->second.parent == world, "rank %d: the split's parent is not the world", r);
      auto [sid, fresh] = split_ids.emplace(r % 2, it->second.id);
      CHECK(sid->second == it->second.id, "rank %d: the split's id differs from its color's", r);
    } else if (mode == "hang") {
      const std::size_t made = r == 1 ? 1 : 2;
      CHECK(f.calls.size() == made, "rank %d: %zu calls, not %zu", r, f.calls.size(), made);
      if (!f.calls.empty() && !want.empty()) sameBytes(f, 0, want[0]);
      if (r != 1 && f.calls.size() == 2) CHECK(f.calls[1].t_exit == 0, "rank %d: the hung call finished", r);
    } else if (mode == "killed") {
      if (r == 1) {
        CHECK(f.calls.size() == 4 && want.size() == 3, "rank 1: %zu calls, not 4 (3 returned, the 4th killed in)",
              f.calls.size());
        if (f.calls.size() == 4) CHECK(f.calls[3].t_exit == 0, "rank 1: the call it was killed in finished");
      }
      for (std::size_t i = 0; i < f.calls.size() && i < want.size(); ++i)
        if (r == 1 || f.calls[i].t_exit) sameBytes(f, i, want[i]);
    } else if (mode == "graph") {
      CHECK(f.calls.size() == 3 && want.size() == 3, "rank %d: %zu calls, not 3", r, f.calls.size());
      for (std::size_t i = 0; i < f.calls.size() && i < want.size(); ++i) {
        if (i == 1) {
          const Call& c = f.calls[i];
          CHECK((c.r.head.flags & kGraphCapture) && c.in.empty() && c.out.empty() && c.t_exit && c.r.status == 0,
                "rank %d call 1: the graph capture is not said (flags 0x%x, %zu/%zu bytes)", r,
                unsigned(c.r.head.flags), c.in.size(), c.out.size());
        } else {
          sameBytes(f, i, want[i]);
        }
      }
    } else if (mode == "types") {
      // Each datatype's code and size, and each reduce op, as NCCL's headers number them.
      static const std::uint32_t kSize[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
      CHECK(f.calls.size() == 12, "rank %d: %zu calls, not 12", r, f.calls.size());
      if (f.calls.size() == 12) {  // the failed group: the all-reduce says ncclGroupEnd's error, keeps no output
        const Call& c = f.calls[10];
        CHECK(c.r.head.sub == std::uint8_t(Func::nccl_allreduce) && c.t_exit && c.r.status != 0 && c.out.empty(),
              "rank %d call 10 (an all-reduce whose group failed): function %d status %d, %zu output bytes kept", r,
              int(c.r.head.sub), c.r.status, c.out.size());
        CHECK(f.calls[11].r.status != 0, "rank %d call 11 (the refused send): status 0", r);
      }
      for (std::size_t i = 0; i < f.calls.size() && i < 10; ++i) {
        const Call& c = f.calls[i];
        CHECK(c.r.dtype == std::uint8_t(int(DType::nccl_int8) + int(i)) && c.r.dtype_size == kSize[i] &&
                  c.r.op == std::uint8_t(int(ROp::nccl_sum) + int(i % 4)),
              "rank %d call %zu (ncclDataType_t %zu, ncclRedOp_t %zu): dtype %d size %u op %d, want %d size %u op %d", r,
              i, i, i % 4, int(c.r.dtype), c.r.dtype_size, int(c.r.op), int(DType::nccl_int8) + int(i), kSize[i],
              int(ROp::nccl_sum) + int(i % 4));
        CHECK(c.t_exit && c.in.size() == 4 * kSize[i] && c.out.size() == 4 * kSize[i],
              "rank %d call %zu: %zu/%zu bytes kept, not %u", r, i, c.in.size(), c.out.size(), 4 * kSize[i]);
      }
    } else if (mode == "copyfail") {
      CHECK(f.calls.size() == 3 && want.size() == 3, "rank %d: %zu calls, not 3", r, f.calls.size());
      // Rank 1: the poll's first event query fails (whichever call it asked about).
      std::size_t failed = 0;
      for (const Call& c : f.calls) failed += (c.r.head.flags & kCudaCopyFailed) && c.in.empty() && c.out.empty() ? 1 : 0;
      if (r == 1) CHECK(failed == 1, "rank 1: %zu calls flagged a failed copy with no bytes, not 1 (its event query failed)", failed);
      for (std::size_t i = 0; i < f.calls.size() && i < want.size(); ++i) {
        if (r == 1 && (f.calls[i].r.head.flags & kCudaCopyFailed)) continue;
        if (r == 0 && i == 1) {
          const Call& c = f.calls[i];
          CHECK((c.r.head.flags & kCudaCopyFailed) && c.in.empty() && c.out.empty() && c.t_exit && c.r.status == 0,
                "rank 0 call 1: the failed copy is not said (flags 0x%x, %zu/%zu bytes)", unsigned(c.r.head.flags),
                c.in.size(), c.out.size());
        } else {
          sameBytes(f, i, want[i]);
        }
      }
    }
  }
  if (mode == "ops") CHECK(split_ids.size() == 2 && split_ids[0] != split_ids[1], "the two colors' splits share an id");
  std::printf("nccl_check %s: %zu files, %zu calls: %s\n", mode.c_str(), files.size(), calls,
              g_faults ? "FAULTS" : "all as the program made them");
  return g_faults ? 1 : 0;
}
