// A lecture script: a title and a list of steps, each naming what to show
// (op, spec, backend, trace, decomposition state), a caption for the screen
// and notes for the speaker, in English and Chinese. Written in TOML:
//
//   title.en = "The eight collectives"
//   title.zh = "八种集合通信"
//   author = "…"  date = "…"   # optional, on the deck's title slide
//   [[step]]
//   op = "broadcast"          # any fact a step leaves out carries over
//   ranks = 4
//   caption.en = "..."        # or caption = "..." for one language
//   notes.zh = "..."
//
// Loading checks everything before anything opens: an error names the file,
// the line, the field and what is allowed. Pure: no UI headers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/lang/lang.h"
#include "app/view/trace.h"
#include "engine/group/hosts.h"
#include "engine/spec.h"
#include "engine/text.h"

namespace collviz::lecture {

// One text in its language variants; `in` falls back to English, then to
// whichever variant there is.
struct Text {
  std::string en, zh;
  const std::string& in(Lang lang) const;
  bool empty() const { return en.empty() && zh.empty(); }
};

struct Step {
  int line = 0;  // where the step's [[step]] header is
  Program program = Program::single;
  OpSpec spec;  // spec.op: the op, or all_reduce for the decomposition
  BackendKind backend = BackendKind::automatic;
  int trace_rank = -1;  // -1: all
  ui::TraceMode trace_mode = ui::TraceMode::reaches;
  int state = 2;  // the decomposition's state shown: 0 input .. 2 after all-gather
  // The algorithm view: an engine algorithm for the op ("native": the op's
  // own diagram) and the round shown (0 the start, K after round K).
  std::string algo = "native";
  int round = 0;
  Text caption, notes;
};

struct Lecture {
  std::string path;
  Text title;
  Text author, date;  // optional: the deck's title slide
  // Where the steps run (issue 33): `hosts = ["a:2", "b:2"]` or `hostfile`,
  // with map_by, iface and launcher_agent as `collviz run` takes them.
  // Empty: this machine.
  HostSpec hosts;
  std::vector<Step> steps;
};

// The deck's own fields (before the first [[step]]).
inline constexpr std::string_view kTopFields =
    "title, author, date, hosts, hostfile, map_by, iface, launcher_agent, step";
// The fields a step may hold, for messages and documentation.
inline constexpr std::string_view kStepFields =
    "op, ranks, elems, dtype, redop, root, backend, trace, trace_by, state, algo, algo_file, round, caption, notes";

Result<Lecture> loadLecture(const std::string& path);
// `path` names the source in messages.
Result<Lecture> parseLecture(std::string_view text, const std::string& path);

}  // namespace collviz::lecture
