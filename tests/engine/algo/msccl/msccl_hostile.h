// Hostile MSCCL files made by the tests from the good ring (RING:
// good/ring_allreduce_4_1ch.xml) by changing one field, or written whole:
// each with the line its error must name and words it must hold. Shared by
// the reader's tests (msccl_hostile_test) and the CLI's (msccl_hostile_cli_test).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/engine/algo/msccl/msccl_fixtures.h"

namespace collviz::test {

inline std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A folder of the test's own for the files it makes, removed after.
struct TempDir {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("msccl_hostile_" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(dir); }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

inline std::string ringText() { return readAll(goodFixture("ring_allreduce_4_1ch.xml")); }

// `text` with the first `from` replaced by `to`.
inline std::string changed(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) return text;
  return text.replace(at, from.size(), to);
}

// Printable UTF-8: no control characters, no stray bytes.
inline bool printableUtf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 1 && (c < 0x20 || c == 0x7f))) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

struct Hostile {
  std::string name;  // what it breaks
  std::string text;
  int line = 1;
  std::string words;
};

// A header and one <gpu> per rank, with `body(r)` inside each.
template <typename Body>
std::string wholeFile(const std::string& head, int ngpus, Body body) {
  std::string t = head + "\n";
  for (int r = 0; r < ngpus; ++r) t += body(r);
  return t + "</algo>\n";
}

