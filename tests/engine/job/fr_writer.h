// Writes Flight Recorder dumps for tests and the benchmark: a pickle the way
// torch's pickler writes dump_dict (torch/csrc/distributed/c10d/
// FlightRecorderDetail.hpp; protocol 2: PROTO, EMPTY_DICT, MARK ...
// SETITEMS, BINUNICODE, BININT*, LONG1, BINFLOAT, NONE, NEWTRUE/NEWFALSE,
// EMPTY_LIST ... APPENDS, TUPLE2, its strings memoized with BINPUT and read
// again with BINGET), or the JSON dump_json writes (pg_status' numbers as
// strings, 0 for no time, a group as a list, comm_lib_version). Not a stand-
// in for anything: it writes the real format, so the reader is tested on
// dumps of any shape (10 000 ranks, 20 000 entries, a mismatch) that no real
// file here has.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace collviz::test {

struct FrEntry {
  std::string pg = "0", desc = "default_pg";
  std::int64_t pgId = 0, seq = 1, p2pSeq = 0, record = 0;
  std::string name = "nccl:all_reduce";
  std::vector<std::vector<std::int64_t>> in{{1024}}, out{{1024}};
  std::string dtype = "Float";
  std::string state = "completed";
  std::int64_t created = 1000, started = 0, completed = 0;
  bool p2p = false;
};

struct FrGroup {
  std::string name, desc;
  std::vector<int> ranks;
};

struct FrStatus {
  std::int64_t enqueued = -1, started = -1, completed = -1;
};

struct FrDump {
  std::string version = "2.9";
  std::string library = "2.27.3";
  bool commLibKey = false;  // "comm_lib_version" (2.10 on) rather than "nccl_version"
  std::vector<FrGroup> groups;
  std::map<std::int64_t, FrStatus> status;  // pg_id -> counts
  std::vector<FrEntry> entries;
};

inline std::string ranksText(const std::vector<int>& r) {
  std::string s = "[";
  for (std::size_t i = 0; i < r.size(); ++i) s += (i ? ", " : "") + std::to_string(r[i]);
  return s + "]";
}

class PickleWriter {
 public:
  std::string out;
  void proto() { out += "\x80\x02"; }
  void stop() { out += '.'; }
  void mark() { out += '('; }
  void str(const std::string& s) {
    auto it = memo_.find(s);
    if (it != memo_.end()) {
      get(it->second);
      return;
    }
    out += 'X';
    u32(std::uint32_t(s.size()));
    out += s;
    put(s);
  }
  void integer(std::int64_t v) {
    if (v >= 0 && v < 256) out += 'K', out += char(v);
    else if (v >= 0 && v < 65536) out += 'M', out += char(v & 255), out += char(v >> 8);
    else if (v >= INT32_MIN && v <= INT32_MAX) out += 'J', u32(std::uint32_t(std::int32_t(v)));
    else {
      out += '\x8a';
      out += char(8);
      for (int k = 0; k < 8; ++k) out += char((std::uint64_t(v) >> (8 * k)) & 255);
    }
  }
  void real(double d) {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    out += 'G';
    for (int k = 7; k >= 0; --k) out += char((b >> (8 * k)) & 255);
  }
  void none() { out += 'N'; }
  void boolean(bool b) { out += b ? '\x88' : '\x89'; }
  void emptyDict() { out += '}'; }
  void emptyList() { out += ']'; }
  void setitems() { out += 'u'; }
  void appends() { out += 'e'; }
  void tuple2() { out += '\x86'; }

 private:
  void u32(std::uint32_t v) {
    for (int k = 0; k < 4; ++k) out += char((v >> (8 * k)) & 255);
  }
  void put(const std::string& s) {
    const std::uint32_t i = next_++;
    memo_[s] = i;
    if (i < 256) out += 'q', out += char(i);
    else out += 'r', u32(i);
  }
  void get(std::uint32_t i) {
    if (i < 256) out += 'h', out += char(i);
    else out += 'j', u32(i);
  }
  std::map<std::string, std::uint32_t> memo_;
  std::uint32_t next_ = 0;
};

