// NCCL RAS (src/ras/client_support.cc) read into a Job: the `ncclras` text
// report (its communicators table, its Errors and Warnings blocks and the
// ranks and processes they name), the JSON status (`ncclras -f json`:
// communicators, their ranks and missing ranks with their status and
// collective counts) and monitor events (JSON objects one after another, or
// text lines "[time] EVENT: ..."). A communicator is a group named by its
// hash ("0x..." as the Inspector and profiler name it too); RAS's ranks are
// the communicator's, taken as the job's for the largest communicator.
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/job/plain.h"
#include "engine/job/readers.h"

namespace collviz::job {
namespace {

using nlohmann::json;

// "... GPU 3 managed by process 3748990 on node node1" / "Process 3748990 on node node1 managing GPU 3".
void processOf(const std::string& l, RasProcess& p) {
  unsigned long long pid = 0;
  char host[256] = {0};
  int dev = -1;
  std::size_t at;
  if ((at = l.find("managed by process ")) != std::string::npos &&
      std::sscanf(l.c_str() + at, "managed by process %llu on node %255s", &pid, host) >= 1) {
    p.pid = std::int64_t(pid);
    p.host = clean(host, 64);
    if (std::size_t g = l.find("GPU "); g != std::string::npos && std::sscanf(l.c_str() + g, "GPU %d", &dev) == 1) p.devices = {dev};
  } else if ((at = l.find("Process ")) != std::string::npos &&
             std::sscanf(l.c_str() + at, "Process %llu on node %255s managing GPU", &pid, host) >= 2) {
    p.pid = std::int64_t(pid);
    p.host = clean(host, 64);
    if (std::size_t g = l.find("managing GPU"); g != std::string::npos) {
      std::size_t c = l.find(' ', g + 12);
      while (c != std::string::npos && c + 1 < l.size() && std::sscanf(l.c_str() + c + 1, "%d", &dev) == 1) {
        p.devices.push_back(dev);
        c = l.find(',', c + 1);
      }
    }
  }
}

class Reader {
 public:
  Reader(const std::string& path, Format f) : job_(oneSource(path, f, 0)), b_(job_) { report_.source = 0; }

  Result<Job> text(std::string_view bytes) {
    const auto ls = splitLines(bytes);
    std::string section;  // "", "Errors", "Warnings"
    bool table = false;
    for (std::size_t i = 0; i < ls.size(); ++i) {
      const std::string& l = ls[i];
      char ver[64];
      if (std::sscanf(l.c_str(), "NCCL version %63s", ver) == 1) report_.version = clean(ver, 40);
      if ((l == "Errors" || l == "Warnings") && i + 1 < ls.size() && ls[i + 1].rfind("===", 0) == 0) {
        section = l, table = false, ++i;
        continue;
      }
      if (l.rfind("Group ", 0) == 0 && l.find("Comms") != std::string::npos) {
        table = true, ++i;  // and its second header line
        continue;
      }
      if (table) {
        int grp, comms, nodes, perComm, inGroup;
        char perNode[32], status[32], errors[64];
        if (std::sscanf(l.c_str(), "%d %d %d %31s %d %d %31s %63s", &grp, &comms, &nodes, perNode, &perComm, &inGroup, status, errors) == 8) {
          RasComm c;
          c.group = "#" + std::to_string(grp);
          c.size = perComm, c.nodes = nodes, c.ranksSeen = inGroup;
          // The table counts no missing rank: the ranks its communicators
          // have less those RAS heard from (8 per comm, 7 in group: 1; the
          // Errors block's "Missing communicator data from N ranks" says it
          // again, and wins).
          c.missing = std::max(0, comms * perComm - inGroup);
          c.status = clean(status, 32), c.errors = clean(errors, 64);
          report_.comms.push_back(c);
          ++job_.sources[0].records;
          continue;
        }
        table = !l.empty();
      }
      if (l.size() > 22 && l[0] == '[' && l[20] == ']') event(l.substr(1, 19), l.substr(22), "");
      else if (!section.empty() && !l.empty() && l[0] != ' ') i = block(ls, i, section == "Errors");
    }
    if (report_.comms.empty() && report_.errors.empty() && report_.warnings.empty() && report_.events.empty() && report_.version.empty())
      return Error(say("not an NCCL RAS report: no communicator table, no Errors or Warnings, no event"));
    return finish();
  }

