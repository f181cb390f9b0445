// collviz's own capture (tap/capture_format.h) read into a Job: one file per
// process of a watched program. Its header gives the rank (MPI_COMM_WORLD's),
// host, pid and library; its communicator records become groups (id: the id
// every member agrees on, in hex, so the files of one job meet in one
// group), its call records calls, with what a Call has no room for (the
// kept bytes, root, reduce op, flags) beside them in Source::capture.
//
// Only what `committed` covers is read (a file that grows while read: the
// records the tap finished); a call's exit part only where its t_exit is set.
// A hostile or cut-short file stops at its first record that does not fit,
// with a note saying where; a version other than 1 is refused, named.
//
// NCCL's profiler plugin's records (tap::ProfileRecord) are joined to their
// calls at the end of the file (joinProfiles): by communicator id, function
// and NCCL's per-function number (counting only calls whose count is above
// 0, as NCCL does), the call's count checked (inside a group NCCL numbers
// by its schedule, roughly by size: where the count differs, the nearest
// unjoined call of that count), filling the Call's algorithm, protocol,
// channels and the kernel's duration.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "engine/job/readers.h"
#include "tap/capture_format.h"

namespace collviz::job {

std::string_view redopName(std::uint8_t redop) { return tap::ropName(tap::ROp(redop)); }

namespace {

// A field of a struct in the file, by its offset (the file's bytes may be
// unaligned, and the header's live fields are atomics: never copied whole).
template <typename T>
T field(std::string_view b, std::size_t at) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v{};
  if (at + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

std::string hexId(std::uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

// A NUL-terminated text of at most n bytes.
std::string text(std::string_view b, std::size_t at, std::size_t n) {
  std::string_view s = b.substr(at, n);
  if (auto z = s.find('\0'); z != std::string_view::npos) s = s.substr(0, z);
  return clean(s, n);
}

const char* kindName(tap::CommKind k) {
  switch (k) {
    case tap::CommKind::dup: return "dup";
    case tap::CommKind::split: return "split";
    case tap::CommKind::split_type: return "split_type";
    case tap::CommKind::create: return "create";
    case tap::CommKind::create_group: return "create_group";
    case tap::CommKind::cart_create: return "cart_create";
    case tap::CommKind::cart_sub: return "cart_sub";
    case tap::CommKind::graph_create: return "graph_create";
    case tap::CommKind::dist_graph_create: return "dist_graph_create";
    case tap::CommKind::intercomm_create: return "intercomm_create";
    case tap::CommKind::intercomm_merge: return "intercomm_merge";
    default: return "";
  }
}

class Reader {
 public:
  Reader(std::string_view b, const std::string& path) : b_(b), job_(oneSource(path, Format::capture, std::int64_t(b.size()))), bld_(job_) {}

  Result<Job> run() {
    using tap::FileHeader;
    Source& src = job_.sources[0];
    const std::uint32_t version = field<std::uint32_t>(b_, offsetof(FileHeader, version));
    if (b_.size() < offsetof(FileHeader, version) + 4) return Error(say("cut short: {0} bytes, less than its {1}-byte header", std::int64_t(b_.size()), std::int64_t(tap::kHeaderBytes)));
    if (std::memcmp(b_.data(), tap::kMagic, sizeof tap::kMagic) != 0 || version != tap::kVersion)
      return Error(say("capture format version {0}: this collviz reads version {1}", std::int64_t(version), std::int64_t(tap::kVersion)));
    if (b_.size() < tap::kHeaderBytes) return Error(say("cut short: {0} bytes, less than its {1}-byte header", std::int64_t(b_.size()), std::int64_t(tap::kHeaderBytes)));
    const std::uint32_t headerBytes = field<std::uint32_t>(b_, offsetof(FileHeader, header_bytes));
    if (headerBytes != tap::kHeaderBytes)
      return Error(say("its header says it is {0} bytes; version 1's is {1}", std::int64_t(headerBytes), std::int64_t(tap::kHeaderBytes)));
    rank_ = field<std::int32_t>(b_, offsetof(FileHeader, world_rank));
    if (rank_ < 0 || rank_ > kMaxRank) return Error(say("its rank {0} is not a rank number (0 to {1})", std::int64_t(rank_), std::int64_t(kMaxRank)));
    src.version = std::to_string(version);
    src.rank = rank_;
    src.host = text(b_, offsetof(FileHeader, host), sizeof(FileHeader::host));
    src.library = text(b_, offsetof(FileHeader, library_version), sizeof(FileHeader::library_version));
    Rank& r = bld_.rank(rank_);
    r.dump = 0;
    r.host = src.host;
    r.pid = field<std::int64_t>(b_, offsetof(FileHeader, pid));
    const std::int32_t world = field<std::int32_t>(b_, offsetof(FileHeader, world_size));
    if (world > 0 && world <= kMaxRank + 1) r.worldSize = world;
    const std::uint64_t lost = field<std::uint64_t>(b_, offsetof(FileHeader, lost_records));
    if (lost > 0) {
      const auto why = tap::Lost(field<std::uint32_t>(b_, offsetof(FileHeader, lost_reason)));
      const Text reason = why == tap::Lost::disk_full ? say("the disk was full")
                          : why == tap::Lost::size_cap ? say("the file reached its size cap")
                          : why == tap::Lost::no_memory ? say("the tap ran out of memory")
                                                        : say("an error growing or mapping the file");
      Builder::note(src.notes, say("the tap lost {0} records: {1}", std::int64_t(lost), reason));
    }
    std::uint64_t committed = field<std::uint64_t>(b_, offsetof(FileHeader, committed));
    const std::uint64_t room = b_.size() - tap::kHeaderBytes;
    if (committed > room) {
      Builder::note(src.notes, say("cut short: its header says {0} bytes of records, the file holds {1}: read up to its end",
                                   std::int64_t(std::min<std::uint64_t>(committed, std::uint64_t(INT64_MAX))), std::int64_t(room)));
      committed = room;
    }
    data_ = std::make_shared<CaptureData>();
    data_->nccl = field<std::uint32_t>(b_, offsetof(FileHeader, library)) == std::uint32_t(tap::Library::nccl);
    records(tap::kHeaderBytes, tap::kHeaderBytes + committed);
    joinProfiles();
    src.records = std::int64_t(job_.calls.size());
    src.capture = std::move(data_);
    bld_.finish(false);
    return std::move(job_);
  }

 private:
  struct Comm {
    int group = -1;
    std::vector<int> ranks;
    std::uint64_t id = 0;
  };
  // A communicator's calls of one function, as NCCL numbers them.
  using NcclKey = std::pair<std::uint64_t, std::uint8_t>;  // communicator id, function
  struct NcclCall {
    std::size_t call;               // index in job_.calls
    std::uint64_t in, out, ranks;   // the tap's elements and the communicator's size
    bool joined = false;
    // NCCL's count argument is one of these (all-to-all: a peer's share).
    bool fits(std::uint64_t n) const { return n == in || n == out || (ranks > 0 && (n * ranks == in || n * ranks == out)); }
  };

  void records(std::size_t at, std::size_t end) {
    Source& src = job_.sources[0];
    while (at < end) {
      if (end - at < sizeof(tap::RecordHead)) {
        Builder::note(src.notes, say("byte {0}: a record cut short: the rest not read", std::int64_t(at)));
        return;
      }
      tap::RecordHead h;
      std::memcpy(&h, b_.data() + at, sizeof h);
      if (h.size == 0 || h.size % 8 != 0) {
        Builder::note(src.notes, say("byte {0}: a record of size {1}, not a positive multiple of 8: the rest not read", std::int64_t(at), std::int64_t(h.size)));
        return;
      }
      if (h.size > end - at) {
        Builder::note(src.notes, say("byte {0}: a record of {1} bytes runs past the {2} bytes written: the rest not read", std::int64_t(at),
                                     std::int64_t(h.size), std::int64_t(end)));
        return;
      }
      const std::string_view rec = b_.substr(at, h.size);
      switch (tap::RecordType(h.type)) {
        case tap::RecordType::comm: comm(rec, at); break;
        case tap::RecordType::comm_free: {
          if (rec.size() >= sizeof(tap::CommFreeRecord)) comms_.erase(field<std::uint32_t>(rec, offsetof(tap::CommFreeRecord, comm)));
          break;
        }
        case tap::RecordType::call: call(rec, at); break;
        case tap::RecordType::note: note(rec); break;
        case tap::RecordType::profile: profile(rec, at); break;
        default: Builder::note(src.notes, say("byte {0}: a record of unknown type {1}: skipped", std::int64_t(at), std::int64_t(h.type))); break;
      }
      at += h.size;
    }
  }

  void comm(std::string_view rec, std::size_t at) {
    Source& src = job_.sources[0];
    tap::CommRecord c;
    if (rec.size() < sizeof c) return Builder::note(src.notes, say("byte {0}: a communicator record too short: skipped", std::int64_t(at)));
    std::memcpy(&c, rec.data(), sizeof c);
    const std::uint64_t rankBytes = tap::pad8(std::uint32_t(std::max(c.ranks, 0)) * 4u);
    if (c.ranks < 0 || std::size_t(c.ranks) > kMaxJobRanks || sizeof c + rankBytes + tap::pad8(c.name_bytes) > rec.size())
      return Builder::note(src.notes, say("byte {0}: a communicator record whose members or name do not fit it: skipped", std::int64_t(at)));
    Comm k;
    k.id = c.id;
    for (std::int32_t i = 0; i < c.ranks; ++i) {
      const std::int32_t r = field<std::int32_t>(rec, sizeof c + std::size_t(i) * 4);
      if (r < 0 || r > kMaxRank) return Builder::note(src.notes, say("byte {0}: a communicator with member {1}, not a rank number: skipped", std::int64_t(at), std::int64_t(r)));
      k.ranks.push_back(r);
    }
    const std::string name = clean(rec.substr(sizeof c + rankBytes, c.name_bytes), 128);
    k.group = bld_.group(hexId(c.id));
    Group& g = job_.groups[std::size_t(k.group)];
    if (g.desc.empty()) g.desc = describe(c, name);
    descs_[c.id] = g.desc;
    if (g.ranks.empty()) g.ranks = k.ranks, g.size = int(k.ranks.size());
    else if (g.ranks != k.ranks) Builder::note(src.notes, say("communicator {0} is given other members a second time: the first kept", g.id));
    comms_[c.comm] = std::move(k);
  }

  // A readable name, alike in every member's file: "MPI_COMM_WORLD", its
  // own name where set, "split(color=0) of MPI_COMM_WORLD" (the key differs
  // from member to member: left out).
  std::string describe(const tap::CommRecord& c, const std::string& name) {
    const auto kind = tap::CommKind(c.head.sub);
    if (c.id == tap::kWorldId || kind == tap::CommKind::world) return name.empty() ? "MPI_COMM_WORLD" : name;
    if (!name.empty()) return name;
    if (kind == tap::CommKind::self) return "MPI_COMM_SELF";
    if (kind == tap::CommKind::nccl) return "NCCL communicator";
    auto parent = descs_.find(c.parent);
    const std::string of = parent != descs_.end() ? parent->second : c.parent ? hexId(c.parent) : "";
    if (kind == tap::CommKind::lazy || !*kindName(kind)) return "communicator of " + std::to_string(c.ranks) + " ranks";
    std::string s = kindName(kind);
    if (kind == tap::CommKind::split) s += "(color=" + std::to_string(c.color) + ")";
    return of.empty() ? s : s + " of " + of;
  }

  void call(std::string_view rec, std::size_t at) {
    using tap::CallRecord;
    Source& src = job_.sources[0];
    if (rec.size() < sizeof(CallRecord)) return Builder::note(src.notes, say("byte {0}: a call record too short: skipped", std::int64_t(at)));
    const std::uint32_t inKept = field<std::uint32_t>(rec, offsetof(CallRecord, in_kept));
    const std::uint32_t outKept = field<std::uint32_t>(rec, offsetof(CallRecord, out_kept));
    if (std::uint64_t(sizeof(CallRecord)) + tap::pad8(inKept) + tap::pad8(outKept) > rec.size() || inKept > tap::kMaxBytes || outKept > tap::kMaxBytes)
      return Builder::note(src.notes, say("byte {0}: a call whose kept bytes do not fit its record: skipped", std::int64_t(at)));
    const std::uint32_t commNo = field<std::uint32_t>(rec, offsetof(CallRecord, comm));
    auto comm = comms_.find(commNo);
    if (comm == comms_.end())
      return Builder::note(src.notes, say("a call in communicator number {0}, which no earlier record of the file defines: skipped", std::int64_t(commNo)));
    const tap::RecordHead h = field<tap::RecordHead>(rec, 0);
    const auto func = tap::Func(h.sub);
    const bool nonblocking = h.flags & tap::kNonblocking;
    if (!*tap::funcName(func)) return Builder::note(src.notes, say("a call of unknown function {0}: skipped", std::int64_t(h.sub)));
    if (job_.calls.size() >= kMaxCalls) return Builder::note(src.notes, say("more than {0} entries: the rest not kept", std::int64_t(kMaxCalls)));
    Call c;
    c.rank = rank_;
    c.source = 0;
    c.group = comm->second.group;
    c.record = std::int64_t(data_->calls.size());
    c.seq = field<std::uint32_t>(rec, offsetof(CallRecord, seq));
    c.op = bld_.intern(tap::funcOp(func));
    c.name = bld_.intern(tap::funcName(func, nonblocking));
    const auto dtype = tap::DType(field<std::uint8_t>(rec, offsetof(CallRecord, dtype)));
    c.dtype = bld_.intern(tap::dtypeName(dtype));
    c.inElems = field<std::uint32_t>(rec, offsetof(CallRecord, in_elems));
    c.outElems = field<std::uint32_t>(rec, offsetof(CallRecord, out_elems));
    Captured x;
    x.dtypeSize = field<std::uint32_t>(rec, offsetof(CallRecord, dtype_size));
    c.bytes = (c.inElems > 0 ? c.inElems : c.outElems) * std::int64_t(x.dtypeSize);
    x.root = field<std::int32_t>(rec, offsetof(CallRecord, root));
    x.redop = field<std::uint8_t>(rec, offsetof(CallRecord, op));
    x.flags = h.flags;
    const std::uint64_t enter = field<std::uint64_t>(rec, offsetof(CallRecord, t_enter));
    const std::uint64_t exit = field<std::uint64_t>(rec, offsetof(CallRecord, t_exit));
    c.created = c.started = std::int64_t(enter);
    x.exited = exit != 0;
    c.state = x.exited ? State::completed : State::started;
    if (x.exited) {
      c.completed = std::int64_t(exit);
      if (exit >= enter) c.durationMs = float(double(exit - enter) / 1e6);
      x.status = field<std::int32_t>(rec, offsetof(CallRecord, status));
    }
    if (func == tap::Func::nccl_send || func == tap::Func::nccl_recv) {
      c.p2p = true;
      const auto& ranks = comm->second.ranks;
      if (x.root >= 0 && std::size_t(x.root) < ranks.size()) c.peer = ranks[std::size_t(x.root)];
    }
    x.inAt = data_->bytes.size();
    x.inBytes = inKept;
    data_->bytes.append(rec.substr(sizeof(CallRecord), inKept));
    x.outAt = data_->bytes.size();
    if (x.exited) {
      x.outBytes = outKept;
      data_->bytes.append(rec.substr(sizeof(CallRecord) + tap::pad8(inKept), outKept));
    }
    data_->calls.push_back(x);
    if (func >= tap::Func::nccl_allreduce && func <= tap::Func::nccl_scatter && (c.inElems > 0 || c.outElems > 0)) {
      ncclCalls_[{comm->second.id, h.sub}].push_back(
          {job_.calls.size(), std::uint64_t(c.inElems), std::uint64_t(c.outElems), comm->second.ranks.size()});
    }
    job_.calls.push_back(c);
  }

  void profile(std::string_view rec, std::size_t at) {
    if (rec.size() < sizeof(tap::ProfileRecord))
      return Builder::note(job_.sources[0].notes, say("byte {0}: a profiler record too short: skipped", std::int64_t(at)));
    profiles_.push_back(rec);
  }

  // The call NCCL numbered `seq` with `count`: the seq-th where its count
  // fits, else the nearest unjoined one that fits within a group's reach.
  static NcclCall* nearest(std::vector<NcclCall>& calls, std::uint64_t seq, std::uint64_t count) {
    constexpr std::uint64_t kReach = 256;  // calls of one function in one group, at most, looked through
    if (seq < calls.size() && !calls[seq].joined && calls[seq].fits(count)) return &calls[seq];
    for (std::uint64_t d = 1; d <= kReach; ++d) {
      if (seq >= d && seq - d < calls.size() && !calls[seq - d].joined && calls[seq - d].fits(count)) return &calls[seq - d];
      if (seq + d < calls.size() && !calls[seq + d].joined && calls[seq + d].fits(count)) return &calls[seq + d];
    }
    return nullptr;
  }

  // Each profiler record onto its call (both are in this file: the tap's
  // and the plugin's records of one process).
  void joinProfiles() {
    using tap::ProfileRecord;
    std::int64_t unmatched = 0;
    for (std::string_view rec : profiles_) {
      auto it = ncclCalls_.find({field<std::uint64_t>(rec, offsetof(ProfileRecord, comm_id)), field<std::uint8_t>(rec, offsetof(tap::RecordHead, sub))});
      NcclCall* k = it == ncclCalls_.end() ? nullptr
                                            : nearest(it->second, field<std::uint64_t>(rec, offsetof(ProfileRecord, seq)),
                                                      field<std::uint64_t>(rec, offsetof(ProfileRecord, count)));
      if (!k) {
        ++unmatched;
        continue;
      }
      k->joined = true;
      Call& c = job_.calls[k->call];
      c.algo = bld_.intern(text(rec, offsetof(ProfileRecord, algo), sizeof(ProfileRecord::algo)));
      c.proto = bld_.intern(text(rec, offsetof(ProfileRecord, proto), sizeof(ProfileRecord::proto)));
      c.channels = std::int16_t(field<std::uint8_t>(rec, offsetof(ProfileRecord, channels)));
      // The kernel's time: on the GPU's own timer where known, else as the
      // plugin saw its channels start and stop. Unfinished: left unknown.
      const std::uint64_t end = field<std::uint64_t>(rec, offsetof(ProfileRecord, kernel_end));
      const std::uint64_t start = field<std::uint64_t>(rec, offsetof(ProfileRecord, kernel_start));
      const std::uint64_t gpu = field<std::uint64_t>(rec, offsetof(ProfileRecord, kernel_gpu_ns));
      if (end != 0 && gpu > 0) c.durationMs = float(double(gpu) / 1e6);
      else if (end != 0 && start != 0 && end >= start) c.durationMs = float(double(end - start) / 1e6);
    }
    if (unmatched > 0)
      Builder::note(job_.sources[0].notes, say("{0} records of NCCL's profiler plugin match no call of the capture: not shown", unmatched));
  }

  void note(std::string_view rec) {
    Source& src = job_.sources[0];
    if (rec.size() < sizeof(tap::NoteRecord)) return;
    const std::uint32_t len = std::min<std::uint32_t>(field<std::uint32_t>(rec, offsetof(tap::NoteRecord, len)), std::uint32_t(rec.size() - sizeof(tap::NoteRecord)));
    const std::string s = clean(rec.substr(sizeof(tap::NoteRecord), len), 300);
    switch (tap::NoteCode(field<std::uint8_t>(rec, offsetof(tap::RecordHead, sub)))) {
      case tap::NoteCode::init: case tap::NoteCode::finalize: break;  // set-up, not news
      case tap::NoteCode::not_open_mpi: Builder::note(src.notes, say("the MPI library is not Open MPI: {0}", s)); break;
      case tap::NoteCode::nccl_profiler: profilerNote(s); break;
      default: Builder::note(src.notes, say("the tap says: {0}", s)); break;
    }
  }

  // The tap's word on NCCL's profiler plugin (tap/nccl/profiler_env.cpp's
  // codes): why the calls have no algorithm, protocol or kernel time.
  void profilerNote(const std::string& s) {
    Source& src = job_.sources[0];
    if (s == "none") Builder::note(src.notes, say("NCCL_PROFILER_PLUGIN=none: no algorithm, protocol or kernel time from NCCL's profiler plugin"));
    else if (s.rfind("other ", 0) == 0)
      Builder::note(src.notes, say("NCCL_PROFILER_PLUGIN names another profiler plugin ({0}): the tap works without its own (no algorithm, protocol or kernel time)", s.substr(6)));
    else if (s.rfind("old ", 0) == 0) {
      const long code = std::strtol(s.c_str() + 4, nullptr, 10);  // NCCL_VERSION_CODE: 22703 is 2.27.3
      const std::string v = std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." + std::to_string(code % 100);
      Builder::note(src.notes, say("NCCL {0} is older than 2.28: the tap's profiler plugin is absent (no algorithm, protocol or kernel time)", v));
    }
    else if (s == "not loaded") Builder::note(src.notes, say("NCCL did not load the tap's profiler plugin: no algorithm, protocol or kernel time"));
    else Builder::note(src.notes, say("the tap says: {0}", s));
  }

  std::string_view b_;
  Job job_;
  Builder bld_;
  int rank_ = -1;
  std::shared_ptr<CaptureData> data_;
  std::unordered_map<std::uint32_t, Comm> comms_;        // this file's numbers
  std::unordered_map<std::uint64_t, std::string> descs_;  // by agreed id: a parent's name
  std::map<NcclKey, std::vector<NcclCall>> ncclCalls_;    // in NCCL's numbering where no group reorders them
  std::vector<std::string_view> profiles_;                // the profiler records, joined at the end
};

}  // namespace

Result<Job> readCapture(std::string_view bytes, const std::string& path) { return Reader(bytes, path).run(); }

}  // namespace collviz::job
