// The calls of a lane read again from its members' files: the tiles older
// than the ring (scrolled back) and a selected call with its bytes. From the
// sparse index (the offset of every kIndexEvery-th call of the lane in each
// member file) forward, at most kIndexEvery calls of the lane and whatever
// other records lie between; nothing read is kept.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "engine/job/live_lanes.h"

namespace collviz::job {

namespace {

constexpr std::size_t kReadChunk = std::size_t(256) << 10;
constexpr std::uint64_t kScanMax = std::uint64_t(64) << 20;  // bytes looked through at most per file and read

// tap::CallRecord without its atomic: copied as read.
struct PlainCall {
  tap::RecordHead head;
  std::uint32_t comm, seq;
  std::uint8_t dtype, op;
  std::uint16_t pad;
  std::int32_t root;
  std::uint32_t in_elems, out_elems, dtype_size, in_kept, out_kept;
  std::int32_t status;
  std::uint64_t t_enter, t_exit;
};
static_assert(sizeof(PlainCall) == sizeof(tap::CallRecord) && offsetof(PlainCall, t_exit) == offsetof(tap::CallRecord, t_exit),
              "PlainCall mirrors CallRecord");

struct Rec {
  PlainCall r;
  std::uint16_t flags = 0;
  tap::Func func = tap::Func::none;
  std::uint64_t tExit = 0;
  std::vector<std::uint8_t> in, out;
};

bool readAt(int fd, void* buf, std::size_t n, std::uint64_t off) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(off));
    if (got <= 0) return false;
    p += got, n -= std::size_t(got), off += std::uint64_t(got);
  }
  return true;
}

// The calls of seqs [a, b) of the communicator whose call record lies at
// `start` in `path`, by seq.
std::vector<std::pair<std::uint32_t, Rec>> scan(const std::string& path, std::uint64_t start, std::uint32_t a,
                                                std::uint32_t b, bool bytes) {
  std::vector<std::pair<std::uint32_t, Rec>> out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  alignas(tap::FileHeader) unsigned char hb[sizeof(tap::FileHeader)];
  PlainCall first{};
  if (!readAt(fd, hb, sizeof hb, 0) || !readAt(fd, &first, sizeof first, start)) {
    ::close(fd);
    return out;
  }
  const auto* h = reinterpret_cast<const tap::FileHeader*>(hb);
  const std::uint64_t end = tap::kHeaderBytes + h->committed.load(std::memory_order_acquire);
  const std::uint32_t comm = first.comm;
  std::vector<unsigned char> buf;
  std::uint64_t pos = start;
  while (pos < end && pos - start < kScanMax) {
    const std::size_t want = std::size_t(std::min<std::uint64_t>(kReadChunk, end - pos));
    buf.resize(want);
    if (!readAt(fd, buf.data(), want, pos)) break;
    std::size_t at = 0;
    bool done = false;
    while (at + sizeof(tap::RecordHead) <= want) {
      tap::RecordHead head;
      std::memcpy(&head, buf.data() + at, sizeof head);
      if (head.size < sizeof head || head.size % 8 != 0) {
        done = true;
        break;
      }
      if (at + head.size > want) {
        if (at == 0 && head.size > kReadChunk) done = true;  // larger than any record the tap writes
        break;
      }
      if (head.type == std::uint8_t(tap::RecordType::call) && head.size >= sizeof(tap::CallRecord)) {
        Rec x;
        std::memcpy(&x.r, buf.data() + at, sizeof x.r);
        if (x.r.comm == comm && sizeof x.r + std::uint64_t(tap::pad8(x.r.in_kept)) + tap::pad8(x.r.out_kept) <= head.size) {
          if (x.r.seq >= b) {
            done = true;
            break;
          }
          if (x.r.seq >= a) {
            x.flags = head.flags;
            x.func = static_cast<tap::Func>(head.sub);
            x.tExit = x.r.t_exit;
            const unsigned char* p = buf.data() + at + sizeof x.r;
            if (bytes) {
              x.in.assign(p, p + x.r.in_kept);
              if (x.tExit != 0) x.out.assign(p + tap::pad8(x.r.in_kept), p + tap::pad8(x.r.in_kept) + x.r.out_kept);
            }
            out.emplace_back(x.r.seq, std::move(x));
          }
        }
      }
      at += head.size;
    }
    if (done || at == 0) break;
    pos += at;
  }
  ::close(fd);
  return out;
}

