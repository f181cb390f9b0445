// Reading an NCCL log: cutting lines, the prefix (src/debug.cc), which
// member a line belongs to, and the files (nccl_log.h).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "engine/job/nccl_log/state.h"

namespace collviz::nccl_log {

Num hexNumber(std::string_view& s, std::string& out) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return Num::none;
  std::size_t i = 2;
  auto hex = [](char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); };
  while (i < s.size() && hex(s[i])) ++i;
  if (i == 2) return Num::none;
  if (i > 2 + 16) return Num::over;
  out.assign(s.substr(0, i));
  s.remove_prefix(i);
  return Num::ok;
}

std::size_t rfindIn(std::string_view s, std::string_view needle) {
  // memrchr over the needle's last byte ('x', '=': rare), then the rest.
  if (needle.empty() || needle.size() > s.size()) return std::string_view::npos;
  const char* b = s.data();
  std::size_t len = s.size();
  while (len >= needle.size()) {
    const void* at = ::memrchr(b + needle.size() - 1, needle.back(), len - needle.size() + 1);
    if (!at) break;
    const char* end = static_cast<const char*>(at) + 1;
    if (std::memcmp(end - needle.size(), needle.data(), needle.size()) == 0) return std::size_t(end - needle.size() - b);
    len = std::size_t(end - b) - 1;
  }
  return std::string_view::npos;
}

std::size_t findIn(std::string_view s, std::string_view needle, std::size_t from) {
  if (from > s.size()) return std::string_view::npos;
  const void* at = ::memmem(s.data() + from, s.size() - from, needle.data(), needle.size());
  return at ? std::size_t(static_cast<const char*>(at) - s.data()) : std::string_view::npos;
}

namespace {

// The next " NCCL " from `from`: memchr over 'N', rare in a log line (a
// space, the needle's first byte, is everywhere).
std::size_t findNccl(std::string_view s, std::size_t from) {
  const char* b = s.data();
  const char* e = b + s.size();
  for (const char* p = b + std::min(s.size(), from + 1); p < e;) {
    p = static_cast<const char*>(std::memchr(p, 'N', std::size_t(e - p)));
    if (!p) break;
    if (p[-1] == ' ' && e - p >= 5 && std::memcmp(p, "NCCL ", 5) == 0) return std::size_t(p - b) - 1;
    ++p;
  }
  return std::string_view::npos;
}

// "host:pid:tid" and "[dev]": the last two words before " NCCL INFO" (WARN
// has "file:line" between; CALL has no "[dev]"). A timestamp may come first.
bool prefix(std::string_view head, bool warn, Where& w, bool hasDev = true) {
  auto lastWord = [&](std::string_view& h) {
    while (!h.empty() && h.back() == ' ') h.remove_suffix(1);
    std::size_t sp = h.rfind(' ');
    std::string_view word = sp == std::string_view::npos ? h : h.substr(sp + 1);
    h = sp == std::string_view::npos ? std::string_view{} : h.substr(0, sp);
    return word;
  };
  if (warn) lastWord(head);  // file:line
  std::string_view dev = hasDev ? lastWord(head) : std::string_view("[-1]");
  std::string_view hpt = lastWord(head);
  if (dev.size() < 3 || dev.front() != '[' || dev.back() != ']') return false;
  dev = dev.substr(1, dev.size() - 2);
  std::int64_t d = 0;
  if (number(dev, d) != Num::ok || !dev.empty()) return false;
  std::size_t c2 = hpt.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return false;
  std::size_t c1 = hpt.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0) return false;
  std::string_view pid = hpt.substr(c1 + 1, c2 - c1 - 1), tid = hpt.substr(c2 + 1);
  if (number(pid, w.pid, INT64_MAX) != Num::ok || !pid.empty()) return false;
  if (number(tid, w.tid, INT64_MAX) != Num::ok || !tid.empty()) return false;
  w.host = hpt.substr(0, c1);
  if (w.host.find(':') != std::string_view::npos) return false;  // "h:1:h:2:2": another prefix cut in
  w.dev = int(d);
  return true;
}

}  // namespace