  Result<Job> status(std::string_view bytes) {
    // nlohmann's DOM takes about 9 times a JSON's bytes: counted first, refused past the file's bound.
    if (const std::size_t budget = plainBudget(bytes.size()); !jsonDomFits(bytes, budget)) return Error(overBudget(budget));
    json j = json::parse(bytes, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error(say("not JSON"));
    report_.version = clean(j.value("nccl_version", std::string()), 40);
    const json none = json::array(), noObject = json::object();
    auto list = [&](const json& o, const char* k) -> const json& { return o.contains(k) && o[k].is_array() ? o[k] : none; };
    auto object = [&](const json& o, const char* k) -> const json& { return o.contains(k) && o[k].is_object() ? o[k] : noObject; };
    const json& comms = list(j, "communicators");
    int largest = -1;
    for (const json& c : comms)
      if (c.is_object()) largest = std::max(largest, c.value("size", -1));
    for (const json& c : comms) {
      if (!c.is_object()) continue;
      RasComm rc;
      rc.hash = hashId(c.value("hash", std::string()));
      rc.size = c.value("size", -1);
      rc.ranksSeen = c.value("ranks_count", -1);
      rc.missing = c.value("missing_ranks_count", -1);
      const int g = b_.group(rc.hash);
      job_.groups[std::size_t(g)].size = rc.size;
      job_.groups[std::size_t(g)].commHash = rc.hash;
      rc.group_index = g;
      const bool global = rc.size > 0 && rc.size == largest;
      std::map<std::string, std::int64_t> most;  // per op, the most launched
      for (const json& r : list(c, "ranks"))
        if (r.is_object())
          for (const auto& [op, n] : object(r, "collective_counts").items())
            if (n.is_number_integer()) most[op] = std::max(most[op], n.get<std::int64_t>());
      bool error = false, mismatch = false;
      for (const json& r : list(c, "ranks")) {
        if (!r.is_object()) continue;
        Health h = Health::ok;
        std::string why;
        const json& st = object(r, "status");
        if (st.value("async_error", 0) != 0 || st.value("abort_flag", false))
          h = Health::error, error = true, why = "async_error " + std::to_string(st.value("async_error", 0));
        for (const auto& [op, n] : object(r, "collective_counts").items())
          if (n.is_number_integer() && n.get<std::int64_t>() < most[op] && h == Health::ok)
            h = Health::mismatch, mismatch = true, why = op + " " + std::to_string(n.get<std::int64_t>()) + " < " + std::to_string(most[op]);
        member(r, h, why, global, g);
      }
      for (const json& r : list(c, "missing_ranks")) {
        if (!r.is_object()) continue;
        const json& st = object(r, "status");
        const Health h = st.value("considered_dead", false) ? Health::dead : st.value("unresponsive", false) ? Health::unresponsive : Health::incomplete;
        member(r, h, std::string(healthName(h)), global, g);
      }
      rc.status = "RUNNING";
      rc.errors = rc.missing > 0 ? "INCOMPLETE" : error ? "ERROR" : mismatch ? "MISMATCH" : "OK";
      report_.comms.push_back(rc);
      ++job_.sources[0].records;
    }
    return finish();
  }

  Result<Job> events(std::string_view bytes) {
    std::istringstream in{std::string(bytes)};
    while (in >> std::ws, in.peek() != EOF) {
      if (in.peek() != '{') {  // a text event line among them
        std::string l;
        std::getline(in, l);
        if (l.size() > 22 && l[0] == '[' && l[20] == ']') event(l.substr(1, 19), l.substr(22), "");
        continue;
      }
      json j;
      try {
        in >> j;
      } catch (const json::exception& e) {
        if (report_.events.empty()) return Error(say("not an NCCL RAS event: {0}", std::string(e.what())));
        Builder::note(job_.sources[0].notes, say("an event that is not JSON: the rest not read ({0})", std::string(e.what())));
        break;
      }
      if (!j.is_object()) continue;
      const json peer = j.contains("peer") && j["peer"].is_object() ? j["peer"] : json::object();
      std::string who;
      if (peer.contains("pid")) {
        who = "Process " + std::to_string(peer.value("pid", -1)) + " on node " + peer.value("host", std::string("?")) + " managing GPU";
        const json devs = peer.value("cuda_devs", json::array());
        for (const json& d : devs) who += " " + (d.is_number() ? std::to_string(d.get<int>()) : "?");
      } else {
        who = peer.value("addr", std::string());
      }
      event(j.value("timestamp", std::string()), j.value("event", std::string("?")) + ": " + who, j.value("details", std::string()));
    }
    if (report_.events.empty()) return Error(say("not an NCCL RAS event: none read"));
    return finish();
  }

 private:
  void member(const json& r, Health h, const std::string& why, bool global, int g) {
    const int rank = r.value("rank", -1);
    if (rank < 0 || rank > kMaxRank) return;
    const std::string host = clean(r.value("host", std::string()), 64);
    if (!global) {  // a rank of a smaller communicator: said in the report, not put on the job's rank
      if (h != Health::ok) report_.errors.push_back(Said(clean("#" + job_.groups[std::size_t(g)].id + " rank " + std::to_string(rank) + ": " + why, 200)));
      return;
    }
    Rank& x = b_.rank(rank);
    x.host = host;
    x.pid = r.value("pid", std::int64_t(-1));
    x.device = r.value("cuda_dev", -1);
    if (severity(h) > severity(x.health)) x.health = h, x.healthText = Said(clean(why, 200));
    job_.groups[std::size_t(g)].ranks.push_back(rank);  // made unique at finish (a search here: quadratic in the ranks)
  }

  void event(std::string ts, std::string what, std::string details) {
    const std::string line = clean(ts + " " + what + (details.empty() ? "" : " " + details), 300);
    report_.events.push_back(Said(line));
    ++job_.sources[0].records;
    RasProcess p;
    processOf(what, p);
    const std::string type = what.substr(0, what.find(':'));
    p.health = type == "PEER_DEAD" || type == "PEER_TIMEOUT_DEAD" ? Health::dead
               : type == "PEER_UNRESPONSIVE" || type == "PEER_SEND_STUCK" || type == "PEER_INIT_TIMEOUT" ? Health::unresponsive
                                                                                                          : Health::unknown;
    p.text = Said(line);
    if (p.pid >= 0 && p.health != Health::unknown) report_.processes.push_back(std::move(p));
  }

  // One block of Errors or Warnings: its title line and its indented lines.
  std::size_t block(const std::vector<std::string>& ls, std::size_t i, bool error) {
    const std::string title = ls[i];
    std::string text = title;
    std::string hash;
    if (title.size() > 2 && title[0] == '#') {  // "#0-0 (1bdb83b038775869) INCOMPLETE"
      const std::size_t a = title.find('('), z = title.find(')');
      if (a != std::string::npos && z > a) hash = hashId(title.substr(a + 1, z - a - 1));
    }
    const std::string kind = title.substr(title.rfind(' ') == std::string::npos ? 0 : title.rfind(' ') + 1);
    const Health h = kind == "INCOMPLETE" ? Health::incomplete : kind == "DEAD" ? Health::dead : kind == "MISMATCH" ? Health::mismatch
                     : kind == "ERROR" ? Health::error : Health::unknown;
    int g = -1;
    if (!hash.empty()) {
      g = b_.group(hash);
      for (RasComm& c : report_.comms)
        if (c.hash.empty() && c.group == title.substr(0, title.find('-'))) c.hash = hash, c.group_index = g;
    }
    std::size_t j = i + 1;
    for (; j < ls.size() && !ls[j].empty() && ls[j][0] == ' '; ++j) {
      const std::string& l = ls[j];
      text += " /" + l.substr(1);
      int rank, count;
      if (g >= 0 && std::sscanf(l.c_str(), " Missing communicator data from %d rank", &count) == 1)
        for (RasComm& c : report_.comms)
          if (c.group_index == g) c.missing = count;
      if (std::sscanf(l.c_str(), " Rank %d", &rank) == 1 && rank >= 0 && rank <= kMaxRank && g >= 0) {
        RasProcess p;
        processOf(l, p);
        Rank& r = b_.rank(rank);
        if (r.host.empty()) r.host = p.host;
        if (r.pid < 0) r.pid = p.pid;
        if (r.device < 0 && !p.devices.empty()) r.device = p.devices[0];
        if (severity(h) > severity(r.health)) r.health = h, r.healthText = Said(clean(l.substr(l.find_first_not_of(' ')), 200));
        Group& grp = job_.groups[std::size_t(g)];
        if (std::find(grp.ranks.begin(), grp.ranks.end(), rank) == grp.ranks.end()) grp.ranks.push_back(rank);
      } else if (l.find("Process ") != std::string::npos && h != Health::unknown) {
        RasProcess p;
        processOf(l, p);
        p.health = h;
        p.text = Said(clean(l.substr(l.find_first_not_of(' ')), 200));
        if (p.pid >= 0) report_.processes.push_back(std::move(p));
      }
    }
    (error ? report_.errors : report_.warnings).push_back(Said(clean(text, 600)));
    return j - 1;
  }

  Result<Job> finish() {
    for (Group& g : job_.groups) {
      std::sort(g.ranks.begin(), g.ranks.end());
      g.ranks.erase(std::unique(g.ranks.begin(), g.ranks.end()), g.ranks.end());
    }
    job_.ras.push_back(std::move(report_));
    b_.finish(false);
    return std::move(job_);
  }

  Job job_;
  Builder b_;
  RasReport report_;
};

}  // namespace

Result<Job> readRas(std::string_view bytes, const std::string& path, Format f) {
  Reader r(path, f);
  Result<Job> job = Error(say("not an NCCL RAS report"));
  try {
    job = f == Format::nccl_ras_json ? r.status(bytes) : f == Format::nccl_ras_event ? r.events(bytes) : r.text(bytes);
  } catch (const nlohmann::json::exception& e) {  // a field of another type than RAS writes
    return Error(say("not an NCCL RAS report: {0}", std::string(e.what())));
  }
  if (job) {
    job->sources[0].bytes = std::int64_t(bytes.size());
    if (!job->ras.empty()) job->sources[0].library = job->ras[0].version;
  }
  return job;
}

}  // namespace collviz::job
