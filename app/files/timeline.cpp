// The job's calls on tracks, and Chrome's trace-event JSON of them
// (timeline.h). The JSON is written by hand: a capture may hold millions of
// calls, and every string from a file goes through one escaper that never
// emits invalid UTF-8 or a raw control character.
#include "app/files/timeline.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

namespace collviz::ui {

namespace {

std::int64_t beginOf(const job::Call& c) { return c.started > 0 ? c.started : c.created; }

std::int64_t endOf(const job::Call& c, std::int64_t begin) {
  if (c.completed > 0 && c.completed >= begin) return c.completed;
  if (c.durationMs >= 0 && c.state == job::State::completed) return begin + std::int64_t(double(c.durationMs) * 1e6);
  return -1;  // never left
}

// A JSON string: valid UTF-8 only (anything else is U+FFFD), control
// characters as \u00XX.
void jsonString(std::string& out, std::string_view s) {
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + std::size_t(n) <= s.size();
    for (int k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + std::size_t(k)]) >> 6) == 2;
    if (!ok) {
      out += "\xef\xbf\xbd";
      ++i;
      continue;
    }
    if (n == 1) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += char(c);
      } else if (c < 0x20 || c == 0x7f) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", c);
        out += b;
      } else {
        out += char(c);
      }
    } else {
      out.append(s.substr(i, std::size_t(n)));
    }
    i += std::size_t(n);
  }
  out += '"';
}

void num(std::string& out, std::int64_t v) { out += std::to_string(v); }

// Microseconds with nanosecond digits, as the trace format counts.
void micros(std::string& out, std::int64_t ns) {
  char b[40];
  std::snprintf(b, sizeof b, "%" PRId64 ".%03d", ns / 1000, int(ns % 1000));
  out += b;
}

}  // namespace

Timeline layoutTimeline(const job::Job& job) {
  Timeline t;
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const job::Call& c : job.calls) {
    const std::int64_t b = beginOf(c);
    if (b <= 0) continue;
    lo = std::min(lo, b);
    hi = std::max(hi, std::max(b, endOf(c, b)));
  }
  if (lo == INT64_MAX) return t;
  t.origin = lo;
  t.span = hi - lo;
  // Per rank and group, the calls by entry; each goes to the first lane of
  // its group whose last slice has ended.
  std::vector<std::size_t> order;
  order.reserve(job.calls.size());
  for (std::size_t i = 0; i < job.calls.size(); ++i)
    if (beginOf(job.calls[i]) > 0) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const job::Call &x = job.calls[a], &y = job.calls[b];
    if (x.rank != y.rank) return x.rank < y.rank;
    if (x.group != y.group) return x.group < y.group;
    if (beginOf(x) != beginOf(y)) return beginOf(x) < beginOf(y);
    return a < b;
  });
  std::map<std::pair<int, int>, int> trackOf;  // (group, lane) -> track
  std::map<std::pair<int, int>, std::vector<std::int64_t>> laneEnds;  // (rank, group) -> end of each lane
  for (std::size_t i : order) {
    const job::Call& c = job.calls[i];
    TimelineSlice s;
    s.call = i;
    s.rank = c.rank;
    s.begin = beginOf(c) - lo;
    const std::int64_t e = endOf(c, beginOf(c));
    s.open = e < 0;
    s.end = s.open ? t.span : e - lo;
    auto& ends = laneEnds[{c.rank, c.group}];
    std::size_t lane = 0;
    while (lane < ends.size() && ends[lane] > s.begin) ++lane;
    if (lane == ends.size()) ends.push_back(0);
    ends[lane] = std::max(s.end, s.begin + 1);  // a zero-length slice still takes its instant
    auto key = std::make_pair(c.group, int(lane));
    auto it = trackOf.find(key);
    if (it == trackOf.end()) {
      it = trackOf.emplace(key, int(t.tracks.size())).first;
      t.tracks.push_back({c.group, int(lane)});
    }
    s.track = it->second;
    t.slices.push_back(s);
  }
  return t;
}

std::string chromeTrace(const job::Job& job) {
  const Timeline t = layoutTimeline(job);
  std::string out;
  out.reserve(256 + t.slices.size() * 260);
  out += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"collviz\",\"origin_ns\":";
  num(out, t.origin);
  out += "},\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  // Names: a process per rank, a thread per (rank, track).
  std::vector<int> ranks;
  std::map<std::pair<int, int>, bool> named;
  for (const TimelineSlice& s : t.slices) {
    if (ranks.empty() || ranks.back() != s.rank) ranks.push_back(s.rank);
    named[{s.rank, s.track}] = true;
  }
  for (int r : ranks) {
    const job::Rank* rk = job.rank(r);
    sep();
    out += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
    num(out, r);
    out += ",\"tid\":0,\"args\":{\"name\":";
    jsonString(out, "rank " + std::to_string(r));
    if (rk && !rk->host.empty()) {
      out += ",\"host\":";
      jsonString(out, rk->host);
    }
    if (rk && rk->pid >= 0) {
      out += ",\"os_pid\":";
      num(out, rk->pid);
    }
    out += "}}";
    sep();
    out += "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":";
    num(out, r);
    out += ",\"tid\":0,\"args\":{\"sort_index\":";
    num(out, r);
    out += "}}";
  }
  for (const auto& [key, unused] : named) {
    const TimelineTrack& tr = t.tracks[std::size_t(key.second)];
    std::string name = job::groupName(job, tr.group);
    if (tr.lane > 0) name += " (" + std::to_string(tr.lane + 1) + ")";
    sep();
    out += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
    num(out, key.first);
    out += ",\"tid\":";
    num(out, key.second + 1);
    out += ",\"args\":{\"name\":";
    jsonString(out, name);
    out += "}}";
  }
  for (const TimelineSlice& s : t.slices) {
    const job::Call& c = job.calls[s.call];
    sep();
    out += "{\"ph\":\"X\",\"cat\":";
    jsonString(out, c.p2p ? "p2p" : "collective");
    out += ",\"name\":";
    const std::string_view name = job.str(c.name).empty() ? job.str(c.op) : job.str(c.name);
    jsonString(out, name);
    out += ",\"pid\":";
    num(out, s.rank);
    out += ",\"tid\":";
    num(out, s.track + 1);
    out += ",\"ts\":";
    micros(out, s.begin);
    out += ",\"dur\":";
    micros(out, s.end - s.begin);
    out += ",\"args\":{\"op\":";
    jsonString(out, job.str(c.op));
    out += ",\"communicator\":";
    jsonString(out, job::groupName(job, c.group));
    out += ",\"seq\":";
    num(out, c.seq);
    if (!job.str(c.dtype).empty()) {
      out += ",\"dtype\":";
      jsonString(out, job.str(c.dtype));
    }
    if (c.inElems >= 0) {
      out += ",\"in_elems\":";
      num(out, c.inElems);
    }
    if (c.outElems >= 0) {
      out += ",\"out_elems\":";
      num(out, c.outElems);
    }
    if (c.bytes >= 0) {
      out += ",\"bytes\":";
      num(out, c.bytes);
    }
    if (c.p2p && c.peer >= 0) {
      out += ",\"peer\":";
      num(out, c.peer);
    }
    out += ",\"state\":";
    jsonString(out, s.open ? "never left (runs to the trace's end)" : job::stateName(c.state));
    out += "}}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace collviz::ui
