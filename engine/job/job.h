// One model of a real job, whatever files it came from: its ranks (with host,
// device and pid where a file says), hosts, process groups (communicators)
// and the collectives each rank called in each group, plus what every file
// was and what it said. The readers of engine/job/ (one file per format:
// PyTorch Flight Recorder dumps, NCCL RAS, NCCL Inspector, NCCL profiler
// traces, nccl-tests output; NCCL's own INFO log in nccl_log/) all fill this
// one Job, so a Flight Recorder dump and an NCCL log of the same job meet in
// one picture: ranks by their number, groups by their name or NCCL's
// communicator hash.
//
// Plain data, no UI: the engine reads (read.cpp) and analyses (analysis.cpp), app/ draws
// and prints. Ranks are the job's global ranks (PyTorch's default group,
// NCCL's rank in a communicator spanning the job); a group's `ranks` lists
// global ranks in the group's own rank order.
//
// Strings that repeat in every call (op, dtype, shape, algorithm) are
// interned: a Call holds a Name, Job::str(name) gives the text. A Job copies
// and moves as a value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/spec.h"
#include "engine/text.h"

namespace collviz::nccl_log {
struct Log;  // engine/job/nccl_log/nccl_log.h
}

namespace collviz::job {

// ---- Bounds: what a read keeps (past them: a clear error or a counted note) ----
constexpr std::int64_t kMaxFileBytes = std::int64_t(512) << 20;  // one file; larger: refused, named
constexpr int kMaxRank = 1 << 20;            // a rank number above: refused
constexpr std::size_t kMaxJobRanks = 65536;  // ranks in one group list
constexpr std::size_t kMaxFiles = 100000;    // files in one read
constexpr std::size_t kMaxFolderDepth = 3;   // subfolders read below a folder named (DIR/node0/_dump_0: 1)
// Memory (docs/jobs.md "Memory"): what a file's bytes are parsed into
// (plain.h) at most 8x the bytes plus 16 MiB, never past 1 GiB; the files
// read at once, their bytes and that, at most kMaxReadBytes together (a
// file waits its turn; one alone may take its own bound).
constexpr std::int64_t kMaxReadBytes = std::int64_t(2) << 30;
constexpr std::size_t kMaxCalls = 50000000;  // calls kept over all files (128 B each)
constexpr std::size_t kMaxNotes = 16;        // files named in a note that lists them (the rest: "…")

// ---- What each file was ----
enum class Format : std::uint8_t {
  flight_recorder_pickle,  // PyTorch's dump (torch's pickler, or pickle.dump of the dict)
  flight_recorder_json,    // PyTorch's dump_json (TORCH_NCCL_..._DUMP_ON_TIMEOUT with json)
  nccl_ras_text,           // `ncclras` / `ncclras -v` text report
  nccl_ras_json,           // `ncclras -f json` status report
  nccl_ras_event,          // a RAS monitor event (JSON)
  nccl_inspector,          // NCCL Inspector plugin: one JSON line per collective
  nccl_profiler_trace,     // the example profiler plugin's Chrome trace (read leniently)
  nccl_profiler_lines,     // a profiler plugin's JSON lines
  nccl_tests,              // nccl-tests stdout (mpirun --tag-output prefixes allowed)
  nccl_log,                // NCCL's own NCCL_DEBUG=INFO log (nccl_log/)
  capture,                 // collviz's own tap: one process's capture file (tap/capture_format.h; capture.cpp)
};
std::string_view formatName(Format f);  // "flight_recorder_pickle", ... (JSON, --json)
Text formatText(Format f);              // "PyTorch Flight Recorder dump (pickle)" for a person
// A file of one rank that records every call it entered, with its state
// (a Flight Recorder dump, a capture file): what the waits-for analysis reads.
bool perRank(Format f);

// A kind of thing noted while reading, counted: the first example of each
// kind is kept, the rest only counted.
struct Note {
  std::string kind;       // what is counted: the message's English template
  Said text;              // the first example, complete ("_dump_3: entry 12: state 'x' is not ...")
  std::int64_t count = 1; // how many times this kind was seen
};

struct CaptureData;  // below

struct Source {
  std::string path;       // as read (a file inside a folder: the folder's path / its name)
  Format format = Format::flight_recorder_pickle;
  std::int64_t bytes = 0;
  int rank = -1;          // the rank this file is of, where it is one rank's (a dump: from its entries / name)
  std::string host;       // the host it names (in its content, or its file name: "_dump_node3_5")
  std::string version;    // the format's own version: Flight Recorder "2.9", Inspector "v4.0", nccl-tests "2.18.0"
  std::string library;    // the communication library: Flight Recorder nccl_version / comm_lib_version, RAS nccl_version
  std::int64_t records = 0;  // entries / lines / events / table rows read
  std::vector<Note> notes;   // what was odd in it (counted), never fatal
  // A capture file's calls' side data (Job::captured); null for other formats.
  std::shared_ptr<const CaptureData> capture;
};

// ---- Ranks and hosts ----
enum class Health : std::uint8_t {
  unknown,       // no source says
  ok,            // RAS: RUNNING, nothing wrong named
  incomplete,    // RAS: INCOMPLETE (its communicator data missing)
  dead,          // RAS: DEAD (considered dead, unreachable) / PEER_DEAD event
  mismatch,      // RAS: MISMATCH (a different operation count than its peers)
  unresponsive,  // RAS JSON: missing rank, unresponsive
  error,         // RAS: an async error, abort flag
};
std::string_view healthName(Health h);  // "ok", "incomplete", ... (JSON)
// How bad: unknown 0, ok 1, mismatch 2, incomplete 3, unresponsive 4, error 5, dead 6.
int severity(Health h);

struct Rank {
  int rank = -1;
  std::string host;        // "" where no source says
  int device = -1;         // CUDA device
  std::int64_t pid = -1;
  std::string busId;       // "0000:04:00" (nccl-tests, NCCL log)
  std::string gpu;         // "NVIDIA H100 80GB HBM3" (nccl-tests)
  int dump = -1;           // Job::sources index of its Flight Recorder dump or capture file; -1: none read
  int worldSize = -1;      // the job's size as this rank's dump says (its default group's ranks)
  Health health = Health::unknown;
  Said healthText;         // RAS's own words for it ("Rank 7 has launched up to operation 60")
  int duplicates = 0;      // more Flight Recorder dumps that claimed this rank (not read: the first is kept)
};

// ---- Process groups (PyTorch) and communicators (NCCL) ----
struct Group {
  std::string id;           // PyTorch's group name ("35": one name for the group on every rank), else NCCL's communicator hash
  std::string desc;         // "TENSOR_MODEL_PARALLEL_GROUP", "default_pg", "" where none
  std::vector<int> ranks;   // global ranks, in the group's rank order (pg_config, or the communicator's ranks seen)
  int size = -1;            // ranks in it as its sources say (-1: unknown); may exceed ranks.size() when ranks are not named
  std::string commHash;     // NCCL's communicator hash / id where a source names one (RAS, Inspector, profiler, NCCL log)
  std::int64_t calls = 0;   // calls recorded in it (all ranks)
};

// ---- Calls: one rank's one collective (or p2p op) in one group ----
enum class State : std::uint8_t { unknown, scheduled, started, completed };
std::string_view stateName(State s);  // "scheduled", "started", "completed", "unknown"

using Name = std::uint32_t;  // Job::str(name); 0 is ""

struct Call {  // 128 bytes: the 64-bit fields first, then the 32-, 16- and 8-bit ones
  std::int64_t seq = -1;          // collective_seq_id (p2p: p2p_seq_id); NCCL: its seq / coll_sn / opCount
  std::int64_t record = -1;       // the file's own record number (Flight Recorder record_id), -1 if none
  std::int64_t inElems = -1, outElems = -1;  // elements over all tensors
  std::int64_t bytes = -1;        // the message size where a source gives bytes (Inspector, profiler: count x dtype)
  // Times in ns since the epoch of their source (0: unknown); duration where measured.
  std::int64_t created = 0, started = 0, completed = 0;
  int rank = -1;
  int group = -1;                 // Job::groups index
  int source = -1;                // Job::sources index
  int peer = -1;                  // p2p: the other rank (global where the name tells)
  Name op = 0;                    // the op, plain: "all_reduce", "all_gather", "all_to_all", "send", "barrier", ...
  Name name = 0;                  // as the file wrote it: "nccl:_all_gather_base", "nccl:send 0->3", "AllReduce"
  Name dtype = 0;                 // as written: "BFloat16", "ncclFloat32", "float"
  Name inShape = 0, outShape = 0; // "4096x1x5120" (several tensors: "4096x5120;16"), "" when unknown
  float durationMs = -1;
  // What NCCL did (Inspector, profiler): -1 / 0 where no source says.
  Name algo = 0, proto = 0;       // "RING", "SIMPLE"
  Name outDtype = 0;              // the output's dtype where a source says (Flight Recorder), "" otherwise
  float busbw = -1, algbw = -1;   // GB/s
  std::int16_t channels = -1;
  bool p2p = false;
  State state = State::unknown;
};

// ---- A capture's side data (capture.cpp): what a Call has no room for ----
// Kept per capture file (Source::capture) and indexed by the Call's `record`
// (its number among its file's calls), so it follows its Call through every
// reordering of Job::calls (Builder::finish's sort, read()'s merge): look it
// up with Job::captured / inputBytes / outputBytes, never by position.
struct Captured {
  std::uint64_t inAt = 0, outAt = 0;        // where the kept bytes start in CaptureData::bytes
  std::uint32_t inBytes = 0, outBytes = 0;  // bytes kept: the input at entry, the output at exit (0: none)
  std::int32_t root = -1;                   // rank in the communicator; -1: none
  std::int32_t status = 0;                  // the call's return code (MPI_SUCCESS is 0), once it exited
  std::uint32_t dtypeSize = 0;              // bytes per element
  std::uint16_t flags = 0;                  // tap::CallFlag bits (kInPlace, kNonblocking, kUserOp, kDerived, kBytesLeftOut, ...)
  std::uint8_t redop = 0;                   // tap::ROp; redopName() says it
  bool exited = false;                      // t_exit was set: the output bytes and status are valid
  bool inPlace() const { return flags & 1; }  // tap::kInPlace
};
struct CaptureData {
  std::vector<Captured> calls;  // by Call::record
  std::string bytes;            // every kept buffer, back to back
  bool nccl = false;            // written by the NCCL tap (its header's library), not the MPI tap
};
// "MPI_SUM", "ncclSum", "user-defined"; "" for none (a Captured's redop).
std::string_view redopName(std::uint8_t redop);

// A rank's own count of its collectives in one group (Flight Recorder's
// pg_status): what it enqueued, saw start and saw complete, by sequence number.
struct PgStatus {
  int rank = -1;
  int group = -1;                 // Job::groups index; -1: its local id appears in none of the rank's entries
  std::int64_t localId = -1;      // the rank's own number for the group (pg_id)
  std::int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1;
};

// ---- nccl-tests: the table, per size ----
struct TestRow {
  std::int64_t bytes = 0, count = 0;
  std::string type, redop;
  int root = -1;
  double time[2] = {-1, -1}, algbw[2] = {-1, -1}, busbw[2] = {-1, -1};  // [0] out-of-place, [1] in-place
  std::int64_t wrong[2] = {-1, -1};  // #wrong; -1: not checked ("N/A")
};
struct TestRun {
  int source = -1;
  std::string test;                // "all_reduce_perf" (from "Collective test starting: ..."), "" if not said
  std::string settings;            // "nThread 1 nGpus 1 minBytes 8 maxBytes ... graph: 0"
  std::vector<TestRow> rows;
  double avgBusbw = -1;            // "# Avg bus bandwidth"
  std::int64_t outOfBounds = -1;   // "# Out of bounds values : 0 OK"
  std::int64_t wrongTotal = 0;     // sum of #wrong over the table
};

// ---- NCCL RAS: per communicator, and the report's errors and warnings ----
struct RasComm {
  std::string hash;                // "1bdb83b038775869" (text) / "0xae94423cfbb2ef4a" (JSON)
  std::string group;               // text: "#0-0" (group #, comm # in it)
  int size = -1, ranksSeen = -1, missing = -1, nodes = -1;
  std::string status, errors;      // "RUNNING", "INCOMPLETE" / "OK", "MISMATCH"
  int group_index = -1;            // Job::groups index it was attached to
};
// A process RAS names without its rank (the job's DEAD and INCOMPLETE
// blocks, monitor events): attached to the ranks of that host and pid (or
// host and GPU) that another file names.
struct RasProcess {
  std::string host;
  std::int64_t pid = -1;
  std::vector<int> devices;        // CUDA devices it manages
  Health health = Health::unknown;
  Said text;                       // RAS's own line
};
struct RasReport {
  int source = -1;
  std::string version;             // NCCL version
  std::vector<RasComm> comms;
  std::vector<Said> errors, warnings;  // each block, its lines joined ("DEAD: 1 job process is considered dead ...")
  std::vector<RasProcess> processes;
  std::vector<Said> events;        // monitor events: "2025-12-19 13:07:07 PEER_DEAD: Process 1524345 on node 172.16.64.245"
};

// ---- The job ----
struct Job {
  std::vector<Source> sources;
  std::vector<Rank> ranks;         // sorted by rank; only ranks some source names
  std::vector<std::string> hosts;  // distinct, in the order of their lowest rank
  std::vector<Group> groups;
  std::vector<Call> calls;         // by group, then p2p after collectives, then seq, then rank
  std::vector<PgStatus> status;    // Flight Recorder's pg_status, per rank and group
  int worldSize = -1;              // the job's size, as the sources agree (-1: none says)
  std::vector<TestRun> tests;
  std::vector<RasReport> ras;
  std::vector<Note> notes;         // the job's own: ranks that disagree, duplicates, files skipped
  // Where two files put one rank on different hosts or in different
  // processes: they are of different jobs (or runs), merged by rank number
  // all the same; the first such rank, said (empty: none seen).
  Said otherJob;
  std::shared_ptr<const nccl_log::Log> ncclLog;  // NCCL's own log, where one was read (its ranks and comms merged above)
  // A finished capture's end (the "end" of collviz watch's capture.json in
  // its folder), ns since the epoch; 0: not known. The time a finished
  // capture's verdict counts "outside MPI for 12.4 s" to.
  std::int64_t endNs = 0;

