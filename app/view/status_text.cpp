#include "app/view/status_text.h"
#include "app/lang/backend_line.h"
#include "app/lang/lang.h"
#include "engine/verify/provenance.h"

#include <cstdio>

#include "app/lang/line_break.h"
#include "app/view/rank_hosts.h"
#include "app/view/text.h"
#include "engine/spec.h"

namespace collviz::ui {

namespace {
constexpr float kTextSize = 15.0f;
constexpr float kLine = 23.0f;
}  // namespace

std::string formatMicros(double us) {
  char buf[32];
  if (us < 1000) std::snprintf(buf, sizeof buf, "%.1f µs", us);
  else if (us < 1e6) std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000);
  else std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  return buf;
}

std::string progressText(const Progress& p, double elapsed_s) {
  const char* phase = "";
  switch (p.phase) {
    case Progress::Phase::idle: phase = tr("waiting"); break;
    case Progress::Phase::starting: phase = tr("starting the ranks"); break;
    case Progress::Phase::inputs: phase = tr("writing the inputs"); break;
    case Progress::Phase::op: phase = tr("running the op"); break;
    case Progress::Phase::verify: phase = tr("checking"); break;
    case Progress::Phase::copy: phase = tr("keeping values"); break;
    case Progress::Phase::compare: phase = tr("comparing"); break;
  }
  std::string out = phase;
  char buf[32];
  if (p.fraction >= 0) {
    std::snprintf(buf, sizeof buf, " %d%%", int(p.fraction * 100));
    out += buf;
  }
  if (p.steps > 1)
    out += " · " + trf("step {0} of {1}", {std::to_string(p.step + 1), std::to_string(p.steps)});
  std::snprintf(buf, sizeof buf, "%.1f s", elapsed_s);
  return out + " · " + buf;
}

bool allRight(const Snapshot& s, int bad_blocks) {
  return s.verified && s.error.empty() && s.mismatches == 0 && bad_blocks == 0 &&
         s.final_diffs == 0 && s.all_reduce_diffs == 0;
}

int64_t wrongCount(const Snapshot& s) { return s.mismatches + s.final_diffs + s.all_reduce_diffs; }

std::string cancelledNote(const Snapshot* s) {
  if (!s || !s->cancelled) return "";
  return tr("cancelled: the run was stopped (Space runs it again)");
}

std::string hostsNote(const Snapshot* s) {
  if (!s) return "";
  return hostsLine(rankHosts(*s, s->spec.ranks));
}

std::string oracleLabelNote(const Snapshot* s) {
  if (!s) return "";
  for (const StepResult& st : s->steps)
    for (const RankResult& r : st.ranks)
      for (const BufferView* b : {&r.input, &r.output})
        for (const BlockLabel& l : b->labels)
          if (!l.decoded)
            return trf("* label partly from the oracle, not read from the bytes: {0}", {render(patternText(st.verify.mode))});
  return "";
}