struct Member {
  int rank = -1, file = -1;
  std::string path, host;
  std::uint64_t start = 0;
};

// The lane's members with where to start reading seq `a` (under the lock).
bool members(const LiveLanes& lanes, std::uint64_t comm, std::uint32_t a, std::vector<Member>& out, LiveLane* shape) {
  bool found = false;
  lanes.view([&](const LiveData& d) {
    for (const LiveLane& ln : d.lanes) {
      if (ln.id != comm) continue;
      found = true;
      if (shape) shape->id = ln.id, shape->name = ln.name, shape->ranks = ln.ranks, shape->hosts = ln.hosts;
      for (int r : ln.ranks) {
        Member m;
        m.rank = r;
        auto f = ln.memberFile.find(r);
        if (f != ln.memberFile.end()) {
          auto ix = ln.index.find(f->second);
          if (ix != ln.index.end() && !ix->second.empty() && std::size_t(f->second) < d.filePaths.size()) {
            m.file = f->second;
            m.path = d.filePaths[std::size_t(m.file)];
            m.host = d.fileHosts[std::size_t(m.file)];
            m.start = ix->second[std::min<std::size_t>(a / kIndexEvery, ix->second.size() - 1)];
          }
        }
        out.push_back(std::move(m));
      }
    }
  });
  return found;
}

}  // namespace

std::vector<LaneTile> LiveLanes::readTiles(std::uint64_t comm, std::uint32_t from, std::uint32_t n) const {
  std::vector<LaneTile> tiles(n);
  for (std::uint32_t i = 0; i < n; ++i) tiles[i].seq = from + i;
  std::vector<Member> ms;
  if (!members(*this, comm, from, ms, nullptr)) return tiles;
  if (ms.size() > 16) ms.resize(16);  // a wide communicator: the shape from its first members
  for (const Member& m : ms) {
    if (m.file < 0) continue;
    for (auto& [seq, x] : scan(m.path, m.start, from, from + n, false)) {
      LaneTile& t = tiles[seq - from];
      if (t.func == tap::Func::none) {
        t.func = x.func, t.flags = x.flags, t.dtype = tap::DType(x.r.dtype), t.op = tap::ROp(x.r.op);
        t.root = x.r.root, t.count = x.r.in_elems, t.firstEnter = x.r.t_enter;
      }
      ++t.entered;
      if (x.tExit != 0) ++t.returned;
      t.firstEnter = std::min(t.firstEnter, x.r.t_enter);
      if (x.r.t_enter >= t.lastEnter) t.lastEnter = x.r.t_enter, t.lastRank = m.rank;
    }
  }
  return tiles;
}

Result<CapturedCall> LiveLanes::readCall(std::uint64_t comm, std::uint32_t seq) const {
  std::vector<Member> ms;
  LiveLane shape;
  if (!members(*this, comm, seq, ms, &shape)) return Error(say("no communicator {0} in the capture", comm));
  CapturedCall c;
  c.commId = comm;
  c.commName = shape.name;
  c.seq = seq;
  for (std::size_t k = 0; k < ms.size(); ++k) {
    CapturedRank cr;
    cr.worldRank = ms[k].rank;
    cr.commRank = int(k);
    cr.host = ms[k].host;
    if (ms[k].file >= 0) {
      auto got = scan(ms[k].path, ms[k].start, seq, seq + 1, true);
      if (!got.empty()) {
        Rec& x = got.front().second;
        if (c.func == tap::Func::none) {
          c.func = x.func, c.nonblocking = (x.flags & tap::kNonblocking) != 0;
          c.dtype = tap::DType(x.r.dtype), c.dtypeSize = x.r.dtype_size, c.op = tap::ROp(x.r.op), c.root = x.r.root;
        }
        cr.present = true;
        cr.returned = x.tExit != 0;
        cr.tEnter = x.r.t_enter, cr.tExit = x.tExit;
        cr.status = cr.returned ? x.r.status : 0;
        cr.flags = x.flags;
        cr.inElems = x.r.in_elems, cr.outElems = x.r.out_elems;
        cr.in = std::move(x.in), cr.out = std::move(x.out);
      }
    }
    c.ranks.push_back(std::move(cr));
  }
  if (c.func == tap::Func::none) return Error(say("call #{0} of {1} is in no member's file", seq, shape.name));
  return c;
}

}  // namespace collviz::job
