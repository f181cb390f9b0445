// The reader's state between lines (reader.cpp) and the line parsers
// (lines.cpp). Internal to engine/algo/nccl_log/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/algo/nccl_log/nccl_log.h"

namespace collviz::nccl_log {

// The prefix of one NCCL line: host:pid:tid [dev] NCCL INFO|WARN.
struct Where {
  std::string_view host;
  std::int64_t pid = -1, tid = -1;
  int dev = -1;
};

// A number: digits (and a leading '-' where allowed) at the start of s,
// which moves past them. none: no digits; over: more than fits.
enum class Num { ok, none, over };
Num number(std::string_view& s, std::int64_t& v, std::int64_t max = INT32_MAX);
Num hexNumber(std::string_view& s, std::string& out);  // "0x1f": out "0x1f"
bool eat(std::string_view& s, std::string_view lit);
// s.find(needle, from) through memmem (std::string_view::find walks memchr
// over the needle's first byte, a space: several times slower on log lines).
std::size_t findIn(std::string_view s, std::string_view needle, std::size_t from = 0);
void spaces(std::string_view& s);

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
  std::vector<std::unordered_set<std::string>> linkSeen;
  std::unordered_map<std::string, int> byPtr, byThread, byDev;
  // The last memberFor answer, for the next line of the same thread (most are).
  struct {
    bool valid = false;
    std::string host;
    std::int64_t pid = -1, tid = -1;
    int dev = -1, member = -1;
  } last;
  struct {
    bool valid = false;
    std::string host, ptr;
    std::int64_t pid = -1;
    int member = -1;
  } lastPtr;  // the last memberByPtr(bind = false) answer: a run of call lines names one comm
  std::unordered_map<std::string, int> choiceIndex;
  std::vector<int> choiceMember;                        // per choice: a member whose call followed it
  std::unordered_map<std::string, std::vector<int>> pending;  // thread -> choices awaiting their call

  void line(std::string_view l);
  Outcome info(const Where& w, std::string_view msg);
  void sample(std::vector<Sample>& to, Said what);

  // The member a line without a comm pointer belongs to: the thread's last,
  // else the last of the device in that process, else a new one.
  int memberFor(const Where& w);
  // The member of a comm pointer; bind: the thread and device now speak for it.
  int memberByPtr(const Where& w, std::string_view ptr, bool bind);
  const std::string& key(const Where& w, std::string_view what);  // in keyBuf: valid until the next call
  const std::string& key(const Where& w, char kind, std::int64_t n);  // "t<tid>", "d<dev>", without a temporary
  std::string keyBuf, scratch;

  // Line parsers (lines.cpp).
  Outcome channelLine(const Where& w, std::string_view msg);
  Outcome ringLine(const Where& w, std::string_view msg);
  Outcome treesLine(const Where& w, std::string_view msg);
  Outcome treeLine(const Where& w, std::string_view msg);
  Outcome commLine(const Where& w, std::string_view msg);
  Outcome channelsLine(const Where& w, std::string_view msg);
  Outcome callLine(const Where& w, std::string_view msg, std::size_t colon);
  Outcome tuningLine(const Where& w, std::string_view msg, std::size_t arrow);
  Outcome collnetLine(const Where& w, std::string_view msg);
  Outcome nvlsLine(const Where& w, std::string_view msg);  // "NVLS Trees :" rest, or "0x... headRank ..."
};

// The merge of everything fed (merge.cpp).
void merge(Reader::State& s, Log& log);

}  // namespace collviz::nccl_log