  // Interned strings (Call::op, name, dtype, shapes, algo, proto).
  std::vector<std::string> names{std::string()};
  std::string_view str(Name n) const { return n < names.size() ? std::string_view(names[n]) : std::string_view(); }

  const Rank* rank(int r) const;            // nullptr when no source names it
  // A captured call's side data (capture files only): nullptr for any other
  // call. Its bytes: "" where none were kept (or, output, before it exited).
  const Captured* captured(const Call& c) const;
  std::string_view inputBytes(const Call& c) const;
  std::string_view outputBytes(const Call& c) const;
  int groupIndex(std::string_view id) const;  // -1 when none
};

// Builds a Job: the readers' one way in (interns names, merges ranks).
class Builder {
 public:
  explicit Builder(Job& job) : job_(job) {}
  Name intern(std::string_view s);
  Rank& rank(int r);                         // found or added (kept sorted at finish)
  int group(const std::string& id);          // found or added
  // Count a note of its kind (its id: the English template), keeping the first text.
  static void note(std::vector<Note>& notes, Text text);
  // Sort ranks and calls (by group, p2p after collectives, seq, rank, then
  // file and record: a total order, sorted in place); hosts; calls per group.
  // A reader's one-file Job need not sort its calls (read() sorts them all).
  void finish(bool sortCalls = true);

