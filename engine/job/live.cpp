#include "engine/job/live.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <set>

namespace collviz::job {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunk = std::size_t(4) << 20;  // records read at most per file and poll
constexpr std::size_t kMaxFilesRead = 100000;         // as job::kMaxFiles

bool readAt(int fd, void* buf, std::size_t n, std::uint64_t off) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(off));
    if (got <= 0) return false;
    p += got;
    n -= std::size_t(got);
    off += std::uint64_t(got);
  }
  return true;
}

std::string cut(const char* s, std::size_t max) { return std::string(s, ::strnlen(s, max)); }

}  // namespace

// One file's reading state: where its records stand, its communicators by
// its own numbers, its calls in flight by their offset in the file.
struct LiveCapture::Tail {
  int fd = -1;
  std::uint64_t consumed = 0;   // bytes of records after the header already read
  bool stopped = false;         // a bad record or header: not read further
  std::map<std::uint32_t, std::uint64_t> commIds;  // the file's number -> the id
  struct Pending {
    std::uint64_t offset;       // of its CallRecord in the file
    std::uint32_t inKept;       // where its output bytes start: after the input's
    LiveCall call;
  };
  std::vector<Pending> pending;
  ~Tail() {
    if (fd >= 0) ::close(fd);
  }
};

LiveCapture::LiveCapture(std::string dir, bool keepBytes) : dir_(std::move(dir)), keepBytes_(keepBytes) {}
LiveCapture::~LiveCapture() = default;

const LiveComm* LiveCapture::comm(std::uint64_t id) const {
  auto it = comms_.find(id);
  return it == comms_.end() ? nullptr : &it->second;
}

std::vector<LiveCall> LiveCapture::inFlight() const {
  std::vector<LiveCall> out;
  for (const auto& t : tails_)
    for (const Tail::Pending& p : t->pending) out.push_back(p.call);
  return out;
}

std::size_t LiveCapture::inFlightCount() const {
  std::size_t n = 0;
  for (const auto& t : tails_) n += t->pending.size();
  return n;
}

std::uint64_t LiveCapture::oldestInFlightNs() const {
  std::uint64_t oldest = 0;
  for (const auto& t : tails_)
    for (const Tail::Pending& p : t->pending)
      if (oldest == 0 || p.call.tEnter < oldest) oldest = p.call.tEnter;
  return oldest;
}

void LiveCapture::scanFolder() {
  std::set<std::string> known;
  for (const LiveFile& f : files_) known.insert(f.path);
  std::error_code ec;
  std::vector<std::string> fresh;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("tap-", 0) != 0 || name.size() < std::strlen(tap::kFileSuffix) ||
        name.compare(name.size() - std::strlen(tap::kFileSuffix), std::string::npos, tap::kFileSuffix) != 0)
      continue;
    if (!it->is_regular_file(ec) || known.count(it->path().string())) continue;
    fresh.push_back(it->path().string());
  }
  std::sort(fresh.begin(), fresh.end());
  for (const std::string& path : fresh) {
    if (files_.size() >= kMaxFilesRead) break;
    auto t = std::make_unique<Tail>();
    t->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    LiveFile f;
    f.path = path;
    if (t->fd < 0) continue;  // gone or not ours to read: looked at again at the next poll
    files_.push_back(std::move(f));
    tails_.push_back(std::move(t));
  }
}

void LiveCapture::poll(std::vector<LiveCall>* returned, std::vector<LiveCall>* entered) {
  scanFolder();
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (tails_[i]->stopped) continue;
    recheck(i, returned);
    readFile(i, returned, entered);
  }
}

void LiveCapture::finishCall(std::size_t i, LiveCall& c, std::vector<LiveCall>* returned) {
  (void)i;
  ++returned_;
  ++counts_[{c.rank, c.name()}].returned;
  lastExit_ = std::max(lastExit_, c.tExit);
  if (returned) returned->push_back(c);
}