int Reader::State::hostId(std::string_view host) {
  if (lastHostId >= 0 && host == lastHost) return lastHostId;
  // Bounded: a hostname is at most 255 bytes, and a log of ever new hosts
  // shares one id past kMaxMembers (attribution, not memory, suffers).
  constexpr int kOverflow = int(kMaxMembers);
  int id = kOverflow;
  if (host.size() <= 255) {
    auto it = hostIds.find(std::string(host));
    if (it != hostIds.end()) id = it->second;
    else if (hostIds.size() < kMaxMembers) id = hostIds.emplace(std::string(host), int(hostIds.size())).first->second;
  }
  if (host.size() <= 255) lastHost.assign(host), lastHostId = id;
  return id;
}

int Reader::State::newMember(const Where& w) {
  if (members.size() >= kMaxMembers) return ++counts.membersDropped, -1;
  Member m;
  m.host = std::string(w.host), m.pid = w.pid, m.dev = w.dev, m.file = file;
  members.push_back(std::move(m));
  ringLines.emplace_back();
  linkSeen.emplace_back();
  return int(members.size()) - 1;
}

int Reader::State::memberFor(const Where& w) {
  if (last.valid && last.tid == w.tid && last.pid == w.pid && last.dev == w.dev && last.host == w.hostId) return last.member;
  auto remember = [&](int m) {
    last.valid = true, last.host = w.hostId, last.pid = w.pid, last.tid = w.tid, last.dev = w.dev, last.member = m;
    return m;
  };
  const ProcKey thread = procKey(w, 't', std::uint64_t(w.tid)), dev = procKey(w, 'd', std::uint64_t(w.dev));
  auto t = byThread.find(thread);
  if (t != byThread.end()) return remember(t->second);
  auto d = byDev.find(dev);
  if (d != byDev.end()) return remember(d->second);
  const int i = newMember(w);
  if (i < 0) return -1;
  byThread[thread] = i;
  byDev[dev] = i;
  return remember(i);
}

