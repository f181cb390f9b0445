// What a file is, from its first bytes (readers.h detect): a pickle opens
// with PROTO (or a protocol-0 GLOBAL: refused by the reader, but named as a
// pickle); JSON by the keys of its first value or line; text by the lines
// each tool prints. Never the file's name.
#include <cstring>

#include "engine/job/readers.h"

namespace collviz::job {
namespace {

constexpr std::size_t kSniff = 64 * 1024;

std::string_view trimLeft(std::string_view s) {
  if (s.size() >= 3 && std::memcmp(s.data(), "\xef\xbb\xbf", 3) == 0) s.remove_prefix(3);  // BOM
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool has(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// A key in the first JSON value: `"key"` followed by a colon.
bool key(std::string_view s, std::string_view k) {
  for (std::size_t at = s.find(k); at != std::string_view::npos; at = s.find(k, at + 1)) {
    if (at == 0 || s[at - 1] != '"' || at + k.size() >= s.size() || s[at + k.size()] != '"') continue;
    std::size_t c = at + k.size() + 1;
    while (c < s.size() && (s[c] == ' ' || s[c] == '\t' || s[c] == '\n' || s[c] == '\r')) ++c;
    if (c < s.size() && s[c] == ':') return true;
  }
  return false;
}

std::optional<Format> jsonKind(std::string_view head) {
  if (head.front() == '[') {  // the example profiler plugin's Chrome trace: a list of events
    if (key(head, "ph") && (key(head, "cat") || key(head, "ts"))) return Format::nccl_profiler_trace;
    return std::nullopt;
  }
  if (key(head, "pg_config") || (key(head, "entries") && key(head, "version")) || key(head, "pg_status"))
    return Format::flight_recorder_json;
  if (key(head, "communicators") || (key(head, "nccl_version") && key(head, "ras"))) return Format::nccl_ras_json;
  if (key(head, "event") && key(head, "group") && key(head, "timestamp")) return Format::nccl_ras_event;
  if (key(head, "header") && (key(head, "coll_perf") || key(head, "p2p_perf") || key(head, "inspector_output_format_version")))
    return Format::nccl_inspector;
  if (key(head, "recordType") || has(head, "\"ProfilerLifecycle\"") || (key(head, "commId") && key(head, "eventAddr")))
    return Format::nccl_profiler_lines;
  return std::nullopt;
}

bool rasText(std::string_view s) {
  return has(s, "\nCommunicators...") || s.rfind("Communicators...", 0) == 0 || has(s, "Job summary\n=====") ||
         (has(s, "Errors\n======") && has(s, "Warnings\n========")) ||
         (has(s, "Group ") && has(s, "Comms") && has(s, "in group") && has(s, "per comm"));
}

bool ncclTests(std::string_view s) {
  return has(s, "# nThread ") || has(s, "#  Rank ") || has(s, "# Using devices") ||
         (has(s, "#wrong") && has(s, "busbw")) || has(s, "# Collective test starting");
}

bool ncclLog(std::string_view s) { return has(s, " NCCL INFO ") || has(s, " NCCL WARN "); }

}  // namespace

std::optional<Format> detect(std::string_view bytes, std::optional<Format>* also) {
  if (also) also->reset();
  const std::string_view raw = bytes.substr(0, kSniff);
  // collviz's own capture: its magic, whatever version follows (the reader says which it reads).
  if (raw.size() >= 6 && std::memcmp(raw.data(), "CVZTAP", 6) == 0) return Format::capture;
  if (!raw.empty() && static_cast<unsigned char>(raw[0]) == 0x80 && (raw.size() == 1 || (raw[1] >= 1 && raw[1] <= 5)))
    return Format::flight_recorder_pickle;
  // Protocol 0/1 pickles: GLOBAL "module\nname\n" first, or a MARK ... STOP ('.' at the end).
  if (!raw.empty() && raw[0] == 'c') {
    const std::size_t nl = raw.find('\n');
    if (nl != std::string_view::npos && nl < 128 && raw.find('\n', nl + 1) != std::string_view::npos &&
        raw.substr(1, nl - 1).find(' ') == std::string_view::npos && bytes.size() > 2 && bytes.back() == '.')
      return Format::flight_recorder_pickle;
  }
  if (!raw.empty() && (raw[0] == '(' || raw[0] == '}' || raw[0] == ']') && bytes.back() == '.') return Format::flight_recorder_pickle;
  const std::string_view s = trimLeft(raw);
  if (s.empty()) return std::nullopt;
  if (s.front() == '{' || s.front() == '[') {
    if (auto f = jsonKind(s)) return f;
  }
  std::optional<Format> found;
  auto add = [&](Format f) {
    if (!found) found = f;
    else if (also && !*also) *also = f;
  };
  if (ncclTests(s)) add(Format::nccl_tests);
  if (rasText(s)) add(Format::nccl_ras_text);
  if (ncclLog(bytes)) add(Format::nccl_log);  // its lines may come late: the whole file
  // RAS monitor events in text: "[2025-12-19 13:07:07] PEER_DEAD: ..."
  if (!found && s.size() > 22 && s[0] == '[' && s[5] == '-' && s[8] == '-' && s[20] == ']' && has(s.substr(21, 40), ": "))
    add(Format::nccl_ras_event);
  return found;
}

}  // namespace collviz::job
