// The reader's state between lines (reader.cpp) and the line parsers
// (lines.cpp). Internal to engine/job/nccl_log/.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/job/nccl_log/nccl_log.h"

namespace collviz::nccl_log {

// The prefix of one NCCL line: host:pid:tid [dev] NCCL INFO|WARN.
struct Where {
  std::string_view host;
  std::int64_t pid = -1, tid = -1;
  int dev = -1;
  int hostId = -1;  // the host interned (Reader::State::hostIds)
};

// A thread, device or comm of one process in one file: the key of the
// tables below, hashed without building a string (one per line cost 10 %).
struct ProcKey {
  std::int32_t file = 0, host = 0;
  std::int64_t pid = 0;
  std::uint64_t n = 0;  // the tid, the device, or the comm pointer's value
  char kind = 0;        // 't', 'd', 'p'
  bool operator==(const ProcKey&) const = default;
};
struct ProcKeyHash {
  std::size_t operator()(const ProcKey& k) const noexcept {
    std::uint64_t h = std::uint64_t(k.file) * 0x9E3779B97F4A7C15ull ^ std::uint64_t(k.host) * 0xC2B2AE3D27D4EB4Full;
    h ^= std::uint64_t(k.pid) * 0x165667B19E3779F9ull;
    h ^= (k.n + std::uint64_t(k.kind)) * 0xD6E8FEB86659FD93ull;
    return std::size_t(h ^ (h >> 29));
  }
};
// A transport already read: channel, connection, from, to, direction.
struct LinkKey {
  int channel = 0, conn = 0, from = 0, to = 0;
  char dir = 0;
  bool operator==(const LinkKey&) const = default;
};
struct LinkKeyHash {
  std::size_t operator()(const LinkKey& k) const noexcept {
    std::uint64_t h = (std::uint64_t(std::uint32_t(k.channel)) << 32 | std::uint32_t(k.conn)) * 0x9E3779B97F4A7C15ull;
    h ^= (std::uint64_t(std::uint32_t(k.from)) << 32 | std::uint32_t(k.to)) * 0xC2B2AE3D27D4EB4Full;
    return std::size_t(h ^ std::uint64_t(k.dir) ^ (h >> 31));
  }
};

// A number: digits (and a leading '-' where allowed) at the start of s,
// which moves past them. none: no digits; over: more than fits.
enum class Num { ok, none, over };
inline Num number(std::string_view& s, std::int64_t& v, std::int64_t max = INT32_MAX) {
  std::size_t i = 0;
  const bool neg = !s.empty() && s[0] == '-';
  if (neg) ++i;
  auto digit = [&](std::size_t k) { return k < s.size() && static_cast<unsigned char>(s[k] - '0') <= 9; };
  if (!digit(i)) return Num::none;
  while (s[i] == '0' && digit(i + 1)) ++i;  // leading zeros
  // Up to 19 digits fit in 64 bits unsigned; no division per digit.
  const std::size_t first = i;
  std::uint64_t x = 0;
  for (; digit(i) && i - first < 19; ++i) x = x * 10 + std::uint64_t(s[i] - '0');
  bool over = x > std::uint64_t(max);
  for (; digit(i); ++i) over = true;
  s.remove_prefix(i);
  if (over) return Num::over;
  v = neg ? -std::int64_t(x) : std::int64_t(x);
  return Num::ok;
}
Num hexNumber(std::string_view& s, std::string& out);  // "0x1f": out "0x1f"
// s starts with the literal (its length known here: no call to memcmp).
template <std::size_t N>
inline bool startsWith(std::string_view s, const char (&lit)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}
template <std::size_t N>
inline bool endsWith(std::string_view s, const char (&lit)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data() + s.size() - (N - 1), lit, N - 1) == 0;
}
template <std::size_t N>
inline bool eat(std::string_view& s, const char (&lit)[N]) {
  if (!startsWith(s, lit)) return false;
  s.remove_prefix(N - 1);
  return true;
}
// s.find(needle, from) through memmem (std::string_view::find walks memchr
// over the needle's first byte, a space: several times slower on log lines).
std::size_t findIn(std::string_view s, std::string_view needle, std::size_t from = 0);
// s.rfind(needle) through memrchr (std::string_view::rfind compares at every byte).
std::size_t rfindIn(std::string_view s, std::string_view needle);
inline void spaces(std::string_view& s) {
  while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
}

