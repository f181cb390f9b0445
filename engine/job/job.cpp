// The model of a job (job.h): names, look-ups and the Builder every reader
// fills it through.
#include "engine/job/job.h"

#include <algorithm>
#include <tuple>

namespace collviz::job {

std::string_view formatName(Format f) {
  switch (f) {
    case Format::flight_recorder_pickle: return "flight_recorder_pickle";
    case Format::flight_recorder_json: return "flight_recorder_json";
    case Format::nccl_ras_text: return "nccl_ras_text";
    case Format::nccl_ras_json: return "nccl_ras_json";
    case Format::nccl_ras_event: return "nccl_ras_event";
    case Format::nccl_inspector: return "nccl_inspector";
    case Format::nccl_profiler_trace: return "nccl_profiler_trace";
    case Format::nccl_profiler_lines: return "nccl_profiler_lines";
    case Format::nccl_tests: return "nccl_tests";
    case Format::nccl_log: return "nccl_log";
    case Format::capture: return "capture";
  }
  return "?";
}

Text formatText(Format f) {
  switch (f) {
    case Format::flight_recorder_pickle: return say("PyTorch Flight Recorder dump (pickle)");
    case Format::flight_recorder_json: return say("PyTorch Flight Recorder dump (JSON)");
    case Format::nccl_ras_text: return say("NCCL RAS report (text)");
    case Format::nccl_ras_json: return say("NCCL RAS report (JSON)");
    case Format::nccl_ras_event: return say("NCCL RAS monitor event");
    case Format::nccl_inspector: return say("NCCL Inspector records");
    case Format::nccl_profiler_trace: return say("NCCL profiler trace (Chrome trace)");
    case Format::nccl_profiler_lines: return say("NCCL profiler trace (JSON lines)");
    case Format::nccl_tests: return say("nccl-tests output");
    case Format::nccl_log: return say("NCCL log (NCCL_DEBUG=INFO)");
    case Format::capture: return say("collviz capture (one process)");
  }
  return lit("?");
}

bool perRank(Format f) { return f == Format::flight_recorder_pickle || f == Format::flight_recorder_json || f == Format::capture; }

std::string_view healthName(Health h) {
  switch (h) {
    case Health::unknown: return "unknown";
    case Health::ok: return "ok";
    case Health::incomplete: return "incomplete";
    case Health::dead: return "dead";
    case Health::mismatch: return "mismatch";
    case Health::unresponsive: return "unresponsive";
    case Health::error: return "error";
  }
  return "?";
}

int severity(Health h) {
  switch (h) {
    case Health::unknown: return 0;
    case Health::ok: return 1;
    case Health::mismatch: return 2;
    case Health::incomplete: return 3;
    case Health::unresponsive: return 4;
    case Health::error: return 5;
    case Health::dead: return 6;
  }
  return 0;
}

std::string_view stateName(State s) {
  switch (s) {
    case State::unknown: return "unknown";
    case State::scheduled: return "scheduled";
    case State::started: return "started";
    case State::completed: return "completed";
  }
  return "?";
}

std::string_view findingName(FindingKind k) {
  switch (k) {
    case FindingKind::hang: return "hang";
    case FindingKind::mismatch: return "mismatch";
    case FindingKind::missing_dump: return "missing_dump";
    case FindingKind::world_size: return "world_size";
    case FindingKind::duplicate_rank: return "duplicate_rank";
    case FindingKind::other_job: return "other_job";
    case FindingKind::ras: return "ras";
    case FindingKind::wrong_results: return "wrong_results";
    case FindingKind::deadlock: return "deadlock";
  }
  return "?";
}

static_assert(sizeof(Call) == 128, "a Call is 128 bytes: 20 000 entries of 64 ranks in 164 MB");

const Rank* Job::rank(int r) const {
  auto it = std::lower_bound(ranks.begin(), ranks.end(), r, [](const Rank& a, int b) { return a.rank < b; });
  return it != ranks.end() && it->rank == r ? &*it : nullptr;
}

const Captured* Job::captured(const Call& c) const {
  if (c.source < 0 || std::size_t(c.source) >= sources.size() || c.record < 0) return nullptr;
  const CaptureData* d = sources[std::size_t(c.source)].capture.get();
  return d && std::size_t(c.record) < d->calls.size() ? &d->calls[std::size_t(c.record)] : nullptr;
}

std::string_view Job::inputBytes(const Call& c) const {
  const Captured* x = captured(c);
  return x ? std::string_view(sources[std::size_t(c.source)].capture->bytes).substr(x->inAt, x->inBytes) : std::string_view();
}

std::string_view Job::outputBytes(const Call& c) const {
  const Captured* x = captured(c);
  return x && x->exited ? std::string_view(sources[std::size_t(c.source)].capture->bytes).substr(x->outAt, x->outBytes) : std::string_view();
}

int Job::groupIndex(std::string_view id) const {
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (groups[i].id == id) return int(i);
  return -1;
}

Name Builder::intern(std::string_view s) {
  if (s.empty()) return 0;
  if (names_.empty())  // a Job read before: its names are found too
    for (std::size_t i = 1; i < job_.names.size(); ++i) names_.emplace(job_.names[i], Name(i));
  auto [it, added] = names_.try_emplace(std::string(s), Name(job_.names.size()));
  if (added) job_.names.emplace_back(s);
  return it->second;
}

Rank& Builder::rank(int r) {
  if (ranks_.empty())
    for (std::size_t i = 0; i < job_.ranks.size(); ++i) ranks_.emplace(job_.ranks[i].rank, i);
  auto [it, added] = ranks_.try_emplace(r, job_.ranks.size());
  if (added) {
    job_.ranks.emplace_back();
    job_.ranks.back().rank = r;
  }
  return job_.ranks[it->second];
}

int Builder::group(const std::string& id) {
  if (groups_.empty())
    for (std::size_t i = 0; i < job_.groups.size(); ++i) groups_.emplace(job_.groups[i].id, int(i));
  auto [it, added] = groups_.try_emplace(id, int(job_.groups.size()));
  if (added) {
    job_.groups.emplace_back();
    job_.groups.back().id = id;
  }
  return it->second;
}

void Builder::note(std::vector<Note>& notes, Text text) {
  for (Note& n : notes)
    if (n.kind == text.id) {
      ++n.count;
      return;
    }
  Note n;
  n.kind = text.id;
  n.text = Said(std::move(text));
  notes.push_back(std::move(n));
}

void Builder::finish(bool sortCalls) {
  std::sort(job_.ranks.begin(), job_.ranks.end(), [](const Rank& a, const Rank& b) { return a.rank < b.rank; });
  ranks_.clear();
  job_.hosts.clear();
  for (const Rank& r : job_.ranks)
    if (!r.host.empty() && std::find(job_.hosts.begin(), job_.hosts.end(), r.host) == job_.hosts.end())
      job_.hosts.push_back(r.host);
  if (sortCalls)
    std::sort(job_.calls.begin(), job_.calls.end(), [](const Call& a, const Call& b) {  // in place: no second array of calls
    return std::tie(a.group, a.p2p, a.seq, a.rank, a.source, a.record, a.created) <
           std::tie(b.group, b.p2p, b.seq, b.rank, b.source, b.record, b.created);
  });
  for (Group& g : job_.groups) g.calls = 0;
  for (const Call& c : job_.calls)
    if (c.group >= 0 && std::size_t(c.group) < job_.groups.size()) ++job_.groups[std::size_t(c.group)].calls;
}

}  // namespace collviz::job
