// Reading a job (job.h read): the files and folders listed, each file's
// kind from its content (detect.cpp), each read by its format's reader on
// a few threads, their Jobs merged in the order of the files: names
// re-interned, groups joined by id, ranks by number (a second dump of one
// rank is counted, not read), NCCL's own log read once over all its files
// and its communicators' members attached to the ranks.
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/job/nccl_log/nccl_log.h"
#include "engine/job/plain.h"
#include "engine/job/readers.h"

namespace collviz::job {
namespace {

namespace fs = std::filesystem;

// The bytes of a file, into `s` (its room kept from file to file: no fresh
// pages for every file). Errors name what was wrong, not the file (the
// caller puts its name before them, once).
Status readAll(const std::string& path, std::string& s) {
  if (path == "-") {
    // stdin: no size to ask first. Read in large blocks into room for the
    // cap (room not written costs no memory), stopped as soon as it is past
    // the cap: never more than the cap held, never the rest read.
    constexpr std::size_t kBlock = std::size_t(4) << 20;
    const std::size_t cap = std::size_t(kMaxFileBytes) + 1;
    s.clear();
    s.reserve(cap);
    while (s.size() < cap) {
      const std::size_t had = s.size(), want = std::min(kBlock, cap - had);
      s.resize(had + want);
      const std::size_t got = std::fread(s.data() + had, 1, want, stdin);
      s.resize(had + got);
      if (got < want) {
        if (std::ferror(stdin)) return Error(say("cannot read it: {0}", std::strerror(errno)));
        return Status::Ok();
      }
    }
    return Error(say("larger than {0} MiB: not read", kMaxFileBytes >> 20));
  }
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return Error(say("cannot read it: {0}", ec.message()));
  if (std::int64_t(size) > kMaxFileBytes)
    return Error(say("{0} MiB, larger than the {1} MiB read from one file: not read", std::int64_t((size + (1 << 20) - 1) >> 20),
                     kMaxFileBytes >> 20));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Error(say("cannot open it: {0}", std::strerror(errno)));
  s.resize(size);
  const std::size_t got = std::fread(s.data(), 1, size, f);
  std::fclose(f);
  s.resize(got);
  return Status::Ok();
}

// A file's name in messages: stdin for "-".
std::string shownPath(const std::string& path) { return path == "-" ? "stdin" : path; }

Text outOfMemory() { return say("out of memory reading the job's files: read fewer files, or allow more memory (ulimit -v)"); }

// What reading a file may take: its bytes and what they are parsed into
// (plain.h: its bound); stdin: the most it may be.
std::int64_t readingBytes(const std::string& path) {
  std::error_code ec;
  std::int64_t size = path == "-" ? kMaxFileBytes : std::int64_t(fs::file_size(path, ec));
  if (ec || size > kMaxFileBytes) size = 0;  // refused from its size, unread
  return size + std::int64_t(plainBudget(std::size_t(size)));
}

struct Part {
  std::optional<Result<Job>> job;
  std::string log;  // the bytes of an NCCL log, read after (one reader for all)
  bool isLog = false;
  bool skipped = false;  // not a job trace
  std::int64_t endNs = 0;  // collviz watch's capture.json: the capture's end
};

// collviz watch's summary of a capture (capture.json beside the tap's
// files): not a trace, but its "end" ("2026-12-06T10:35:42.967Z") is when
// the capture ended, what a finished capture's verdict counts to. 0 where
// the file is not that summary.
std::int64_t captureEnd(const std::string& path, std::string_view bytes) {
  if (std::filesystem::path(path).filename() != "capture.json" || bytes.find("\"hang_after_s\"") == std::string_view::npos) return 0;
  const std::size_t key = bytes.find("\"end\"");
  if (key == std::string_view::npos) return -1;
  const std::size_t open = bytes.find('"', bytes.find(':', key));
  if (open == std::string_view::npos) return -1;
  std::tm tm{};
  unsigned ms = 0;
  const std::string v(bytes.substr(open + 1, 30));
  if (std::sscanf(v.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3uZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
    return -1;
  tm.tm_year -= 1900, tm.tm_mon -= 1;
  const std::time_t t = ::timegm(&tm);
  return t < 0 ? -1 : std::int64_t(t) * 1000000000 + std::int64_t(ms) * 1000000;
}

Part readOne(const Input& in) {
  Part part;
  thread_local std::string buffer;
  std::string* bytes = &buffer;
  if (Status st = readAll(in.path, buffer); !st) {
    part.job.emplace(st.error());
    return part;
  }
  std::optional<Format> also;
  const auto f = detect(*bytes, &also);
  if (!f) {
    part.endNs = captureEnd(in.path, *bytes);
    part.skipped = part.endNs == 0;
    return part;
  }
  const std::string name = in.path == "-" ? "stdin" : in.path;
  auto readAs = [&](Format k) -> Result<Job> {
    switch (k) {
      case Format::flight_recorder_pickle: case Format::flight_recorder_json: return readFlightRecorder(*bytes, name, k);
      case Format::nccl_ras_text: case Format::nccl_ras_json: case Format::nccl_ras_event: return readRas(*bytes, name, k);
      case Format::nccl_inspector: return readInspector(*bytes, name);
      case Format::nccl_profiler_trace: case Format::nccl_profiler_lines: return readProfiler(*bytes, name, k);
      case Format::nccl_tests: return readNcclTests(*bytes, name);
      case Format::capture: return readCapture(*bytes, name);
      case Format::nccl_log: break;
    }
    return Job{};
  };
  if (*f == Format::nccl_log || (also && *also == Format::nccl_log)) {
    part.isLog = true;
    part.log = *bytes;
  }
  if (*f != Format::nccl_log) part.job.emplace(readAs(*f));
  if (buffer.capacity() > (std::size_t(64) << 20)) std::string().swap(buffer);  // a large file's room not kept
  return part;
}

// Health: the worse of two.
Health worse(Health a, Health b) { return severity(b) > severity(a) ? b : a; }

void merge(Job& into, Builder& b, Job&& part) {
  const int srcBase = int(into.sources.size());
  for (Source& s : part.sources) into.sources.push_back(std::move(s));
  std::vector<Name> names(part.names.size(), 0);
  for (std::size_t i = 1; i < part.names.size(); ++i) names[i] = b.intern(part.names[i]);
  std::vector<int> groups(part.groups.size(), -1);
  for (std::size_t i = 0; i < part.groups.size(); ++i) {
    Group& from = part.groups[i];
    groups[i] = b.group(from.id);
    Group& g = into.groups[std::size_t(groups[i])];
    if (g.desc.empty()) g.desc = from.desc;
    if (g.commHash.empty()) g.commHash = from.commHash;
    if (g.size < 0) g.size = from.size;
    if (g.ranks.empty()) g.ranks = std::move(from.ranks);
    else if (!from.ranks.empty() && from.ranks != g.ranks)
      Builder::note(into.notes, say("group {0}: the files disagree on its ranks ({1} ranks, and {2} in {3})", g.id, std::int64_t(g.ranks.size()),
                                    std::int64_t(from.ranks.size()), into.sources[std::size_t(srcBase)].path));
  }
  std::vector<int> skipRank;
  for (Rank& from : part.ranks) {
    Rank& r = b.rank(from.rank);
    if (from.dump >= 0) {
      if (r.dump >= 0) {
        ++r.duplicates;
        skipRank.push_back(from.rank);
        Builder::note(into.notes, say("rank {0}: a second dump ({1}) not read; the first ({2}) is kept", from.rank,
                                      into.sources[std::size_t(srcBase + from.dump)].path, into.sources[std::size_t(r.dump)].path));
        continue;
      }
      r.dump = srcBase + from.dump;
      r.worldSize = from.worldSize;
    }
    if (into.otherJob.empty() && srcBase > 0) {
      // One rank on two hosts, or in two processes of one host: two jobs.
      const bool hosts = !r.host.empty() && !from.host.empty() && r.host != from.host;
      const bool pids = !hosts && r.pid >= 0 && from.pid >= 0 && r.pid != from.pid && r.host == from.host;
      const std::string file = into.sources[std::size_t(srcBase)].path;
      if (hosts)
        into.otherJob = Said(say("the files are of more than one job: rank {0} is on host {1} in one file and on host {2} in {3}; "
                                 "read apart, each is a job of its own",
                                 from.rank, r.host, from.host, file));
      else if (pids)
        into.otherJob = Said(say("the files are of more than one job: rank {0} is process {1} in one file and process {2} in {3}; "
                                 "read apart, each is a job of its own",
                                 from.rank, r.pid, from.pid, file));
    }
    if (r.host.empty()) r.host = from.host;
    if (r.device < 0) r.device = from.device;
    if (r.pid < 0) r.pid = from.pid;
    if (r.busId.empty()) r.busId = from.busId;
    if (r.gpu.empty()) r.gpu = from.gpu;
    if (severity(from.health) > severity(r.health)) r.healthText = from.healthText;
    r.health = worse(r.health, from.health);
  }
  auto skipped = [&](int rank) { return std::find(skipRank.begin(), skipRank.end(), rank) != skipRank.end(); };
  if (into.calls.capacity() < into.calls.size() + part.calls.size())  // grown geometrically: not a copy a file
    into.calls.reserve(std::max(into.calls.size() + part.calls.size(), into.calls.capacity() * 2));
  for (Call c : part.calls) {
    if (skipped(c.rank)) continue;
    if (into.calls.size() >= kMaxCalls) {
      Builder::note(into.notes, say("more than {0} calls over all files: the rest not kept", std::int64_t(kMaxCalls)));
      break;
    }
    c.group = c.group >= 0 ? groups[std::size_t(c.group)] : -1;
    c.source = c.source >= 0 ? srcBase + c.source : -1;
    for (Name* n : {&c.op, &c.name, &c.dtype, &c.outDtype, &c.inShape, &c.outShape, &c.algo, &c.proto}) *n = *n < names.size() ? names[*n] : 0;
    into.calls.push_back(c);
  }
  for (PgStatus s : part.status) {
    if (skipped(s.rank)) continue;
    s.group = s.group >= 0 ? groups[std::size_t(s.group)] : -1;
    into.status.push_back(s);
  }
  for (TestRun& t : part.tests) {
    t.source += srcBase;
    into.tests.push_back(std::move(t));
  }
  for (RasReport& r : part.ras) {
    r.source += srcBase;
    for (RasComm& c : r.comms) c.group_index = c.group_index >= 0 ? groups[std::size_t(c.group_index)] : -1;
    into.ras.push_back(std::move(r));
  }
  for (Note& n : part.notes) into.notes.push_back(std::move(n));
}

// NCCL's own log: its communicators become groups (by commId), their
// members the ranks' host, pid and device where the files had none.
void attachLog(Job& job, Builder& b, nccl_log::Log&& log, const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    Source s;
    s.path = f;
    s.format = Format::nccl_log;
    if (files.size() == 1) s.version = log.version;
    job.sources.push_back(std::move(s));
  }
  const int world = job.worldSize;
  for (const nccl_log::Comm& c : log.comms) {
    const int g = b.group(c.commId.empty() ? nccl_log::commLabel(c) : hashId(c.commId));
    Group& grp = job.groups[std::size_t(g)];
    if (grp.desc.empty()) grp.desc = "NCCL communicator";
    grp.commHash = c.commId;
    grp.size = c.nRanks;
    // A communicator as large as the job (or the only one): its ranks are the job's.
    const bool global = c.nRanks > 0 && (c.nRanks == world || log.comms.size() == 1);
    for (const nccl_log::Member& m : c.members) {
      if (m.rank < 0) continue;
      if (global) {
        if (std::find(grp.ranks.begin(), grp.ranks.end(), m.rank) == grp.ranks.end()) grp.ranks.push_back(m.rank);
        Rank& r = b.rank(m.rank);
        if (r.host.empty()) r.host = m.host;
        if (r.pid < 0) r.pid = m.pid;
        if (r.device < 0) r.device = m.cudaDev >= 0 ? m.cudaDev : m.dev;
        if (r.busId.empty()) r.busId = m.busId;
      }
    }
    std::sort(grp.ranks.begin(), grp.ranks.end());
  }
  job.ncclLog = std::make_shared<const nccl_log::Log>(std::move(log));
}

// The pages of [p, p + bytes) made present in one call, not one fault a page
// as they are first written (a fault costs 10 µs and more in a VM: 160 MB of
// calls, 0.5 s). Where the kernel cannot, they fault in as before.
void prefault(void* p, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const std::uintptr_t page = 4096, a = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1),
                       e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
  if (e > a) (void)::madvise(reinterpret_cast<void*>(a), e - a, MADV_POPULATE_WRITE);
#else
  (void)p, (void)bytes;
#endif
}

// RAS' processes (no rank of their own) onto the ranks of that host and pid.
void attachProcesses(Job& job) {
  for (const RasReport& rep : job.ras)
    for (const RasProcess& p : rep.processes)
      for (Rank& r : job.ranks) {
        const bool same = r.host == p.host && (r.pid == p.pid || (r.pid < 0 && std::find(p.devices.begin(), p.devices.end(), r.device) != p.devices.end()));
        if (!same || severity(p.health) <= severity(r.health)) continue;
        r.health = p.health;
        r.healthText = p.text;
      }
}

}  // namespace

namespace {

Result<Job> readPaths(const std::vector<std::string>& paths) {
  std::vector<Input> inputs;
  if (Status st = listInputs(paths, inputs); !st) return Error(safe(st.text()));
  Job job;
  Builder b(job);
  nccl_log::Reader logReader;
  std::vector<std::string> logFiles;
  Text firstRefusal;
  std::vector<std::string> skipped;  // files of a folder that are none of the formats
  // A few threads read and parse files; whichever finishes merges, in the
  // files' order, every part ready (so merging overlaps parsing, and the
  // result does not depend on which thread was first).
  std::optional<Error> failed;
  std::vector<std::optional<Part>> parts(inputs.size());
  std::size_t merged = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  auto commit = [&](std::size_t i) {  // under mu
    const Input& in = inputs[i];
    Part part = std::move(*parts[i]);
    parts[i].reset();
    if (part.endNs != 0) return void(job.endNs = std::max(job.endNs, part.endNs));  // -1: capture.json without a readable end
    if (part.skipped) {
      if (in.named) return void(failed = Error(say("{0}: not a job trace: none of the formats read (docs/jobs.md)", shownPath(in.path))));
      return skipped.push_back(in.path);
    }
    if (part.isLog) {
      logReader.begin(in.path);
      if (Status st = logReader.feed(part.log); st) (void)logReader.end();
      logFiles.push_back(in.path);
    }
    if (!part.job) return;
    if (!*part.job) {
      const Text why = say("{0}: {1}", shownPath(in.path), part.job->error().text);
      if (in.named) return void(failed = Error(why));
      if (firstRefusal.empty()) firstRefusal = why;
      return Builder::note(job.notes, say("not read: {0}", why));
    }
    merge(job, b, std::move(part.job->value()));
    if (i == 3 && inputs.size() > 8) {  // room for all files' calls, from the first four
      const std::size_t had = job.calls.size();
      job.calls.reserve(std::min(kMaxCalls, had / 4 * inputs.size() * 21 / 20));
      prefault(job.calls.data() + had, (job.calls.capacity() - had) * sizeof(Call));
    }
  };
  const std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>({std::thread::hardware_concurrency(), 8, inputs.size()}));
  std::condition_variable mergedMore;
  std::int64_t reading = 0;  // what the files being read may take (readingBytes), under mu
  auto work = [&] {
    for (std::size_t i; !stop && (i = next++) < inputs.size();) {
      const std::int64_t need = readingBytes(inputs[i].path);
      {  // at most a few parts wait for their turn (memory stays bounded behind a slow file), and the
         // files read at once fit kMaxReadBytes together (one alone always starts)
        std::unique_lock<std::mutex> lock(mu);
        mergedMore.wait(lock, [&] { return stop || (i < merged + 2 * threads && (reading == 0 || reading + need <= kMaxReadBytes)); });
        if (stop) break;
        reading += need;
      }
      // Out of memory in any thread ends the read with the message, never
      // an abort (an exception leaving a thread ends the process).
      std::optional<Part> part;
      try {
        part.emplace(readOne(inputs[i]));
      } catch (const std::bad_alloc&) {
      }
      std::lock_guard<std::mutex> lock(mu);
      reading -= need;
      try {
        if (!part) throw std::bad_alloc();
        parts[i] = std::move(*part);
        while (merged < inputs.size() && parts[merged] && !failed) commit(merged++);
      } catch (const std::bad_alloc&) {
        if (!failed) failed = Error(say("{0}: {1}", shownPath(inputs[i].path), outOfMemory()));
      }
      if (failed) stop = true;
      mergedMore.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < threads; ++k) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {  // no room for another thread's stack (ulimit -v): fewer threads
      break;
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failed) return *failed;
  for (const Rank& r : job.ranks) job.worldSize = std::max(job.worldSize, r.worldSize);
  if (!logFiles.empty()) {
    nccl_log::Log log = logReader.finish();
    if (!log.comms.empty() || !log.choices.empty()) attachLog(job, b, std::move(log), logFiles);
  }
  attachProcesses(job);
  if (!skipped.empty()) {
    std::string list;
    for (std::size_t k = 0; k < skipped.size() && k < kMaxNotes; ++k) list += (k ? ", " : "") + fs::path(skipped[k]).filename().string();
    if (skipped.size() > kMaxNotes) list += ", …";
    Builder::note(job.notes, say("{0} files are not job traces (skipped): {1}", std::int64_t(skipped.size()), list));
  }
  if (job.sources.empty())
    return Error(firstRefusal.empty() ? say("no job trace among the files read (docs/jobs.md names the formats)") : firstRefusal);
  b.finish();
  return job;
}

}  // namespace

Result<Job> read(const std::vector<std::string>& paths) {
  try {
    Result<Job> r = readPaths(paths);
    if (!r) return Error(safe(r.error().text));
    makeSafe(*r);
    return r;
  } catch (const std::bad_alloc&) {
    return Error(outOfMemory());
  }
}

namespace {

Result<Job> readOneFile(std::string_view bytes, const std::string& name) {
  std::optional<Format> also;
  const auto f = detect(bytes, &also);
  if (!f) return Error(say("{0}: not a job trace: none of the formats read (docs/jobs.md)", name));
  Job job;
  Builder b(job);
  Result<Job> part = Job{};
  switch (*f) {
    case Format::flight_recorder_pickle: case Format::flight_recorder_json: part = readFlightRecorder(bytes, name, *f); break;
    case Format::nccl_ras_text: case Format::nccl_ras_json: case Format::nccl_ras_event: part = readRas(bytes, name, *f); break;
    case Format::nccl_inspector: part = readInspector(bytes, name); break;
    case Format::nccl_profiler_trace: case Format::nccl_profiler_lines: part = readProfiler(bytes, name, *f); break;
    case Format::nccl_tests: part = readNcclTests(bytes, name); break;
    case Format::capture: part = readCapture(bytes, name); break;
    case Format::nccl_log: {
      auto log = nccl_log::readText(bytes, name);
      if (!log) return Error(say("{0}: {1}", name, log.error().text));
      attachLog(job, b, std::move(*log), {name});
      b.finish();
      return job;
    }
  }
  if (!part) return Error(say("{0}: {1}", name, part.error().text));
  merge(job, b, std::move(*part));
  for (const Rank& r : job.ranks) job.worldSize = std::max(job.worldSize, r.worldSize);
  attachProcesses(job);
  b.finish();
  return job;
}

}  // namespace

Result<Job> readBytes(std::string_view bytes, const std::string& name) {
  try {
    Result<Job> r = readOneFile(bytes, name);
    if (!r) return Error(safe(r.error().text));
    makeSafe(*r);
    return r;
  } catch (const std::bad_alloc&) {
    return Error(outOfMemory());
  }
}

}  // namespace collviz::job