// Calls in flight: their t_exit first (the tap stores it last), then, once
// set, the rest of their exit part.
void LiveCapture::recheck(std::size_t i, std::vector<LiveCall>* returned) {
  Tail& t = *tails_[i];
  for (std::size_t k = 0; k < t.pending.size();) {
    Tail::Pending& p = t.pending[k];
    std::uint64_t exit = 0;
    if (!readAt(t.fd, &exit, sizeof exit, p.offset + offsetof(tap::CallRecord, t_exit)) || exit == 0) {
      ++k;
      continue;
    }
    LiveCall& c = p.call;
    c.tExit = exit;
    std::int32_t status = 0;
    if (readAt(t.fd, &status, sizeof status, p.offset + offsetof(tap::CallRecord, status))) c.status = status;
    std::uint32_t outKept = 0;
    // Within the record: both sizes were checked against its size when it was read.
    if (keepBytes_ && readAt(t.fd, &outKept, sizeof outKept, p.offset + offsetof(tap::CallRecord, out_kept)) && outKept > 0 &&
        outKept <= tap::kMaxBytes) {
      c.out.resize(outKept);
      if (!readAt(t.fd, c.out.data(), outKept, p.offset + sizeof(tap::CallRecord) + tap::pad8(p.inKept))) c.out.clear();
    }
    finishCall(i, c, returned);
    t.pending.erase(t.pending.begin() + std::ptrdiff_t(k));
  }
}

