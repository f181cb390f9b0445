// The MSCCL fixtures (tests/engine/algo/msccl/gen_fixtures.py writes them): paths, the
// broken ones' expected line and words, the spec a file runs, and the bytes
// its steps send, counted from the file itself.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/algo/msccl/msccl.h"

#ifndef COLLVIZ_MSCCL_DIR
#error "COLLVIZ_MSCCL_DIR must name tests/engine/algo/msccl"
#endif

namespace collviz::test {

inline std::string goodFixture(const std::string& name) {
  return std::string(COLLVIZ_MSCCL_DIR) + "/good/" + name;
}

inline std::vector<std::string> goodFixtures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(COLLVIZ_MSCCL_DIR) + "/good"))
    if (e.path().extension() == ".xml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct BadFixture {
  std::string path;
  int line = 0;
  std::string words;
};

inline std::vector<BadFixture> badFixtures() {
  std::vector<BadFixture> out;
  const std::string dir = std::string(COLLVIZ_MSCCL_DIR) + "/bad/";
  std::ifstream in(dir + "expect.txt");
  std::string row;
  while (std::getline(in, row)) {
    std::istringstream is(row);
    BadFixture b;
    std::string line;
    if (!std::getline(is, b.path, '\t') || !std::getline(is, line, '\t') || !std::getline(is, b.words))
      continue;
    b.path = dir + b.path;
    b.line = std::stoi(line);
    out.push_back(b);
  }
  return out;
}

inline OpSpec fixtureSpec(const algo::MscclAlgo& a, int64_t elems, DType t = DType::f32) {
  OpSpec s;
  s.op = a.op;
  s.ranks = a.ngpus;
  s.elems = elems;
  s.dtype = t;
  s.redop = RedOp::sum;
  s.root = a.root;
  return s;
}

// Bytes rank `rank` sends by the file: every step that sends, cnt chunks of
// E/parts elements.
inline uint64_t fileBytesSent(const algo::MscclAlgo& a, int rank, const OpSpec& s) {
  const uint64_t chunk = uint64_t(s.elems / a.parts) * dtypeSize(s.dtype);
  uint64_t total = 0;
  for (const algo::MscclTb& t : a.gpus[std::size_t(rank)].tbs)
    for (const algo::MscclStep& st : t.steps)
      if (st.type == algo::MscclType::s || st.type == algo::MscclType::rcs ||
          st.type == algo::MscclType::rrs || st.type == algo::MscclType::rrcs)
        total += uint64_t(st.cnt) * chunk;
  return total;
}

}  // namespace collviz::test
