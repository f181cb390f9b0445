// nccl-tests' stdout (src/util.cu of nccl-tests 2.x) read into a Job: the
// version and settings lines, "Using devices" (each rank's pid, host,
// device, bus id and GPU: the job's ranks), the table (its columns from its
// header: time, algbw, busbw and #wrong out of place and in place, the
// per-iteration columns where -I printed them, a timestamp column), "Out of
// bounds values" and "Avg bus bandwidth". Lines may carry mpirun
// --tag-output's "[1,0]<stdout>:" (stderr's are not the test's output) or
// srun --label's "0: ". Several tests in one file are several tables.
#include <cstdio>
#include <cstring>
#include <sstream>

#include "engine/job/readers.h"

namespace collviz::job {
namespace {

// The line without mpirun's or srun's prefix; false for a line of stderr.
bool untag(std::string& l) {
  if (!l.empty() && l[0] == '[') {
    const std::size_t close = l.find("]<");
    if (close != std::string::npos && close < 24) {
      const std::size_t end = l.find(">:", close);
      if (end == std::string::npos) return true;
      const bool out = l.compare(close + 2, end - close - 2, "stdout") == 0;
      l.erase(0, end + 2);
      return out;
    }
  }
  std::size_t d = 0;
  while (d < l.size() && d < 6 && std::isdigit(static_cast<unsigned char>(l[d]))) ++d;
  if (d > 0 && d + 1 < l.size() && l[d] == ':' && l[d + 1] == ' ') l.erase(0, d + 2);
  return true;
}

std::vector<std::string> words(const std::string& l) {
  std::istringstream in(l);
  std::vector<std::string> w;
  std::string x;
  while (in >> x && w.size() < 64) w.push_back(x);
  return w;
}

bool number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && !s.empty();
}

// "22907" -> "2.29.7" (NCCL_VERSION_CODE), "2708" -> "2.7.8" (before 2.9).
std::string versionCode(long code) {
  if (code >= 20900) return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
  if (code >= 1000) return std::to_string(code / 1000) + "." + std::to_string(code / 100 % 10) + "." + std::to_string(code % 100);
  return std::to_string(code);
}

}  // namespace

Result<Job> readNcclTests(std::string_view bytes, const std::string& path) {
  Job job = oneSource(path, Format::nccl_tests, std::int64_t(bytes.size()));
  Builder b(job);
  Source& s = job.sources[0];
  std::vector<std::string> cols;  // after "root": the header's column names
  TestRun run;
  run.source = 0;
  auto flush = [&] {
    if (!run.rows.empty() || run.avgBusbw >= 0) job.tests.push_back(std::move(run));
    run = TestRun{};
    run.source = 0;
  };
  for (std::string l : splitLines(bytes)) {
    if (!untag(l)) continue;
    std::string body = l;
    if (!body.empty() && body[0] == '#') body.erase(0, 1);
    const auto w = words(body);
    if (w.empty()) continue;
    char ver[32];
    long headers = 0, library = 0;
    if (std::sscanf(body.c_str(), " nccl-tests version %31s nccl-headers=%ld nccl-library=%ld", ver, &headers, &library) >= 1) {
      s.version = clean(ver, 16);
      if (library > 0) s.library = versionCode(library);
      continue;
    }
    if (body.find("Collective test starting:") != std::string::npos) {
      flush();
      run.test = clean(w.back(), 64);
      continue;
    }
    if (w[0] == "nThread") {
      if (!run.rows.empty()) flush();
      run.settings = clean(body.substr(body.find("nThread")), 300);
      continue;
    }
    int rank, group, dev;
    long long pid;
    char host[256], bus[64];
    if (w[0] == "Rank" && std::sscanf(body.c_str(), " Rank %d Group %d Pid %lld on %255s device %d %63s", &rank, &group, &pid, host, &dev, bus) == 6 &&
        rank >= 0 && rank <= kMaxRank) {
      Rank& r = b.rank(rank);
      r.pid = pid, r.host = clean(host, 64), r.device = dev;
      std::string id = bus;
      if (id.size() > 2 && id.front() == '[' && id.back() == ']') r.busId = clean(id.substr(1, id.size() - 2), 32);
      const std::size_t name = body.find(']', body.find(bus));
      if (name != std::string::npos && name + 2 < body.size()) r.gpu = clean(body.substr(name + 2), 64);
      continue;
    }
    if (w.size() > 6 && w[0] == "size" && w[1] == "count") {
      if (!run.rows.empty()) flush();
      cols.assign(w.begin() + 5, w.end());
      continue;
    }
    if (w[0] == "Out" && body.find("Out of bounds values") != std::string::npos) {
      long long n;
      if (std::sscanf(body.c_str() + body.find(':') + 1, "%lld", &n) == 1) run.outOfBounds = n;
      continue;
    }
    if (w[0] == "Avg" && body.find("Avg bus bandwidth") != std::string::npos) {
      double v;
      if (std::sscanf(body.c_str() + body.find(':') + 1, "%lf", &v) == 1) run.avgBusbw = v;
      continue;
    }
    int wr;
    if (std::sscanf(body.c_str(), " rank=%d #wrong=%d", &rank, &wr) == 2) {
      Builder::note(s.notes, say("rank {0} counted {1} wrong values", rank, wr));
      continue;
    }
    double size, count;
    if (l[0] == '#' || cols.empty() || w.size() < 6 || !number(w[0], size) || !number(w[1], count)) continue;
    TestRow row;
    row.bytes = std::int64_t(size), row.count = std::int64_t(count);
    row.type = clean(w[2], 16), row.redop = clean(w[3], 16);
    double root;
    row.root = number(w[4], root) ? int(root) : -1;
    // The rest by the header's columns; a row of in-place only leaves the first half out.
    std::size_t perPlace = 0;
    for (std::size_t k = 1; k < cols.size(); ++k)
      if (cols[k] == cols[0]) perPlace = k;
    if (perPlace == 0) perPlace = cols.size();
    std::size_t k = 5, c = 0;
    if (w.size() - 5 < cols.size() && w.size() - 5 <= perPlace) c = perPlace;
    for (; k < w.size() && c < cols.size(); ++k, ++c) {
      const int place = c >= perPlace ? 1 : 0;
      const std::string& name = cols[c];
      double v;
      if (name == "#wrong") row.wrong[place] = w[k] == "N/A" ? -1 : number(w[k], v) ? std::int64_t(v) : -1;
      else if (!number(w[k], v)) continue;
      else if (name == "time" || name == "cputime") row.time[place] = v;
      else if (name == "algbw") row.algbw[place] = v;
      else if (name == "busbw") row.busbw[place] = v;
    }
    for (std::int64_t x : row.wrong)
      if (x > 0) run.wrongTotal += x;
    run.rows.push_back(std::move(row));
    ++s.records;
  }
  flush();
  if (job.tests.empty() && job.ranks.empty()) return Error(say("not nccl-tests output: no table and no device line read"));
  b.finish(false);
  return job;
}

}  // namespace collviz::job
