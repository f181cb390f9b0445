#include "app/view/status_text.h"
#include "app/lang/lang.h"

#include <cstdio>

#include "app/view/text.h"

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

std::string oracleLabelNote(const Snapshot* s) {
  if (!s) return "";
  for (const StepResult& st : s->steps)
    for (const RankResult& r : st.ranks)
      for (const BufferView* b : {&r.input, &r.output})
        for (const BlockLabel& l : b->labels)
          if (!l.decoded)
            return trf("* label partly from the oracle, not read from the bytes: {0}", {st.verify.mode});
  return "";
}

int statusLineCount(const StatusLineParams& p) {
  const Snapshot* s = p.shown;
  return 1 + (s && !s->error.empty()) + (s && !s->notice.empty()) +
         (s && !s->backend.notes.empty()) + !p.font_notice.empty() +
         !oracleLabelNote(s).empty();
}

float statusLineHeight(float scale) { return kLine * scale; }

std::vector<TextItem> statusLineTexts(const StatusLineParams& p, const Theme& th) {
  std::vector<TextItem> out;
  const float size = kTextSize * p.scale;
  float x = p.x, y = p.y;
  auto measure = [&](const std::string& t, TextStyle st) {
    return p.measure ? p.measure(t, st, size) : 0.6f * size * float(codePoints(t));
  };
  // `reserve`: width kept free after this text for what must follow it.
  auto put = [&](std::string t, Rgba c, TextStyle st = TextStyle::regular, float reserve = 0) {
    const float room = p.max_width > 0 ? p.x + p.max_width - x - reserve : 1e9f;
    if (measure(t, st) > room) {
      // Cut at a code point boundary until it fits with the ellipsis.
      while (!t.empty() && measure(t + "…", st) > room) {
        while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
        if (!t.empty()) t.pop_back();  // the lead byte: one whole code point gone
      }
      t += "…";
    }
    out.push_back({{x, y}, 0, 0, t, c, size, st});
    x += measure(t, st);
  };
  auto newline = [&] {
    x = p.x;
    y += statusLineHeight(p.scale);
  };
  const Rgba ok = letterColor(1);
  const Snapshot* s = p.shown;
  if (!s) {
    put(tr("not yet run"), th.muted_text);
  } else {
    const BackendInfo& b = s->backend;
    put(b.name + " " + b.version, th.text, TextStyle::bold);
    std::string rest;
    if (!b.devices.empty()) rest += " · " + b.devices;
    if (!b.transport.empty()) rest += " · " + b.transport;
    if (p.with_time) rest += " · " + trf("op {0}", {formatMicros(s->time_us)});
    // The verdict is what a reader looks for: a narrow view cuts the
    // devices and transport, never it.
    std::vector<std::pair<std::string, Rgba>> verdict;
    // ✓ only when nothing at all is wrong: a snapshot that says verified
    // next to wrong elements, marked blocks or a difference from the native
    // op is contradicting itself, and the ✗ wins.
    if (allRight(*s, p.bad_blocks)) verdict.push_back({tr("✓ verified against the oracle"), ok});
    else if (s->error.empty())
      verdict.push_back({trf("✗ {0} wrong elements", {std::to_string(wrongCount(*s))}), th.bad});
    if (p.bad_blocks > 0)
      verdict.push_back({" · " + trf("{0} block(s) marked !", {std::to_string(p.bad_blocks)}), th.bad});
    float verdict_w = 0;
    for (const auto& [t, c] : verdict) verdict_w += measure(t, TextStyle::regular);
    put(rest, th.muted_text, TextStyle::regular, verdict_w + measure(" · ", TextStyle::regular));
    put(" · ", th.muted_text);
    for (const auto& [t, c] : verdict) put(t, c);
  }
  if (const std::string note = oracleLabelNote(s); !note.empty()) newline(), put(note, th.text);
  if (s && !s->error.empty()) newline(), put(tr("engine error: ") + s->error, th.bad);
  if (s && !s->notice.empty()) newline(), put(s->notice, th.muted_text);
  if (s && !s->backend.notes.empty()) newline(), put(s->backend.notes, th.muted_text);
  if (!p.font_notice.empty()) newline(), put(p.font_notice, th.bad);
  return out;
}

}  // namespace collviz::ui