namespace {

// Splits "a: x; b: y (p; q); c" at the "; " outside parentheses.
std::vector<std::string> splitNotes(const std::string& notes) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (std::size_t i = 0; i < notes.size(); ++i) {
    const char c = notes[i];
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ';' && depth <= 0 && i + 1 < notes.size() && notes[i + 1] == ' ') {
      out.push_back(cur);
      cur.clear();
      ++i;
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool keyConcerns(const std::string& key, Program program, const OpSpec& spec, bool rounds) {
  if (!rounds) {
    if (program == Program::all_reduce_decomposed) {
      if (key == name(Op::reduce_scatter) || key == name(Op::all_gather) || key == name(Op::all_reduce))
        return true;
    } else if (key == name(spec.op)) {
      return true;
    }
  }
  if (key == name(spec.dtype)) return true;
  return (program != Program::single || reduces(spec.op)) && key == name(spec.redop);
}

// The items of backend notes: a joined() Text's parts ("{0}; {1}" nested),
// each a message; a literal's (a plain string's) "; "-separated items.
void noteItems(const Text& t, std::vector<Text>& out) {
  if (!t.literal && t.id == "{0}; {1}" && t.args.size() == 2) {
    noteItems(t.args[0], out);
    noteItems(t.args[1], out);
  } else if (t.literal) {
    for (const std::string& item : splitNotes(t.id)) out.push_back(lit(item));
  } else {
    out.push_back(t);
  }
}

// Whether a note item ("key: text", keys split at '/') concerns the figure.
bool itemConcerns(const std::string& item, Program program, const OpSpec& spec, bool rounds) {
  if (item.rfind("FAULT", 0) == 0) return true;
  const std::size_t colon = item.find(": ");
  if (colon == std::string::npos) return false;
  const std::string keys = item.substr(0, colon);
  for (std::size_t at = 0;;) {
    const std::size_t slash = keys.find('/', at);
    if (keyConcerns(keys.substr(at, slash - at), program, spec, rounds)) return true;
    if (slash == std::string::npos) return false;
    at = slash + 1;
  }
}

// Whether a note item's key names an op, a dtype or a reduce op ("avg: …",
// "gather/scatter/all_to_all: …"): a note about one thing a view may or may
// not show. Other items ("GPU sharing: …", "blocking communicator, …") are
// about the machine.
bool keyedOnWhatIsDrawn(const std::string& item) {
  const std::size_t colon = item.find(": ");
  if (colon == std::string::npos) return false;
  const std::string keys = item.substr(0, colon);
  for (std::size_t at = 0;;) {
    const std::size_t slash = keys.find('/', at);
    const std::string key = keys.substr(at, slash - at);
    if (parseOp(key) || parseDType(key) || parseRedOp(key)) return true;
    if (slash == std::string::npos) return false;
    at = slash + 1;
  }
}

// A notice's items: the parts joined() made ("a; b"), each with its message;
// a notice without one is split at "; " and shown as it is.
std::vector<Said> noticeItems(const Said& notice) {
  std::vector<Text> items;
  noteItems(notice.current() ? *notice.current() : lit(std::string(notice)), items);
  return {items.begin(), items.end()};
}

}  // namespace

namespace {

// The note items `keep` takes (it sees each item's English, the keys being
// English), joined and shown in the reader's language.
template <typename Keep>
std::string keptNotes(const Said& notes, Keep keep) {
  std::vector<Text> items;
  noteItems(notes.current() ? *notes.current() : lit(std::string(notes)), items);
  std::vector<Text> kept;
  for (Text& item : items)
    if (keep(item.english())) kept.push_back(std::move(item));
  return render(joined(std::move(kept)));
}

}  // namespace

std::string notesForFigure(const Said& notes, Program program, const OpSpec& spec, bool rounds) {
  return keptNotes(notes, [&](const std::string& en) { return itemConcerns(en, program, spec, rounds); });
}

std::string notesForView(const Said& notes, Program program, const OpSpec& spec, bool rounds) {
  return keptNotes(notes, [&](const std::string& en) {
    return !keyedOnWhatIsDrawn(en) || itemConcerns(en, program, spec, rounds);
  });
}

namespace {

using Segment = StatusSegment;
using Line = StatusLine;

// The lines of the status block, before they are wrapped, measured and placed.
std::vector<Line> unwrappedLines(const StatusLineParams& p, const Theme& th) {
  std::vector<Line> lines;
  const Rgba ok = letterColor(1);
  const Snapshot* s = p.shown;
  // The verdict is what a reader looks for: a narrow view cuts the devices
  // and transport, never it.
  Line verdict;
  // ✓ only when nothing at all is wrong: a snapshot that says verified next
  // to wrong elements, marked blocks or a difference from the native op is
  // contradicting itself, and the ✗ wins.
  if (s && allRight(*s, p.bad_blocks))
    verdict.push_back({tr("✓ verified against the oracle"), ok, TextStyle::regular, true});
  else if (s && s->error.empty())
    verdict.push_back({trf("✗ {0} wrong elements", {std::to_string(wrongCount(*s))}), th.bad,
                       TextStyle::regular, true});
  if (p.bad_blocks > 0)
    verdict.push_back({" · " + trf("{0} block(s) marked !", {std::to_string(p.bad_blocks)}), th.bad,
                       TextStyle::regular, true});
  if (p.machine) {
    if (!s) {
      lines.push_back({{tr("not yet run"), th.muted_text}});
    } else {
      const BackendLine b = backendLine(s->backend, !p.figure);  // as `collviz run` prints it
      std::string rest;
      for (const std::string& part : b.parts) rest += " · " + part;
      if (!s->nccl_choice.empty() && !p.rounds) rest += " · " + render(s->nccl_choice);  // what NCCL chose for the op
      if (p.with_time) rest += " · " + trf("op {0}", {formatMicros(s->time_us)});
      Line l = {{b.head, th.text, TextStyle::bold}, {rest, th.muted_text}};
      if (!verdict.empty()) l.push_back({" · ", th.muted_text, TextStyle::regular, true});
      l.insert(l.end(), verdict.begin(), verdict.end());
      lines.push_back(l);
    }
  } else if (s && (!s->verified || p.bad_blocks > 0) && !verdict.empty()) {
    lines.push_back(verdict);  // a figure never hides that it is wrong
  }
  if (const std::string hosts = hostsNote(s); !hosts.empty() && p.machine) lines.push_back({{hosts, th.muted_text}});
  if (const std::string note = oracleLabelNote(s); !note.empty()) lines.push_back({{note, th.text}});
  if (s && !s->error.empty()) lines.push_back({{tr("engine error: ") + render(s->error), th.bad}});
  if (s && !s->notice.empty()) {
    // A file keeps only a fault injected on purpose (the figure is wrong by
    // design), never a note about the machine such as another backend's absence.
    std::string notice = render(s->notice);
    if (p.figure) {
      notice.clear();
      for (const Said& item : noticeItems(s->notice))
        if (item.rfind("COLLVIZ_FAULT=", 0) == 0) notice += (notice.empty() ? "" : tr("; ")) + render(item);
    }
    if (!notice.empty()) lines.push_back({{notice, th.muted_text}});
  }
  if (s && p.machine) {
    const std::string notes =
        p.figure ? notesForFigure(s->backend.notes, s->program, s->spec, p.rounds)
                 : notesForView(s->backend.notes, s->program, s->spec, p.rounds);
    if (!notes.empty()) lines.push_back({{notes, th.muted_text}});
  }
  if (!p.font_notice.empty() && p.machine) lines.push_back({{p.font_notice, th.bad}});
  return lines;
}

float measureOf(const StatusLineParams& p, const std::string& t, TextStyle st) {
  const float size = kTextSize * p.scale;
  return p.measure ? p.measure(t, st, size) : 0.6f * size * float(codePoints(t));
}

// A note (a line of one segment) too long for the width is wrapped, up to
// kNoteLines lines (app/lang/line_break); the verdict's line is cut instead.
constexpr int kNoteLines = 3;

}  // namespace

std::vector<StatusLine> statusLines(const StatusLineParams& p, const Theme& th) {
  std::vector<Line> out;
  for (Line& line : unwrappedLines(p, th)) {
    if (line.size() != 1 || line[0].keep || p.max_width <= 0) {
      out.push_back(std::move(line));
      continue;
    }
    WrapParams w;
    w.width = p.max_width;
    w.measure = [&](const std::string& t) { return measureOf(p, t, line[0].style); };
    w.max_lines = kNoteLines;
    for (std::string& l : wrapText(line[0].text, w)) {
      Segment seg = line[0];
      seg.text = std::move(l);
      out.push_back({seg});
    }
  }
  return out;
}

int statusLineCount(const StatusLineParams& p) { return int(statusLines(p, makeTheme(ThemeKind::light)).size()); }

float statusLineHeight(float scale) { return kLine * scale; }

std::vector<TextItem> statusLineTexts(const StatusLineParams& p, const Theme& th) {
  return placeStatusLines(statusLines(p, th), p);
}

std::vector<TextItem> placeStatusLines(const std::vector<StatusLine>& lines, const StatusLineParams& p) {
  std::vector<TextItem> out;
  const float size = kTextSize * p.scale;
  auto measure = [&](const std::string& t, TextStyle st) { return measureOf(p, t, st); };
  float y = p.y;
  for (const Line& line : lines) {
    float x = p.x;
    for (std::size_t i = 0; i < line.size(); ++i) {
      std::string t = line[i].text;
      if (t.empty()) continue;
      // The width the segments after this one that must not be cut need.
      float reserve = 0;
      for (std::size_t j = i + 1; j < line.size(); ++j)
        if (line[j].keep) reserve += measure(line[j].text, line[j].style);
      const float room = p.max_width > 0 ? p.x + p.max_width - x - reserve : 1e9f;
      if (!line[i].keep && measure(t, line[i].style) > room) {
        // Cut at a code point boundary until it fits with the ellipsis.
        while (!t.empty() && measure(t + "…", line[i].style) > room) {
          while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
          if (!t.empty()) t.pop_back();  // the lead byte: one whole code point gone
        }
        t += "…";
      }
      out.push_back({{x, y}, 0, 0, t, line[i].colour, size, line[i].style});
      x += measure(t, line[i].style);
    }
    y += statusLineHeight(p.scale);
  }
  return out;
}

}  // namespace collviz::ui
