// Every string a job's files gave, made safe in one place (readers.h safe,
// makeSafe) before it reaches a terminal, JSON, SVG, HTML or PDF: an op
// name, a group's description, a host, a file's own name. A dump can hold
// ESC and BEL (a terminal would take them as commands: retitle, recolour),
// bytes that are not UTF-8 (nlohmann refuses them: --json aborted) and
// characters XML forbids (the SVG no longer parses). Valid UTF-8 stays as
// it is (中文 names stay readable); the rest is written as \xNN, byte by
// byte, so the original bytes can still be told. Safe text is safe again
// unchanged. read() and readBytes() apply it to the Job they return and to
// their errors: no reader needs to remember it.
#include "engine/job/readers.h"

namespace collviz::job {
namespace {

// The length of the character at s[i] when it may be shown: valid UTF-8
// (no overlong form, no surrogate, nothing past U+10FFFF), not a C0 or C1
// control, not DEL, not U+FFFE or U+FFFF (XML forbids them). 0: escape it.
std::size_t shownLength(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  if (c < 0x80) return c >= 0x20 && c != 0x7f ? 1 : 0;
  const std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if (c == 0xC2 && b(i + 1) < 0xA0) return 0;                      // C1 controls (0x9b: a terminal's CSI)
  if (c == 0xE0 && b(i + 1) < 0xA0) return 0;                      // overlong
  if (c == 0xED && b(i + 1) >= 0xA0) return 0;                     // surrogate
  if (c == 0xEF && b(i + 1) == 0xBF && b(i + 2) >= 0xBE) return 0; // U+FFFE, U+FFFF
  if (c == 0xF0 && b(i + 1) < 0x90) return 0;                      // overlong
  if (c == 0xF4 && b(i + 1) >= 0x90) return 0;                     // past U+10FFFF
  return n;
}

bool plainAscii(std::string_view s) {
  for (char ch : s)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) return false;
  return true;
}

void fix(std::string& s) {
  if (!plainAscii(s)) s = safe(s);
}

void fix(Said& s) {
  if (plainAscii(s)) return;
  if (const Text* t = s.current()) s = Said(safe(*t));
  else s = Said(safe(std::string_view(s)));
}

void fix(std::vector<Note>& notes) {
  for (Note& n : notes) fix(n.text);
}

}  // namespace

std::string safe(std::string_view s) {
  if (plainAscii(s)) return std::string(s);
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = shownLength(s, i);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      const unsigned char c = static_cast<unsigned char>(s[i++]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Text safe(Text t) {
  if (t.literal) t.id = safe(t.id);
  for (Text& a : t.args) a = safe(std::move(a));
  return t;
}

void makeSafe(Job& job) {
  for (Source& s : job.sources) {
    fix(s.path), fix(s.host), fix(s.version), fix(s.library);
    fix(s.notes);
  }
  for (Rank& r : job.ranks) fix(r.host), fix(r.busId), fix(r.gpu), fix(r.healthText);
  for (std::string& h : job.hosts) fix(h);
  for (Group& g : job.groups) fix(g.id), fix(g.desc), fix(g.commHash);
  for (std::string& n : job.names) fix(n);
  for (TestRun& t : job.tests) {
    fix(t.test), fix(t.settings);
    for (TestRow& row : t.rows) fix(row.type), fix(row.redop);
  }
  for (RasReport& r : job.ras) {
    fix(r.version);
    for (RasComm& c : r.comms) fix(c.hash), fix(c.group), fix(c.status), fix(c.errors);
    for (Said& s : r.errors) fix(s);
    for (Said& s : r.warnings) fix(s);
    for (Said& s : r.events) fix(s);
    for (RasProcess& p : r.processes) fix(p.host), fix(p.text);
  }
  fix(job.notes);
}

}  // namespace collviz::job