inline std::string pickleDump(const FrDump& d) {
  PickleWriter w;
  w.proto();
  w.emptyDict();
  w.mark();
  w.str("version"), w.str(d.version);
  w.str("pg_config"), w.emptyDict(), w.mark();
  for (const FrGroup& g : d.groups) {
    w.str(g.name), w.emptyDict(), w.mark();
    w.str("name"), w.str(g.name), w.str("desc"), w.str(g.desc), w.str("ranks"), w.str(ranksText(g.ranks));
    w.setitems();
  }
  w.setitems();
  w.str(d.commLibKey ? "comm_lib_version" : "nccl_version"), w.str(d.library);
  w.str("pg_status"), w.emptyDict(), w.mark();
  for (const auto& [id, s] : d.status) {
    w.str(std::to_string(id)), w.emptyDict(), w.mark();
    w.str("last_enqueued_collective"), w.integer(s.enqueued);
    w.str("last_started_collective"), w.integer(s.started);
    w.str("last_completed_collective"), w.integer(s.completed);
    w.setitems();
  }
  w.setitems();
  w.str("entries"), w.emptyList();
  auto sizes = [&](const std::vector<std::vector<std::int64_t>>& v) {
    w.emptyList(), w.mark();
    for (const auto& t : v) {
      w.emptyList(), w.mark();
      for (std::int64_t x : t) w.integer(x);
      w.appends();
    }
    w.appends();
  };
  for (std::size_t i = 0; i < d.entries.size(); ++i) {
    if (i % 1000 == 0) w.mark();  // APPENDS in batches, as pickle does
    const FrEntry& e = d.entries[i];
    w.emptyDict(), w.mark();
    w.str("record_id"), w.integer(e.record);
    w.str("pg_id"), w.integer(e.pgId);
    w.str("process_group"), w.str(e.pg), w.str(e.desc), w.tuple2();
    w.str("thread_name"), w.str("pt_main_thread");
    w.str("collective_seq_id"), w.integer(e.p2p ? 0 : e.seq);
    w.str("p2p_seq_id"), w.integer(e.p2p ? e.seq : 0);
    w.str("op_id"), w.integer(e.seq);
    w.str("profiling_name"), w.str(e.name);
    w.str("time_created_ns"), w.integer(e.created);
    w.str("input_sizes"), sizes(e.in);
    w.str("input_dtypes"), w.emptyList(), w.mark(), w.str(e.dtype), w.appends();
    w.str("output_sizes"), sizes(e.out);
    w.str("output_dtypes"), w.emptyList(), w.mark(), w.str(e.dtype), w.appends();
    w.str("state"), w.str(e.state);
    w.str("time_discovered_started_ns");
    e.started ? w.integer(e.started) : w.none();
    w.str("time_discovered_completed_ns");
    e.completed ? w.integer(e.completed) : w.none();
    w.str("retired"), w.boolean(e.state == "completed");
    w.str("timeout_ms"), w.integer(600000);
    w.str("is_p2p"), w.boolean(e.p2p);
    w.setitems();
    if (i % 1000 == 999 || i + 1 == d.entries.size()) w.appends();
  }
  w.setitems();
  w.stop();
  return w.out;
}

inline std::string jsonDump(const FrDump& d) {
  nlohmann::json j;
  j["version"] = d.version;
  j[d.commLibKey ? "comm_lib_version" : "nccl_version"] = d.library;
  for (const FrGroup& g : d.groups) j["pg_config"][g.name] = {{"name", g.name}, {"desc", g.desc}, {"ranks", ranksText(g.ranks)}};
  for (const auto& [id, s] : d.status)
    j["pg_status"][std::to_string(id)] = {{"last_enqueued_collective", std::to_string(s.enqueued)},
                                          {"last_started_collective", std::to_string(s.started)},
                                          {"last_completed_collective", std::to_string(s.completed)}};
  for (const FrEntry& e : d.entries)
    j["entries"].push_back({{"record_id", e.record}, {"pg_id", e.pgId}, {"process_group", {e.pg, e.desc}},
                            {"collective_seq_id", e.p2p ? 0 : e.seq}, {"p2p_seq_id", e.p2p ? e.seq : 0}, {"op_id", e.seq},
                            {"profiling_name", e.name}, {"time_created_ns", e.created}, {"input_sizes", e.in},
                            {"input_dtypes", {e.dtype}}, {"output_sizes", e.out}, {"output_dtypes", {e.dtype}}, {"state", e.state},
                            {"time_discovered_started_ns", e.started}, {"time_discovered_completed_ns", e.completed},
                            {"retired", e.state == "completed"}, {"timeout_ms", 600000}, {"is_p2p", e.p2p}});
  return j.dump();
}

}  // namespace collviz::test
