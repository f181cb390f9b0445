// A job's calls for timeline tools (`collviz export --job DIR -o trace.json`
// or `-o trace.otf2`): Chrome's trace-event JSON, which Perfetto and
// chrome://tracing open, and OTF2, the format Score-P writes and Vampir
// reads (through Debian's libotf2; without it, said).
//
// Both draw the same tracks: a process per rank ("rank N", its host in the
// args), a track per communicator within it, a slice per call from its
// entry to its exit. A call still in flight when the trace ends (a hang, a
// killed rank) runs to the trace's end and says so. Calls of one rank on one
// communicator that overlap (nonblocking ones outstanding together) go to a
// second track of that communicator, so no track has overlapping slices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/job/job.h"
#include "engine/text.h"

namespace collviz::ui {

// A slice: one call placed on its rank's track. Times in ns since the
// job's earliest call.
struct TimelineSlice {
  std::size_t call = 0;   // Job::calls index
  int rank = -1;
  int track = 0;          // the rank's track: communicator and lane (timelineTracks)
  std::int64_t begin = 0, end = 0;
  bool open = false;      // never left: runs to the trace's end
};
struct TimelineTrack {
  int group = -1;         // Job::groups index
  int lane = 0;           // 0, or 1.. for overlapping calls
};
struct Timeline {
  std::int64_t origin = 0;          // ns: the earliest time (the slices count from it)
  std::int64_t span = 0;            // ns: the latest time less origin
  std::vector<TimelineTrack> tracks;
  std::vector<TimelineSlice> slices;  // by rank, then track, then begin
};
// The job's calls with a time (entry, or Flight Recorder's creation) laid
// out on tracks. Calls with no time at all are left out.
Timeline layoutTimeline(const job::Job& job);

std::string chromeTrace(const job::Job& job);

bool haveOtf2();
// Writes the OTF2 archive `path` (x.otf2: the anchor file, with x.def and the
// folder x/ beside it), all of it or none: written in a temporary folder
// beside it and moved into place.
Status writeOtf2(const job::Job& job, const std::string& path);

}  // namespace collviz::ui
