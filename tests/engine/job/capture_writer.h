// Writes capture files for tests, from tap/capture_format.h's own structs:
// a FileHeader, then communicator and call records, each a multiple of 8
// bytes, `committed` covering them. The real format, so the reader is tested
// on captures of any shape (a hang, a cycle, a hostile file) without a tap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tap/capture_format.h"

namespace collviz::test {

class CaptureWriter {
 public:
  CaptureWriter(int rank, int world, const std::string& host = "node1", std::int64_t pid = 0) : b_(tap::kHeaderBytes, '\0') {
    std::memcpy(b_.data(), tap::kMagic, sizeof tap::kMagic);
    set(offsetof(tap::FileHeader, version), tap::kVersion);
    set(offsetof(tap::FileHeader, header_bytes), tap::kHeaderBytes);
    set(offsetof(tap::FileHeader, library), std::uint32_t(tap::Library::mpi));
    set(offsetof(tap::FileHeader, world_rank), std::int32_t(rank));
    set(offsetof(tap::FileHeader, world_size), std::int32_t(world));
    set(offsetof(tap::FileHeader, bytes_limit), tap::kDefaultBytes);
    set(offsetof(tap::FileHeader, pid), pid ? pid : std::int64_t(1000 + rank));
    std::memcpy(b_.data() + offsetof(tap::FileHeader, host), host.data(), std::min<std::size_t>(host.size(), 63));
    const char lib[] = "Open MPI v4.1.4";
    std::memcpy(b_.data() + offsetof(tap::FileHeader, library_version), lib, sizeof lib);
  }

  // A communicator numbered `no` in this file; members as world ranks.
  void comm(std::uint32_t no, std::uint64_t id, tap::CommKind kind, const std::vector<int>& ranks, int myRank, int color = -1,
            std::uint64_t parent = 0, const std::string& name = "") {
    tap::CommRecord c{};
    c.head.type = std::uint8_t(tap::RecordType::comm);
    c.head.sub = std::uint8_t(kind);
    c.head.size = std::uint32_t(sizeof c + tap::pad8(std::uint32_t(ranks.size()) * 4) + tap::pad8(std::uint32_t(name.size())));
    c.comm = no, c.ranks = std::int32_t(ranks.size()), c.my_rank = myRank, c.color = color, c.key = myRank;
    c.name_bytes = std::uint32_t(name.size()), c.id = id, c.parent = parent, c.t_ns = 1;
    std::string rec(c.head.size, '\0');
    std::memcpy(rec.data(), &c, sizeof c);
    if (!ranks.empty()) std::memcpy(rec.data() + sizeof c, ranks.data(), ranks.size() * 4);
    std::memcpy(rec.data() + sizeof c + tap::pad8(std::uint32_t(ranks.size()) * 4), name.data(), name.size());
    b_ += rec;
  }

  struct Call {
    std::uint32_t comm = 0, seq = 0;
    tap::Func func = tap::Func::allreduce;
    std::uint16_t flags = 0;
    tap::DType dtype = tap::DType::double_;
    tap::ROp op = tap::ROp::sum;
    std::int32_t root = -1;
    std::uint32_t inElems = 1, outElems = 1, dtypeSize = 8;
    std::uint64_t enter = 1000, exit = 2000;  // exit 0: still in the call
    std::string in, out;                      // the kept bytes
  };
  void call(const Call& k) {
    const std::uint32_t size = std::uint32_t(sizeof(tap::CallRecord) + tap::pad8(std::uint32_t(k.in.size())) + tap::pad8(std::uint32_t(k.out.size())));
    std::string rec(size, '\0');
    tap::RecordHead h{std::uint8_t(tap::RecordType::call), std::uint8_t(k.func), k.flags, size};
    std::memcpy(rec.data(), &h, sizeof h);
    auto put = [&](std::size_t at, auto v) { std::memcpy(rec.data() + at, &v, sizeof v); };
    put(offsetof(tap::CallRecord, comm), k.comm);
    put(offsetof(tap::CallRecord, seq), k.seq);
    put(offsetof(tap::CallRecord, dtype), std::uint8_t(k.dtype));
    put(offsetof(tap::CallRecord, op), std::uint8_t(k.op));
    put(offsetof(tap::CallRecord, root), k.root);
    put(offsetof(tap::CallRecord, in_elems), k.inElems);
    put(offsetof(tap::CallRecord, out_elems), k.outElems);
    put(offsetof(tap::CallRecord, dtype_size), k.dtypeSize);
    put(offsetof(tap::CallRecord, in_kept), std::uint32_t(k.in.size()));
    put(offsetof(tap::CallRecord, out_kept), std::uint32_t(k.out.size()));
    put(offsetof(tap::CallRecord, t_enter), k.enter);
    put(offsetof(tap::CallRecord, t_exit), k.exit);
    std::memcpy(rec.data() + sizeof(tap::CallRecord), k.in.data(), k.in.size());
    std::memcpy(rec.data() + sizeof(tap::CallRecord) + tap::pad8(std::uint32_t(k.in.size())), k.out.data(), k.out.size());
    b_ += rec;
  }

  // Raw bytes as a record (hostile files).
  void raw(const std::string& bytes) { b_ += bytes; }

  // The file: `committed` covering every record (or `committed` as given).
  std::string bytes(std::int64_t committed = -1) const {
    std::string s = b_;
    const std::uint64_t c = committed < 0 ? s.size() - tap::kHeaderBytes : std::uint64_t(committed);
    std::memcpy(s.data() + offsetof(tap::FileHeader, committed), &c, 8);
    return s;
  }
  template <typename T>
  void set(std::size_t at, T v) {
    std::memcpy(b_.data() + at, &v, sizeof v);
  }

 private:
  std::string b_;
};

}  // namespace collviz::test