void LiveCapture::readFile(std::size_t i, std::vector<LiveCall>* returned, std::vector<LiveCall>* entered) {
  Tail& t = *tails_[i];
  LiveFile& f = files_[i];
  alignas(tap::FileHeader) unsigned char hb[sizeof(tap::FileHeader)];
  if (!readAt(t.fd, hb, sizeof hb, 0)) return;  // the tap has not written its header yet
  const auto* h = reinterpret_cast<const tap::FileHeader*>(hb);
  // A file the tap has made and sized but not yet written its header in
  // reads as zeros, and the tap writes the magic last (after the version):
  // no magic yet is looked at again at the next poll, whatever else is set.
  static const char kUnwritten[sizeof tap::kMagic] = {};
  if (std::memcmp(h->magic, kUnwritten, sizeof kUnwritten) == 0) return;
  if (std::memcmp(h->magic, tap::kMagic, sizeof tap::kMagic) != 0) {
    f.problem = say("not a collviz capture file (its first bytes are not the tap's)");
    t.stopped = true;
    return;
  }
  if (h->version != tap::kVersion || h->header_bytes != tap::kHeaderBytes) {
    f.problem = say("a capture of another version ({0}; this collviz reads {1})", h->version, tap::kVersion);
    t.stopped = true;
    return;
  }
  f.rank = h->world_rank;
  f.worldSize = h->world_size;
  f.pid = h->pid;
  f.host = cut(h->host, sizeof h->host);
  f.library = cut(h->library_version, sizeof h->library_version);
  f.nccl = h->library == std::uint32_t(tap::Library::nccl);
  f.program = cut(h->program, sizeof h->program);
  f.lostRecords = h->lost_records.load(std::memory_order_relaxed);
  f.lostReason = h->lost_reason.load(std::memory_order_relaxed);
  f.finalized = h->finalized.load(std::memory_order_relaxed) != 0;
  const std::uint64_t committed = h->committed.load(std::memory_order_acquire);
  if (committed <= t.consumed) return;
  const std::uint64_t want = std::min<std::uint64_t>(committed - t.consumed, kChunk);
  std::vector<unsigned char> buf(want);
  if (!readAt(t.fd, buf.data(), want, tap::kHeaderBytes + t.consumed)) return;
  std::size_t at = 0;
  while (at + sizeof(tap::RecordHead) <= want) {
    tap::RecordHead head;
    std::memcpy(&head, buf.data() + at, sizeof head);
    if (head.size < sizeof(tap::RecordHead) || head.size % 8 != 0) {
      f.problem = say("a record of size {0} at byte {1} (a record is a multiple of 8 bytes, at least 8)", head.size,
                      tap::kHeaderBytes + t.consumed + at);
      t.stopped = true;
      return;
    }
    if (at + head.size > want) {
      if (head.size > kChunk) {  // larger than any record the tap writes
        f.problem = say("a record of {0} bytes at byte {1} (larger than any record the tap writes)", head.size,
                        tap::kHeaderBytes + t.consumed + at);
        t.stopped = true;
        return;
      }
      break;  // read whole at the next poll
    }
    const unsigned char* rec = buf.data() + at;
    const std::uint64_t offset = tap::kHeaderBytes + t.consumed + at;
    switch (static_cast<tap::RecordType>(head.type)) {
      case tap::RecordType::comm: {
        tap::CommRecord c;
        if (head.size < sizeof c) break;
        std::memcpy(&c, rec, sizeof c);
        const std::uint64_t ranksBytes = tap::pad8(std::uint32_t(std::max(0, c.ranks)) * 4u);
        if (c.ranks < 0 || sizeof c + ranksBytes + tap::pad8(c.name_bytes) > head.size) break;
        t.commIds[c.comm] = c.id;
        LiveComm& lc = comms_[c.id];  // every member declares it: the first keeps it
        if (lc.id == 0) {
          lc.id = c.id;
          lc.kind = head.sub;
          lc.color = c.color;
          lc.key = c.key;
          lc.ranks.resize(std::size_t(c.ranks));
          std::memcpy(lc.ranks.data(), rec + sizeof c, std::size_t(c.ranks) * 4u);
          lc.name = cut(reinterpret_cast<const char*>(rec + sizeof c + ranksBytes), c.name_bytes);
        }
        break;
      }
      case tap::RecordType::call: {
        if (head.size < sizeof(tap::CallRecord)) break;
        const auto* r = reinterpret_cast<const tap::CallRecord*>(rec);
        if (sizeof(tap::CallRecord) + std::uint64_t(tap::pad8(r->in_kept)) + tap::pad8(r->out_kept) > head.size) break;
        LiveCall c;
        c.rank = f.rank;
        c.file = int(i);
        c.offset = offset;
        auto id = t.commIds.find(r->comm);
        c.comm = id == t.commIds.end() ? 0 : id->second;
        c.seq = r->seq;
        c.func = static_cast<tap::Func>(head.sub);
        c.flags = head.flags;
        c.dtype = static_cast<tap::DType>(r->dtype);
        c.op = static_cast<tap::ROp>(r->op);
        c.root = r->root;
        c.inElems = r->in_elems;
        c.outElems = r->out_elems;
        c.dtypeSize = r->dtype_size;
        c.tEnter = r->t_enter;
        if (keepBytes_ && r->in_kept > 0) c.in.assign(rec + sizeof(tap::CallRecord), rec + sizeof(tap::CallRecord) + r->in_kept);
        ++entered_;
        ++counts_[{c.rank, c.name()}].entered;
        const std::uint64_t exit = r->t_exit.load(std::memory_order_acquire);
        if (exit != 0) {
          c.tExit = exit;
          c.status = r->status;
          if (keepBytes_ && r->out_kept > 0) {
            const unsigned char* o = rec + sizeof(tap::CallRecord) + tap::pad8(r->in_kept);
            c.out.assign(o, o + r->out_kept);
          }
          finishCall(i, c, returned);
        } else {
          if (entered) entered->push_back(c);
          t.pending.push_back({offset, r->in_kept, std::move(c)});
        }
        break;
      }
      case tap::RecordType::note:
        if (head.sub == std::uint8_t(tap::NoteCode::not_open_mpi)) f.notOpenMpi = true;
        break;
      default:
        break;  // comm_free and records of a later minor change: skipped by their size
    }
    at += head.size;
  }
  t.consumed += at;
}

}  // namespace collviz::job
