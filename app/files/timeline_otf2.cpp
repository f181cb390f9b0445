// The job's calls as an OTF2 archive (timeline.h), through Debian's libotf2
// (libopen-trace-format2-dev): a location per rank in a process per rank,
// grouped by host in the system tree; an MPI communicator per group, its
// members the world ranks; per call Enter, MpiCollectiveBegin,
// MpiCollectiveEnd (op, communicator, root, bytes sent and received) and
// Leave, with a region per function. Timestamps are nanoseconds.
#include "app/files/timeline.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>
#include <unistd.h>

#ifdef COLLVIZ_HAVE_OTF2
#include <otf2/otf2.h>
#endif

namespace collviz::ui {

namespace fs = std::filesystem;

#ifndef COLLVIZ_HAVE_OTF2

bool haveOtf2() { return false; }
Status writeOtf2(const job::Job&, const std::string&) {
  return Error(say("this collviz was built without OTF2 (Debian: libopen-trace-format2-dev): write a Chrome trace instead (-o trace.json)"));
}

#else

bool haveOtf2() { return true; }

namespace {

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp postFlush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
const OTF2_FlushCallbacks kFlush = {preFlush, postFlush};

// OTF2's collective op for a call, from the function's name (an MPI capture)
// or the plain op; false for what is not a collective.
bool collectiveOp(std::string_view name, std::string_view op, OTF2_CollectiveOp& out) {
  static const std::map<std::string_view, OTF2_CollectiveOp> byName = {
      {"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER}, {"MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST},
      {"MPI_Gather", OTF2_COLLECTIVE_OP_GATHER}, {"MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
      {"MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER}, {"MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
      {"MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER}, {"MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
      {"MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL}, {"MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
      {"MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW}, {"MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
      {"MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE}, {"MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
      {"MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
      {"MPI_Scan", OTF2_COLLECTIVE_OP_SCAN}, {"MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN}};
  std::string_view n = name;
  if (n.size() > 5 && n.substr(0, 5) == "MPI_I") {  // MPI_Iallreduce -> MPI_Allreduce
    static thread_local std::string blocking;
    blocking = "MPI_" + std::string(1, char(std::toupper(static_cast<unsigned char>(n[5])))) + std::string(n.substr(6));
    n = blocking;
  }
  if (auto it = byName.find(n); it != byName.end()) return out = it->second, true;
  static const std::map<std::string_view, OTF2_CollectiveOp> byOp = {
      {"barrier", OTF2_COLLECTIVE_OP_BARRIER}, {"broadcast", OTF2_COLLECTIVE_OP_BCAST},
      {"gather", OTF2_COLLECTIVE_OP_GATHER}, {"scatter", OTF2_COLLECTIVE_OP_SCATTER},
      {"all_gather", OTF2_COLLECTIVE_OP_ALLGATHER}, {"all_to_all", OTF2_COLLECTIVE_OP_ALLTOALL},
      {"all_reduce", OTF2_COLLECTIVE_OP_ALLREDUCE}, {"reduce", OTF2_COLLECTIVE_OP_REDUCE},
      {"reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER}, {"scan", OTF2_COLLECTIVE_OP_SCAN},
      {"exscan", OTF2_COLLECTIVE_OP_EXSCAN}};
  if (auto it = byOp.find(op); it != byOp.end()) return out = it->second, true;
  return false;
}

class Strings {
 public:
  OTF2_StringRef operator()(const std::string& s) {
    auto [it, added] = refs_.emplace(s, OTF2_StringRef(refs_.size()));
    if (added) order_.push_back(s);
    return it->second;
  }
  void write(OTF2_GlobalDefWriter* w) const {
    for (std::size_t i = 0; i < order_.size(); ++i) OTF2_GlobalDefWriter_WriteString(w, OTF2_StringRef(i), order_[i].c_str());
  }

 private:
  std::map<std::string, OTF2_StringRef> refs_;
  std::vector<std::string> order_;
};

Status otf2Error(OTF2_ErrorCode e, const char* what) {
  return Error(say("OTF2 could not write the archive ({0}: {1})", std::string(what), std::string(OTF2_Error_GetName(e))));
}

// Writes the archive `name` into the folder `dir` (which must exist).
Status writeArchive(const job::Job& job, const Timeline& t, const std::string& dir, const std::string& name) {
  OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), name.c_str(), OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive) return Error(say("OTF2 could not open an archive in {0}", dir));
  struct Closer {
    OTF2_Archive* a;
    ~Closer() { OTF2_Archive_Close(a); }
  } closer{archive};
  OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_SetCreator(archive, "collviz");
  OTF2_Archive_SetDescription(archive, "collectives captured or read by collviz");

  // The ranks with slices, in order; a location per rank (its number).
  std::vector<int> ranks;
  for (const TimelineSlice& s : t.slices)
    if (ranks.empty() || ranks.back() != s.rank) ranks.push_back(s.rank);

  Strings str;
  std::map<std::string, OTF2_RegionRef> regions;
  std::map<int, OTF2_CommRef> comms;  // Job group -> comm
  std::vector<std::uint64_t> events(ranks.size(), 0);

  if (OTF2_ErrorCode e = OTF2_Archive_OpenEvtFiles(archive); e != OTF2_SUCCESS) return otf2Error(e, "events");
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, OTF2_LocationRef(ranks[k]));
    if (!w) return Error(say("OTF2 could not open the events of rank {0}", std::int64_t(ranks[k])));
    // This rank's slices as events in time order (a leave before an enter at one instant).
    struct Ev {
      std::int64_t t;
      int leave;  // 1: the end (sorted first at a tie)
      std::size_t slice;
    };
    std::vector<Ev> evs;
    for (std::size_t i = 0; i < t.slices.size(); ++i)
      if (t.slices[i].rank == ranks[k]) {
        evs.push_back({t.slices[i].begin, 0, i});
        evs.push_back({t.slices[i].end, 1, i});
      }
    std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.t != b.t ? a.t < b.t : a.leave > b.leave; });
    for (const Ev& ev : evs) {
      const TimelineSlice& s = t.slices[ev.slice];
      const job::Call& c = job.calls[s.call];
      std::string fname(job.str(c.name).empty() ? job.str(c.op) : job.str(c.name));
      if (fname.empty()) fname = "?";
      auto r = regions.emplace(fname, OTF2_RegionRef(regions.size())).first->second;
      const OTF2_TimeStamp ts = OTF2_TimeStamp(t.origin + ev.t);
      OTF2_CollectiveOp op{};
      const bool coll = !c.p2p && collectiveOp(job.str(c.name), job.str(c.op), op);
      if (coll && !comms.count(c.group)) comms.emplace(c.group, OTF2_CommRef(comms.size()));
      if (!ev.leave) {
        OTF2_EvtWriter_Enter(w, nullptr, ts, r);
        if (coll) OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, ts);
        events[k] += coll ? 2 : 1;
      } else {
        // A call never left has no collective end (it did not complete);
        // its region is left at the trace's end so the location's stack closes.
        if (coll && !s.open) {
          const std::int64_t elem = c.bytes >= 0 && c.inElems > 0 ? c.bytes / std::max<std::int64_t>(1, c.inElems) : 0;
          const std::uint64_t sent = c.inElems > 0 ? std::uint64_t(c.inElems * elem) : 0;
          const std::uint64_t recv = c.outElems > 0 ? std::uint64_t(c.outElems * elem) : 0;
          OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, ts, op, comms[c.group], OTF2_UNDEFINED_UINT32, sent, recv);
        }
        OTF2_EvtWriter_Leave(w, nullptr, ts, r);
        events[k] += coll && !s.open ? 2 : 1;
      }
    }
    OTF2_Archive_CloseEvtWriter(archive, w);
  }
  OTF2_Archive_CloseEvtFiles(archive);

  // Every location needs its (here empty) local definitions.
  if (OTF2_ErrorCode e = OTF2_Archive_OpenDefFiles(archive); e != OTF2_SUCCESS) return otf2Error(e, "definitions");
  for (int r : ranks) {
    OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(archive, OTF2_LocationRef(r));
    if (dw) OTF2_Archive_CloseDefWriter(archive, dw);
  }
  OTF2_Archive_CloseDefFiles(archive);

  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
  if (!g) return Error(say("OTF2 could not open the global definitions"));
  // Strings first: name everything, then write them, then the definitions.
  const OTF2_StringRef sEmpty = str("");
  const OTF2_StringRef sMachine = str("collviz job"), sMachineClass = str("machine"), sNodeClass = str("node");
  const OTF2_StringRef sMpi = str("MPI"), sWorld = str("MPI_COMM_WORLD locations");
  std::map<std::string, OTF2_SystemTreeNodeRef> nodes;
  for (int r : ranks) {
    const job::Rank* rk = job.rank(r);
    nodes.emplace(rk && !rk->host.empty() ? rk->host : std::string("?"), 0);
  }
  {
    OTF2_SystemTreeNodeRef n = 1;
    for (auto& [host, ref] : nodes) ref = n++;
  }
  std::map<std::string, OTF2_StringRef> nodeNames;
  for (auto& [host, ref] : nodes) nodeNames[host] = str(host);
  std::vector<OTF2_StringRef> rankNames;
  for (int r : ranks) rankNames.push_back(str("rank " + std::to_string(r)));
  std::vector<std::pair<std::string, OTF2_RegionRef>> regionList(regions.begin(), regions.end());
  std::map<OTF2_RegionRef, OTF2_StringRef> regionNames;
  for (auto& [fname, ref] : regionList) regionNames[ref] = str(fname);
  std::map<int, OTF2_StringRef> commNames;
  for (auto& [grp, ref] : comms) commNames[grp] = str(job::groupName(job, grp));
  str.write(g);

  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, std::uint64_t(t.origin), std::uint64_t(t.span + 1), std::uint64_t(t.origin));
  OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, sMpi, OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, sMachine, sMachineClass, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (auto& [host, ref] : nodes) OTF2_GlobalDefWriter_WriteSystemTreeNode(g, ref, nodeNames[host], sNodeClass, 0);
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const job::Rank* rk = job.rank(ranks[k]);
    const OTF2_SystemTreeNodeRef node = nodes[rk && !rk->host.empty() ? rk->host : std::string("?")];
    OTF2_GlobalDefWriter_WriteLocationGroup(g, OTF2_LocationGroupRef(ranks[k]), rankNames[k], OTF2_LOCATION_GROUP_TYPE_PROCESS, node,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, OTF2_LocationRef(ranks[k]), rankNames[k], OTF2_LOCATION_TYPE_CPU_THREAD, events[k],
                                       OTF2_LocationGroupRef(ranks[k]));
  }
  for (auto& [fname, ref] : regionList) {
    const OTF2_RegionRole role = fname == "MPI_Barrier" ? OTF2_REGION_ROLE_BARRIER : OTF2_REGION_ROLE_COLL_ALL2ALL;
    OTF2_GlobalDefWriter_WriteRegion(g, ref, regionNames[ref], regionNames[ref], sEmpty, role, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, sEmpty, 0, 0);
  }
  // MPI's communicators: the locations of the world ranks (group 0), then
  // each communicator's members as indices into it.
  std::map<int, std::uint64_t> index;  // world rank -> index in group 0
  std::vector<std::uint64_t> locs;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    index[ranks[k]] = k;
    locs.push_back(std::uint64_t(ranks[k]));
  }
  OTF2_GlobalDefWriter_WriteGroup(g, 0, sWorld, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  std::uint32_t(locs.size()), locs.data());
  for (auto& [grp, ref] : comms) {
    std::vector<std::uint64_t> members;
    const job::Group& gr = job.groups[std::size_t(grp)];
    for (int r : gr.ranks)
      if (auto it = index.find(r); it != index.end()) members.push_back(it->second);
    if (members.empty())  // members never named: the ranks that called in it
      for (const TimelineSlice& s : t.slices)
        if (job.calls[s.call].group == grp && index.count(s.rank)) members.push_back(index[s.rank]);
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    OTF2_GlobalDefWriter_WriteGroup(g, OTF2_GroupRef(ref + 1), commNames[grp], OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, std::uint32_t(members.size()), members.data());
    OTF2_GlobalDefWriter_WriteComm(g, ref, commNames[grp], OTF2_GroupRef(ref + 1), OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  }
  OTF2_Archive_CloseGlobalDefWriter(archive, g);
  return Status();
}

}  // namespace

Status writeOtf2(const job::Job& job, const std::string& path) {
  const fs::path out(path);
  if (out.extension() != ".otf2")
    return Error(say("{0}: an OTF2 archive's name ends in .otf2", path));
  const std::string name = out.stem().string();
  fs::path dir = out.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (fs::exists(dir / name, ec))
    return Error(say("{0} exists: OTF2 writes its events in that folder; remove it or choose another name", (dir / name).string()));
  const Timeline t = layoutTimeline(job);
  if (t.slices.empty()) return Error(say("no call in these files has a time: nothing to put on a timeline"));
  // Written in a temporary folder beside the target, then moved into place.
  std::string tmpl = (dir / ("." + name + ".otf2.XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) return Error(say("{0}: cannot create a folder there", dir.string()));
  const fs::path tmp(tmpl);
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code e;
      fs::remove_all(p, e);
    }
  } remove{tmp};
  if (Status s = writeArchive(job, t, tmp.string(), name); !s.ok()) return s;
  fs::rename(tmp / name, dir / name, ec);
  if (!ec) fs::rename(tmp / (name + ".def"), dir / (name + ".def"), ec);
  if (!ec) fs::rename(tmp / (name + ".otf2"), out, ec);
  if (ec) {
    fs::remove_all(dir / name, ec);
    return Error(say("{0}: cannot move the archive into place", path));
  }
  return Status();
}

#endif

}  // namespace collviz::ui