int Reader::State::memberByPtr(const Where& w, std::string_view ptr, bool bind) {
  // "0x..." of at most 16 digits (hexNumber checked it): its value is the key.
  std::uint64_t value = 0;
  for (char c : ptr.substr(2))
    value = value << 4 | std::uint64_t(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  if (!bind && lastPtr.valid && lastPtr.pid == w.pid && lastPtr.ptr == value && lastPtr.host == w.hostId)
    return lastPtr.member;
  lastPtr.valid = false;
  const ProcKey k = procKey(w, 'p', value), thread = procKey(w, 't', std::uint64_t(w.tid));
  auto p = byPtr.find(k);
  int i = -1;
  if (p != byPtr.end()) {
    i = p->second;
  } else {
    // A member this thread already spoke for without a pointer (2.18: the
    // rings come before the only line that names the comm).
    auto t = byThread.find(thread);
    if (bind && t != byThread.end() && members[std::size_t(t->second)].ptr.empty()) i = t->second;
    else if ((i = newMember(w)) < 0) return -1;
    members[std::size_t(i)].ptr = std::string(ptr);
    byPtr[k] = i;
  }
  if (!bind) lastPtr = {true, w.hostId, value, w.pid, i};
  if (bind) {
    last.valid = false;
    if (byThread.size() > (1u << 16)) byThread.clear();  // a log of ever new threads: attribution, not memory, suffers
    if (byDev.size() > (1u << 16)) byDev.clear();
    byThread[thread] = i;
    byDev[procKey(w, 'd', std::uint64_t(w.dev))] = i;
  }
  return i;
}

void Reader::State::stashPending() {
  if (!pendingLast.valid) return;
  pendingLast.valid = false;
  if (pendingLast.choices.empty()) return;
  if (pending.size() > 4096) pending.clear();
  pending[pendingLast.thread] = std::move(pendingLast.choices);
  pendingLast.choices.clear();
}

void Reader::State::sample(std::vector<Sample>& to, Said what) {
  if (to.size() < kMaxSamples) to.push_back({file, lineNo, std::move(what)});
}

void Reader::State::line(std::string_view l) {
  ++counts.lines;
  ++lineNo;
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (l.empty()) return;
  std::size_t at = findNccl(l, 0);
  bool warn = false, call = false;
  while (at != std::string_view::npos) {
    std::string_view rest = l.substr(at + 6);
    if (startsWith(rest, "INFO ") || rest == "INFO") break;
    if (startsWith(rest, "WARN ") || rest == "WARN") { warn = true; break; }
    if (startsWith(rest, "CALL nccl")) { call = true; break; }
    at = findNccl(l, at + 6);
  }
  if (at == std::string_view::npos) {
    ++counts.foreign;
    return;
  }
  ++counts.ncclLines;
  ++streamNccl;
  std::string_view msg = l.substr(std::min(l.size(), at + 11));
  // Two processes writing one file: a second prefix inside the line.
  for (std::size_t k = findNccl(msg, 0); k != std::string_view::npos; k = findNccl(msg, k + 6)) {
    std::string_view r = msg.substr(k + 6, 5);
    if (r == "INFO " || r == "WARN ") {
      ++counts.interleaved;
      return;
    }
  }
  if (call) {
    if (callTrace(l.substr(0, at), msg).kind == Kind::read) ++counts.read;
    else ++counts.other;
    return;
  }
  // "host:pid:tid [dev]" as the last line had it (a timestamp before may differ).
  std::string_view head = l.substr(0, at);
  Where w;
  if (lastHeadValid && warn == lastWarnHead && head.size() >= lastHead.size() &&
      std::memcmp(head.data() + head.size() - lastHead.size(), lastHead.data(), lastHead.size()) == 0 &&
      (head.size() == lastHead.size() || head[head.size() - lastHead.size() - 1] == ' ')) {
    w = lastWhere;
  } else {
    if (!prefix(head, warn, w)) {
      ++counts.interleaved;  // a prefix that is not whole: cut in by another writer
      return;
    }
    // Keep from the host on (w.host then points into lastHead).
    const std::size_t from = std::size_t(w.host.data() - head.data());
    lastHead.assign(head.substr(from));
    w.hostId = hostId(w.host);
    w.host = std::string_view(lastHead).substr(0, w.host.size());
    lastWhere = w, lastWarnHead = warn, lastHeadValid = true;
  }
  if (warn) {
    ++counts.warn;
    sample(log.warnings, lit(std::string(msg.substr(0, 300))));
    return;
  }
  ++counts.info;
  Outcome o = info(w, msg);
  if (o.kind == Kind::read) ++counts.read;
  else if (o.kind == Kind::other) ++counts.other;
  else {
    ++counts.bad;
    sample(log.bad, std::move(o.why));
  }
}

// "host:pid:tid NCCL CALL ncclAllReduce(send,recv,count,dtype,op,comm,stream)"
// (NCCL_DEBUG=TRACE): the collective this thread calls next, and its
// communicator (the second-to-last argument of every collective's call).
// Some builds print its tuning line without the op ("40 Bytes -> Algo 1
// proto 0 time 8.6"): this line names it (tuningLine).
Outcome Reader::State::callTrace(std::string_view head, std::string_view msg) {
  Where w;
  if (!prefix(head, false, w, false)) return {};
  w.hostId = hostId(w.host);
  std::string_view s = msg.substr(4);  // past "nccl"
  const std::size_t paren = s.find('(');
  if (paren == std::string_view::npos || s.back() != ')') return {};
  const std::string_view name = s.substr(0, paren);
  static constexpr std::string_view kCollectives[] = {"AllReduce", "Broadcast", "Bcast", "Reduce", "AllGather",
                                                      "ReduceScatter", "AlltoAll", "AllToAll", "Gather", "Scatter"};
  if (std::find(std::begin(kCollectives), std::end(kCollectives), name) == std::end(kCollectives)) return {};
  Called c;
  c.op = std::string(name == "Bcast" ? std::string_view("Broadcast") : name);
  const std::string_view args = s.substr(paren + 1, s.size() - paren - 2);
  const std::size_t last = args.rfind(',');
  if (last != std::string_view::npos && last > 0) {
    const std::size_t before = args.rfind(',', last - 1);
    const std::size_t from = before == std::string_view::npos ? 0 : before + 1;
    std::string_view comm = args.substr(from, last - from);
    std::string ptr;
    if (hexNumber(comm, ptr) == Num::ok && comm.empty()) {
      std::uint64_t value = 0;
      for (char ch : std::string_view(ptr).substr(2))
        value = value << 4 | std::uint64_t(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
      if (auto p = byPtr.find(procKey(w, 'p', value)); p != byPtr.end()) c.member = p->second;
    }
  }
  if (called.size() > 4096) called.clear();  // a log of ever new threads: attribution, not memory, suffers
  called[procKey(w, 't', std::uint64_t(w.tid))] = std::move(c);
  return {Kind::read, {}};
}

Outcome Reader::State::info(const Where& w, std::string_view msg) {
  if (msg.empty()) return {};
  switch (msg[0]) {
    case 'C':
      if (startsWith(msg, "Channel ")) return channelLine(w, msg.substr(8));
      if (startsWith(msg, "CollNet ")) return collnetLine(w, msg.substr(8));
      break;
    case 'R':
      if (startsWith(msg, "Ring ")) return ringLine(w, msg.substr(5));
      break;
    case 'T':
      if (startsWith(msg, "Trees ")) return treesLine(w, msg.substr(5));
      if (startsWith(msg, "Tree ")) return treeLine(w, msg.substr(5));
      break;
    case 'N':
      if (startsWith(msg, "NCCL version ")) {
        if (log.version.empty()) log.version = std::string(msg.substr(13, 64));
        return {Kind::read, {}};
      }
      if (startsWith(msg, "NCCL_")) {
        std::size_t set = msg.find(" set by environment to ");
        if (set != std::string_view::npos && set < 80) {
          std::string name(msg.substr(0, set));
          if (log.settings.size() < 256 || log.settings.count(name))
            log.settings[name] = std::string(msg.substr(set + 23, 200));
          return {Kind::read, {}};
        }
      }
      if (startsWith(msg, "NVLS Trees :")) return nvlsLine(w, msg.substr(12));
      if (startsWith(msg, "NVLS comm 0x")) return nvlsLine(w, msg.substr(10));
      break;
    case 'U':
      if (startsWith(msg, "Using network ")) {
        std::string n(msg.substr(14, 100));
        if (std::find(log.networks.begin(), log.networks.end(), n) == log.networks.end() && log.networks.size() < 16)
          log.networks.push_back(n);
        return {Kind::read, {}};
      }
      break;
    case 'c':
      if (startsWith(msg, "comm 0x")) return commLine(w, msg);
      break;
    default:
      if (msg[0] >= '0' && msg[0] <= '9') {
        if (findIn(msg, " coll channels") != std::string_view::npos) return channelsLine(w, msg);
        std::size_t arrow = findIn(msg, " Bytes -> ");
        if (arrow != std::string_view::npos) return tuningLine(w, msg, arrow);
        return {};
      }
      break;
  }
  // "AllReduce: opCount ..." and "AllReduce: 8388608 Bytes -> ..." and
  // "ncclCommInitRank comm 0x... - Init COMPLETE".
  // The op's name, then ": opCount" or ": <bytes> Bytes ->" ("AllReduce [Symmetric]: ..." too).
  const void* c = std::memchr(msg.data(), ':', std::min<std::size_t>(msg.size(), 64));
  if (c) {
    std::size_t colon = std::size_t(static_cast<const char*>(c) - msg.data());
    std::string_view rest = msg.substr(colon);
    if (startsWith(rest, ": opCount ")) return callLine(w, msg, colon);
    if (rest.size() > 3 && rest[1] == ' ' && rest[2] >= '0' && rest[2] <= '9') {
      std::size_t arrow = colon + 2;  // past the bytes' digits
      while (arrow < msg.size() && msg[arrow] >= '0' && msg[arrow] <= '9') ++arrow;
      if (startsWith(msg.substr(arrow), " Bytes -> ")) return tuningLine(w, msg, arrow);
    }
  }
  if (msg.size() > 14 && (msg.substr(msg.size() - 13) == "Init COMPLETE" || msg.substr(msg.size() - 10) == "Init START")) {
    std::size_t c = msg.find("comm 0x");
    if (c != std::string_view::npos && c < 64) return commLine(w, msg.substr(c));
  }
  return {};
}

Reader::Reader() : s_(std::make_unique<State>()) {}
Reader::~Reader() = default;
const Counts& Reader::counts() const { return s_->counts; }

void Reader::begin(std::string file) {
  s_->file = std::move(file);
  s_->lineNo = 0, s_->streamBytes = 0, s_->streamNccl = 0;
  s_->carry.clear(), s_->skipping = false;
  s_->stashPending();
  ++s_->fileNo;
  s_->last.valid = false, s_->lastPtr.valid = false;  // their keys name the file
  s_->lastHeadValid = false, s_->lastCallCount = nullptr;
  s_->log.files.push_back(s_->file);
}

Status Reader::feed(std::string_view bytes) {
  State& s = *s_;
  s.counts.bytes += std::int64_t(bytes.size());
  s.streamBytes += std::int64_t(bytes.size());
  while (!bytes.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
    std::size_t n = nl ? std::size_t(nl - bytes.data()) : bytes.size();
    if (s.skipping) {
      if (nl) s.skipping = false;
    } else if (s.carry.size() + n > kMaxLine) {
      ++s.counts.tooLong;
      ++s.counts.lines;
      ++s.lineNo;
      s.carry.clear();
      s.skipping = !nl;
    } else if (!nl) {
      s.carry.append(bytes.data(), n);
    } else if (!s.carry.empty()) {
      s.carry.append(bytes.data(), n);
      s.line(s.carry);
      s.carry.clear();
    } else {
      s.line(bytes.substr(0, n));
    }
    bytes.remove_prefix(nl ? n + 1 : n);
  }
  if (s.streamNccl == 0 && s.streamBytes >= kNoNcclBytes)
    return Error(say("{0} is not an NCCL log: its first {1} MiB hold no line with NCCL's prefix \"host:pid:tid [dev] NCCL INFO\"",
                     s.file, kNoNcclBytes >> 20));
  return {};
}

Status Reader::end() {
  State& s = *s_;
  if (!s.carry.empty()) s.line(s.carry), s.carry.clear();
  s.skipping = false;
  if (s.streamBytes == 0) return Error(say("{0} is empty: an NCCL log has lines \"host:pid:tid [dev] NCCL INFO ...\"", s.file));
  if (s.streamNccl == 0)
    return Error(say("{0} is not an NCCL log: none of its {1} lines has NCCL's prefix \"host:pid:tid [dev] NCCL INFO\" (run with NCCL_DEBUG=INFO)",
                     s.file, s.lineNo));
  return {};
}

Log Reader::finish() {
  Log log = std::move(s_->log);
  log.counts = s_->counts;
  merge(*s_, log);
  return log;
}

namespace {

Status readStream(Reader& r, std::istream& in, std::int64_t total, std::int64_t& done,
                  void (*progress)(std::int64_t, std::int64_t, void*), void* ctx) {
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    std::streamsize n = in.gcount();
    if (n <= 0) break;
    if (Status st = r.feed({buf.data(), std::size_t(n)}); !st) return st;
    done += n;
    if (progress) progress(done, total, ctx);
  }
  return r.end();
}

}  // namespace

Result<Log> read(const std::vector<std::string>& paths, void (*progress)(std::int64_t, std::int64_t, void*), void* ctx) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::int64_t total = 0;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-") {
      files.push_back(p);
    } else if (fs::is_directory(p, ec)) {
      std::vector<std::string> in;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file(ec)) in.push_back(e.path().string());
      if (in.empty()) return Error(say("{0}: the folder holds no file (per-rank logs as NCCL_DEBUG_FILE=nccl.%h.%p writes them)", p));
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      return Error(say("{0}: no such file or folder", p));
    }
  }
  for (const std::string& f : files) {
    std::error_code ec;
    if (f != "-") total += std::int64_t(fs::file_size(f, ec));
  }
  Reader r;
  std::int64_t done = 0;
  for (const std::string& f : files) {
    r.begin(f == "-" ? "stdin" : f);
    if (f == "-") {
      if (Status st = readStream(r, std::cin, 0, done, progress, ctx); !st) return st.error();
      continue;
    }
    std::ifstream in(f, std::ios::binary);
    if (!in) return Error(say("{0}: cannot open it: {1}", f, std::strerror(errno)));
    if (Status st = readStream(r, in, total, done, progress, ctx); !st) return st.error();
  }
  return r.finish();
}

Result<Log> readText(std::string_view text, std::string name) {
  Reader r;
  r.begin(std::move(name));
  if (Status st = r.feed(text); !st) return st.error();
  if (Status st = r.end(); !st) return st.error();
  return r.finish();
}

}  // namespace collviz::nccl_log