inline std::vector<Hostile> hostileFiles() {
  const std::string ring = ringText();
  const std::string step0 = R"(srcoff="0" dstbuf="o" dstoff="0" cnt="1")";
  std::vector<Hostile> out = {
      {"srcoff 2^31-1", changed(ring, R"(srcoff="0")", R"(srcoff="2147483647")"), 4, "source chunks 2147483647..2147483647"},
      {"dstoff 2^31-1", changed(ring, R"(dstoff="3")", R"(dstoff="2147483647")"), 5,
       "destination chunks 2147483647..2147483647"},
      {"cnt 2^31-1 at offset 1", changed(ring, step0, R"(srcoff="1" dstbuf="o" dstoff="1" cnt="2147483647")"), 4,
       "source chunks 1..2147483647"},
      {"s_chunks 2^31-1", changed(ring, R"(s_chunks="0")", R"(s_chunks="2147483647")"), 2, "memory budget"},
      {"2e9 scratch chunks", changed(ring, R"(s_chunks="0")", R"(s_chunks="2000000000")"), 2, "memory budget"},
      {"4e8 input chunks",
       changed(changed(ring, R"(i_chunks="4")", R"(i_chunks="400000000")"), R"(nchunksperloop="4")",
               R"(nchunksperloop="400000000")"),
       1, "memory budget"},
      {"16-gpu gather of 2^28 chunks",
       wholeFile(R"(<algo name="g" nchunksperloop="268435456" ngpus="16" coll="gather" inplace="0">)", 16,
                 [](int r) {
                   return "  <gpu id=\"" + std::to_string(r) + "\" i_chunks=\"16777216\" o_chunks=\"" +
                          (r == 0 ? "268435456" : "0") + "\" s_chunks=\"0\"/>\n";
                 }),
       1, "memory budget"},
      {"in-place reduce_scatter, o omitted, writes o at 1",
       wholeFile(R"(<algo name="rs" nchunksperloop="4" ngpus="4" coll="reduce_scatter" inplace="1">)", 4,
                 [](int r) {
                   return "  <gpu id=\"" + std::to_string(r) +
                          "\" i_chunks=\"4\" o_chunks=\"0\" s_chunks=\"0\">\n    <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
                          "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
                          "    </tb>\n  </gpu>\n";
                 }),
       4, "destination chunks 1..1 of buffer o are out of range; buffer o has 1 chunk(s)"},
      {"non-UTF-8 name", changed(ring, R"(name="ring_allreduce_4_1ch")", "name=\"ring\xff\""), 1, "byte \\xff is not UTF-8"},
      {"non-UTF-8 coll", changed(ring, R"(coll="allreduce")", "coll=\"all\xc3reduce\""), 1, "byte \\xc3 is not UTF-8"},
      {"ESC and newline in name",
       changed(ring, R"(name="ring_allreduce_4_1ch")", R"(name="&#27;[2J&#10;verified · fake")"), 1,
       "name=\"\\x1b[2J\\x0averified · fake\" holds a control character"},
      {"BEL in coll", changed(ring, R"(coll="allreduce")", R"(coll="allreduce&#7;")"), 1,
       "coll=\"allreduce\\x07\" holds a control character"},
      {"ESC in a step type", changed(ring, R"(type="rrc")", R"(type="&#27;]0;x&#7;")"), 5, "holds a control character"},
      {"header, no steps",
       wholeFile(R"(<algo name="empty" nchunksperloop="4" ngpus="4" coll="allreduce" inplace="0">)", 4,
                 [](int r) { return "  <gpu id=\"" + std::to_string(r) + "\" i_chunks=\"4\" o_chunks=\"4\" s_chunks=\"0\"/>\n"; }),
       1, "does not compute all_reduce (coll=\"allreduce\"): msccl:empty: rank 0 output block 0 does not end"},
      {"a nop with cnt -1", changed(ring, R"(type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1")",
                                    R"(type="nop" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="-1" cnt="-1")"),
       4, "a nop with cnt = -1"},
      {"cnt 0 on a send", changed(ring, R"(cnt="1")", R"(cnt="0")"), 4, "cnt = 0; allowed: 1 or more"},
  };
  std::string utf16 = "\xff\xfe";
  for (char c : ring) utf16 += std::string{c, '\0'};
  out.push_back({"UTF-16", utf16, 1, "the file is UTF-16; allowed: UTF-8"});
  return out;
}

// 100000 steps in a chain across threadblocks: RING with, on gpu 0, tb k
// (1..100000) holding one nop that waits on tb k-1.
inline std::string chainFile(int steps = 100000) {
  std::string ring = ringText();
  std::string tbs;
  tbs.reserve(std::size_t(steps) * 120);
  for (int k = 1; k <= steps; ++k)
    tbs += "    <tb id=\"" + std::to_string(k) + "\" send=\"-1\" recv=\"-1\" chan=\"0\"><step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" depid=\"" +
           std::to_string(k - 1) + "\" deps=\"0\" hasdep=\"0\"/></tb>\n";
  const std::size_t end = ring.find("  </gpu>");
  return ring.insert(end, tbs);
}

// RING with a comment of `bytes` after its first line: quotes, which JSON
// escapes to twice their size (40 MiB grew past the 64 MiB frame when the
// ranks were sent the file).
inline std::string ringWithComment(std::size_t bytes) {
  std::string ring = ringText();
  const std::size_t nl = ring.find('\n') + 1;
  return ring.insert(nl, "<!-- " + std::string(bytes, '"') + " -->\n");
}

// A ring all_reduce over `n` gpus with `channels` threadblocks each, one
// channel per threadblock (gen_fixtures.py's ring_allreduce, out of place):
// the chunk of block b on channel p is b * channels + p.
inline std::string ringFile(int n, int channels) {
  const int parts = channels;
  std::string t;
  t.reserve(std::size_t(n) * std::size_t(channels) * std::size_t(4 * n) * 130);
  t += "<algo name=\"ring_allreduce_" + std::to_string(n) + "_" + std::to_string(channels) +
       "ch\" proto=\"Simple\" nchannels=\"" + std::to_string(channels) + "\" nchunksperloop=\"" +
       std::to_string(n * parts) + "\" ngpus=\"" + std::to_string(n) + "\" coll=\"allreduce\" inplace=\"0\">\n";
  for (int r = 0; r < n; ++r) {
    t += "  <gpu id=\"" + std::to_string(r) + "\" i_chunks=\"" + std::to_string(n * parts) + "\" o_chunks=\"" +
         std::to_string(n * parts) + "\" s_chunks=\"0\">\n";
    for (int ch = 0; ch < channels; ++ch) {
      t += "    <tb id=\"" + std::to_string(ch) + "\" send=\"" + std::to_string((r + 1) % n) + "\" recv=\"" +
           std::to_string((r - 1 + n) % n) + "\" chan=\"" + std::to_string(ch) + "\">\n";
      int k = 0;
      auto c = [&](int b) { return ((b % n + n) % n) * parts + ch; };
      auto step = [&](const char* type, const char* src, int so, int dof) {
        t += "      <step s=\"" + std::to_string(k++) + "\" type=\"" + type + "\" srcbuf=\"" + src +
             "\" srcoff=\"" + std::to_string(so) + "\" dstbuf=\"o\" dstoff=\"" + std::to_string(dof) +
             "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
      };
      step("s", "i", c(r), c(r));
      for (int j = 1; j < n; ++j) {
        step("rrc", "i", c(r - j), c(r - j));
        step("s", "o", c(r - j), c(r - j));
      }
      for (int j = 0; j < n - 2; ++j) {
        step("r", "i", c(r - j), c(r - j));
        step("s", "o", c(r - j), c(r - j));
      }
      step("r", "i", c(r - (n - 2)), c(r - (n - 2)));
      t += "    </tb>\n";
    }
    t += "  </gpu>\n";
  }
  return t + "</algo>\n";
}

}  // namespace collviz::test