// What one line was.
enum class Kind { read, other, bad };
struct Outcome {
  Kind kind = Kind::other;
  Text why;  // for bad
};

struct Reader::State {
  Counts counts;
  Log log;  // version, settings, networks, samples (members and choices below)
  std::string file;
  std::int64_t lineNo = 0, streamBytes = 0, streamNccl = 0;
  std::string carry;     // a line cut between two feeds
  bool skipping = false; // the rest of a line over kMaxLine

  std::vector<Member> members;
  std::vector<std::vector<std::int64_t>> ringLines;  // members[i].rings[j]'s line
  std::vector<std::unordered_set<LinkKey, LinkKeyHash>> linkSeen;
  std::unordered_map<ProcKey, int, ProcKeyHash> byPtr, byThread, byDev;
  std::int32_t fileNo = 0;
  // Hosts interned; the last one asked for, compared before the table.
  std::unordered_map<std::string, int> hostIds;
  std::string lastHost;
  int lastHostId = -1;
  int hostId(std::string_view host);
  // The last line's prefix ("host:pid:tid [dev]") and what it said: most
  // lines repeat it.
  std::string lastHead;
  Where lastWhere;
  bool lastWarnHead = false, lastHeadValid = false;
  // The last memberFor answer, for the next line of the same thread (most are).
  struct {
    bool valid = false;
    int host = -1;
    std::int64_t pid = -1, tid = -1;
    int dev = -1, member = -1;
  } last;
  struct {
    bool valid = false;
    int host = -1;
    std::uint64_t ptr = 0;
    std::int64_t pid = -1;
    int member = -1;
  } lastPtr;  // the last memberByPtr(bind = false) answer: a run of call lines names one comm
  std::unordered_map<std::uint64_t, int> choiceIndex;  // a choice's hash -> log.choices
  std::vector<int> choiceMember;                        // per choice: a member whose call followed it
  // Thread -> choices awaiting their call; the newest thread's kept apart
  // (a choice line and its call line follow each other on one thread).
  std::unordered_map<ProcKey, std::vector<int>, ProcKeyHash> pending;
  struct {
    bool valid = false;
    ProcKey thread;
    std::vector<int> choices;
  } pendingLast;
  void stashPending();
  // Thread -> its last "NCCL CALL nccl<Op>(...)": the op and, where its
  // comm pointer is known, the member (callTrace).
  struct Called {
    std::string op;
    int member = -1;
  };
  std::unordered_map<ProcKey, Called, ProcKeyHash> called;
  // The last call line's op and the member's count for it.
  std::string lastCallOp;
  int lastCallMember = -1;
  std::int64_t* lastCallCount = nullptr;

  ProcKey procKey(const Where& w, char kind, std::uint64_t n) const {
    return {fileNo, w.hostId, w.pid, n, kind};
  }
  void line(std::string_view l);
  Outcome info(const Where& w, std::string_view msg);
  void sample(std::vector<Sample>& to, Said what);

  // The member a line without a comm pointer belongs to: the thread's last,
  // else the last of the device in that process, else a new one.
  int memberFor(const Where& w);
  // The member of a comm pointer ("0x..."); bind: the thread and device now speak for it.
  int memberByPtr(const Where& w, std::string_view ptr, bool bind);
  int newMember(const Where& w);
  std::string scratch;
  std::vector<int> ringScratch, sortScratch;  // a ring line's ranks, sorted: kept between lines

  // Line parsers (lines.cpp).
  Outcome channelLine(const Where& w, std::string_view msg);
  Outcome ringLine(const Where& w, std::string_view msg);
  Outcome treesLine(const Where& w, std::string_view msg);
  Outcome treeLine(const Where& w, std::string_view msg);
  Outcome commLine(const Where& w, std::string_view msg);
  Outcome channelsLine(const Where& w, std::string_view msg);
  Outcome callLine(const Where& w, std::string_view msg, std::size_t colon);
  Outcome tuningLine(const Where& w, std::string_view msg, std::size_t arrow);
  Outcome callTrace(std::string_view head, std::string_view msg);  // "NCCL CALL ncclAllReduce(...)"
  Outcome collnetLine(const Where& w, std::string_view msg);
  Outcome nvlsLine(const Where& w, std::string_view msg);  // "NVLS Trees :" rest, or "0x... headRank ..."
};

// The merge of everything fed (merge.cpp).
void merge(Reader::State& s, Log& log);

}  // namespace collviz::nccl_log