 private:
  Job& job_;
  std::unordered_map<std::string, Name> names_;
  std::unordered_map<int, std::size_t> ranks_;
  std::unordered_map<std::string, int> groups_;
};

// ---- What the analysis finds (analysis.cpp) ----
enum class FindingKind : std::uint8_t {
  hang,            // some ranks wait in a collective that others never entered
  mismatch,        // ranks disagree on the op, size or dtype of one collective
  missing_dump,    // a rank of the job (or a group) has no dump: said, not guessed
  world_size,      // ranks disagree on the job's size
  duplicate_rank,  // two files claim one rank
  other_job,       // the files are of more than one job (a rank on two hosts or in two processes)
  ras,             // a RAS status other than OK
  wrong_results,   // nccl-tests counted wrong values
  deadlock,        // ranks that wait for each other in a cycle (`ranks`: its members)
};
std::string_view findingName(FindingKind k);  // "hang", ... (JSON)

struct Finding {
  FindingKind kind = FindingKind::hang;
  int group = -1;                 // Job::groups index, -1: the job
  std::int64_t seq = -1;          // the collective's sequence number in the group
  bool p2p = false;
  Name op = 0;                    // the collective (as the ranks that entered it named it)
  std::vector<int> ranks;         // at fault: never arrived, disagree, no dump, duplicate
  std::vector<int> waiting;       // hang: the ranks waiting in it
  std::string field;              // mismatch: "op", "size" or "dtype"
  Said text;                      // one sentence
};

// Where each rank of a group stands: the figure's rows.
struct Progress {
  int rank = -1;
  bool dumped = false;            // its dump was read (else nothing is known of it)
  std::int64_t lastCompleted = -1, lastStarted = -1, lastEntered = -1;  // seqs (collectives)
};
struct GroupProgress {
  int group = -1;
  std::vector<Progress> ranks;    // in Group::ranks order
};

struct Analysis {
  std::vector<int> verdictRanks;  // the ranks the verdict names: those the waiting leads to (outside, gone, no dump), or a cycle's members
  Said verdict;                   // the sentence: "ranks 12 and 14 never entered all_to_all #20545 of EXPERT_MODEL_PARALLEL_GROUP (74); 2 ranks wait there"
  std::vector<Finding> findings;  // the first is the verdict's, when there is one
  std::vector<int> missingDumps;  // ranks of the job with no dump (when some ranks have one)
  std::vector<GroupProgress> groups;
};

// ---- Texts the analysis, the CLI and the figure share (texts.cpp) ----
// "rank 12", "ranks 9 and 14", "ranks 0–7, 9 and 12" (runs of 3 or more
// as ranges; past 12 pieces "and N more").
Text rankList(std::vector<int> ranks);
// "EXPERT_MODEL_PARALLEL_GROUP (74)": its description and id; the id alone
// where it has no description.
std::string groupName(const Job& job, int group);
// NCCL RAS's word for a health: "INCOMPLETE", "DEAD", "MISMATCH", ...
std::string healthWord(Health h);

// ---- Reading and analysing ----
// Reads files and folders (every regular file in a folder and in its
// subfolders, kMaxFolderDepth levels down),
// each file's kind told from its content. A file named on the command line
// that is not a job trace, or that is refused (a pickle with an opcode other
// than plain data's), is an error naming it; in a folder such a file is a
// counted note and the rest is read. Errors also for: no file read at all,
// more than kMaxFiles, a file over kMaxFileBytes.
Result<Job> read(const std::vector<std::string>& paths);
// One file's bytes (tests, stdin): `name` is its path for messages and for
// the rank and host a dump's name tells.
Result<Job> readBytes(std::string_view bytes, const std::string& name);

// analysis.cpp says the rules; docs/jobs.md too. `nowNs` (ns since the
// epoch): the time "outside MPI for 12.4 s" counts to; the live watcher
// passes the clock, 0 takes the capture's end (Job::endNs) where known,
// else the newest time in the job.
Analysis analyse(const Job& job, std::int64_t nowNs = 0);

// A call as collviz's own op (engine/spec.h), to run it on the local
// backend at the same shape: op, ranks (the group's, at most kMaxRanks),
// dtype, elements per block capped so one rank's input and output fit
// `maxRankBytes`. Not ok, with the reason, for what collviz cannot run:
// point-to-point, barrier, coalesced ops, an unknown op or dtype.
struct OpMapping {
  bool ok = false;
  OpSpec spec;
  Said reason;                  // not ok: why
  std::vector<Said> changes;    // ok: what differs from the call ("64 ranks shown as 16", "elements capped")
  std::int64_t elems = -1;      // the call's own elements per block (before the cap)
};
// collviz's dtype for a dtype as a job's files name it (PyTorch's, NCCL's,
// nccl-tests'); none for one collviz does not have.
std::optional<DType> dtypeOf(std::string_view name);
OpMapping toOpSpec(const Job& job, const Call& call, std::int64_t maxRankBytes = std::int64_t(kMaxRankBytes));

}  // namespace collviz::job
