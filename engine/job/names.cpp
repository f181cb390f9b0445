// What the readers share (readers.h): an op's plain name, the rank and host
// in a file's name, text made safe to show.
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "engine/job/readers.h"

namespace collviz::job {

Job oneSource(const std::string& path, Format f, std::int64_t bytes) {
  Job job;
  Source s;
  s.path = path;
  s.format = f;
  s.bytes = bytes;
  job.sources.push_back(std::move(s));
  return job;
}

std::string plainOp(std::string_view name) {
  if (auto colon = name.find(':'); colon != std::string_view::npos && colon < 16) name.remove_prefix(colon + 1);  // "nccl:", "gloo:"
  if (auto space = name.find(' '); space != std::string_view::npos) name = name.substr(0, space);                 // "send 0->3"
  std::string s;
  for (std::size_t i = 0; i < name.size() && s.size() < 64; ++i) {  // AllReduce -> all_reduce
    const char c = name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!s.empty() && s.back() != '_') s += '_';
      s += char(std::tolower(static_cast<unsigned char>(c)));
    } else {
      s += c;
    }
  }
  while (!s.empty() && s.front() == '_') s.erase(0, 1);  // _all_gather_base
  if (s.size() > 5 && s.compare(s.size() - 5, 5, "_base") == 0) s.resize(s.size() - 5);
  struct Alias {
    const char* from;
    const char* to;
  };
  static constexpr Alias kAliases[] = {
      {"allreduce", "all_reduce"},           {"allgather", "all_gather"},
      {"all_gather_into_tensor", "all_gather"}, {"reducescatter", "reduce_scatter"},
      {"reduce_scatter_tensor", "reduce_scatter"}, {"alltoall", "all_to_all"},
      {"all_to_all_single", "all_to_all"},   {"alltoallv", "all_to_all"},
      {"all_to_allv", "all_to_all"},         {"all_reduce_barrier", "barrier"},
  };
  for (const Alias& a : kAliases)
    if (s == a.from) return a.to;
  return s;
}

int ncclDtypeBytes(std::string_view d) {
  if (d.rfind("nccl", 0) == 0) d.remove_prefix(4);
  std::string s;
  for (char c : d) s += char(std::tolower(static_cast<unsigned char>(c)));
  struct Size {
    const char* name;
    int bytes;
  };
  static constexpr Size kSizes[] = {
      {"int8", 1},     {"char", 1},    {"uint8", 1},   {"int32", 4},  {"int", 4},       {"uint32", 4},
      {"int64", 8},    {"uint64", 8},  {"float16", 2}, {"half", 2},   {"float32", 4},   {"float", 4},
      {"float64", 8},  {"double", 8},  {"bfloat16", 2}, {"bf16", 2},  {"float8e4m3", 1}, {"float8e5m2", 1},
  };
  for (const Size& z : kSizes)
    if (s == z.name) return z.bytes;
  return 0;
}

double busFactor(std::string_view op, int n) {
  if (n < 1) return 0;
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") return double(n - 1) / n;
  if (op == "broadcast" || op == "reduce" || op == "send" || op == "recv" || op == "gather" || op == "scatter") return 1;
  return 0;
}

std::string hashId(std::string_view h, bool decimal) {
  if (!decimal && (h.rfind("0x", 0) == 0 || h.rfind("0X", 0) == 0)) h.remove_prefix(2);
  std::uint64_t v = 0;
  if (h.empty() || h.size() > (decimal ? 20u : 16u)) return clean(h, 40);
  for (char c : h) {
    const int d = c >= '0' && c <= '9' ? c - '0' : decimal ? -1 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return clean(h, 40);
    v = v * (decimal ? 10 : 16) + std::uint64_t(d);
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool rankFromName(const std::string& path, int& rank, std::string& host) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* ext : {".pkl", ".pickle", ".json", ".txt"}) {
    const std::size_t n = std::string(ext).size();
    if (name.size() > n && name.compare(name.size() - n, n, ext) == 0) name.resize(name.size() - n);
  }
  std::size_t end = name.size(), start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1]))) --start;
  if (start == end || end - start > 7) return false;
  rank = std::stoi(name.substr(start, end - start));
  // What is before the number, less the prefixes PyTorch and the analysers use, is the host.
  std::string before = name.substr(0, start);
  for (const char* prefix : {"nccl_trace_rank_", "_dump_", "dump_", "trace_rank_", "rank_", "rank", "_dump"}) {
    const std::size_t at = before.rfind(prefix);
    if (at != std::string::npos) {
      const std::string rest = before.substr(at + std::string(prefix).size());  // "_dump_node3_5": node3
      before = before.substr(0, at) + rest;
      break;
    }
  }
  while (!before.empty() && (before.back() == '_' || before.back() == '.' || before.back() == '-')) before.pop_back();
  while (!before.empty() && (before.front() == '_' || before.front() == '.' || before.front() == '-')) before.erase(0, 1);
  host = clean(before, 64);
  return true;
}

std::vector<std::string> splitLines(std::string_view s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < s.size() && out.size() < kMaxLines) {
    std::size_t nl = s.find('\n', at);
    if (nl == std::string_view::npos) nl = s.size();
    out.emplace_back(s.substr(at, nl - at));
    if (!out.back().empty() && out.back().back() == '\r') out.back().pop_back();
    at = nl + 1;
  }
  return out;
}

std::string clean(std::string_view s, std::size_t max) {
  std::string out;
  out.reserve(std::min(s.size(), max));
  std::size_t i = 0;
  while (i < s.size() && out.size() < max) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + std::size_t(n) <= s.size();
    for (int k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + std::size_t(k)]) >> 6) == 2;
    if (!ok) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
    } else if (n == 1 && (c < 0x20 || c == 0x7f)) {
      out += ' ';
      ++i;
    } else {
      out.append(s.substr(i, std::size_t(n)));
      i += std::size_t(n);
    }
  }
  if (i < s.size()) out += "…";
  return out;
}

}  // namespace collviz::job
