// The NCCL backend's native op: the engine reads its ranks' log once
// (attachNcclLog, called by Engine::publish) for NCCL's choice and the
// communicator NCCL built, and the window draws that communicator with the
// NCCL log figure. Here on a folder of per-rank files written as NCCL writes
// them with NCCL_DEBUG_FILE=nccl.%h.%p (no GPU: the lines are NCCL's own
// format strings, not a run's).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "app/lang/lang.h"
#include "app/view/nccl_log_figure.h"
#include "engine/job/nccl_log/nccl_log.h"
#include "engine/engine.h"

namespace collviz::ui {
namespace {

// Rank r's file: its comm line, its Ring line for channel 0 and its link to
// the next rank (P2P, but SHM into rank 2); rank 0 prints the ring.
void writeRankFiles(const std::string& dir, const std::vector<int>& ring) {
  const int n = int(ring.size());
  std::map<int, int> next, prev;
  for (int i = 0; i < n; ++i) next[ring[i]] = ring[(i + 1) % n], prev[ring[(i + 1) % n]] = ring[i];
  for (int r = 0; r < n; ++r) {
    std::ofstream f(dir + "/nccl.h." + std::to_string(100 + r));
    const std::string p = "h:" + std::to_string(100 + r) + ":1 [" + std::to_string(r) + "] NCCL INFO ";
    f << p << "NCCL version 2.28.9+cuda13.0\n"
      << p << "comm 0x" << r + 1 << " rank " << r << " nRanks " << n << " nNodes 1 localRanks " << n << " localRank " << r
      << " MNNVL 0\n";
    if (r == 0) {
      f << p << "Channel 00/02 :";
      for (int x : ring) f << " " << x;
      f << "\n" << p << "Channel 01/02 :";
      for (int x : ring) f << " " << x;
      f << "\n";
    }
    f << p << "Ring 00 : " << prev[r] << " -> " << r << " -> " << next[r] << "\n"
      << p << "Channel 00/0 : " << r << "[" << r << "] -> " << next[r] << "[" << next[r] << "] via "
      << (next[r] == 2 ? "SHM/direct/direct" : "P2P/CUMEM/read") << "\n"
      << p << "AllReduce: 65536 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..1}\n"
      << p << "comm 0x" << r + 1 << " rank " << r << " nranks " << n << " cudaDev " << r << " nvmlDev " << r
      << " busId " << r + 1 << "000 commId 0xabc - Init COMPLETE\n";
  }
}

std::string attrOf(const std::string& data, const std::string& name) {
  const std::string key = name + "=\"";
  const auto at = data.find(key);
  if (at == std::string::npos) return "";
  return data.substr(at + key.size(), data.find('"', at + key.size()) - at - key.size());
}

TEST(NcclComm, TheRunsCommunicatorIsReadFromItsRanksLogAndDrawnAsNcclBuiltIt) {
  const std::string dir = ::testing::TempDir() + "collviz-nccl-comm";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<int> ring = {0, 1, 3, 2};
  writeRankFiles(dir, ring);

  Snapshot snap;
  snap.spec.op = Op::all_reduce;
  attachNcclLog(snap, dir);
  ASSERT_TRUE(snap.nccl_log) << "no communicator read from " << dir;
  EXPECT_EQ(render(snap.nccl_choice), "NCCL: RING · SIMPLE · channels 0–1");
  ASSERT_EQ(snap.nccl_log->comms.size(), 1u);
  const nccl_log::Comm& c = snap.nccl_log->comms[0];
  EXPECT_EQ(c.members.size(), 4u);
  EXPECT_EQ(c.rings.size(), 2u);

  // The window's figure of channel 0: one arrow per ring link, in the
  // order NCCL built it, each coloured by its link's transport.
  NcclFigureParams p;
  p.channel = 0;
  auto fig = ncclLogFigure(*snap.nccl_log, p);
  ASSERT_TRUE(fig.ok()) << fig.error().message;
  std::map<int, int> drawn;
  std::map<int, std::string> cls;
  for (const NcclShape& s : fig->shapes) {
    if (s.kind != NcclShape::Kind::arc || attrOf(s.data, "data-from").empty()) continue;
    if (attrOf(s.data, "data-channel") != "0") continue;
    const int from = std::stoi(attrOf(s.data, "data-from")), to = std::stoi(attrOf(s.data, "data-to"));
    drawn[from] = to;
    cls[from] = s.marker;  // the transport's class: p2p, shm, net
  }
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const int a = ring[i], b = ring[(i + 1) % ring.size()];
    ASSERT_TRUE(drawn.count(a)) << "no arrow from rank " << a;
    EXPECT_EQ(drawn[a], b) << "rank " << a << "'s arrow";
    EXPECT_EQ(cls[a], b == 2 ? "shm" : "p2p") << "the link " << a << " -> " << b;
  }

  // No log, or a log without a communicator: nothing attached, nothing guessed.
  Snapshot none;
  attachNcclLog(none, "");
  EXPECT_FALSE(none.nccl_log);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/nccl.h.1") << "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n";
  attachNcclLog(none, dir);
  EXPECT_FALSE(none.nccl_log);
  std::filesystem::remove_all(dir);
}

// One channel of a few ranks uses the figure's width (issue 57: it sat in
// the left 280 px of 900), and a log without tuning lines says so quietly.
TEST(NcclComm, OneChannelUsesTheWidthAndNoTuningIsAQuietNote) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("collviz_nccl_width_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  writeRankFiles(dir, {0, 1, 2, 3});
  auto log = nccl_log::read({dir});
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(log.ok()) << log.error().message;
  NcclFigureParams p;
  p.channel = 0;
  auto fig = ncclLogFigure(*log, p);
  ASSERT_TRUE(fig.ok()) << fig.error().message;
  float lo = 1e9f, hi = -1e9f;
  for (const NcclShape& s : fig->shapes) {
    if (s.kind == NcclShape::Kind::arc) lo = std::min({lo, s.x0, s.cx0}), hi = std::max({hi, s.x0, s.cx0});
    if (s.kind == NcclShape::Kind::rect && (s.cls == "rank" || s.cls == "node")) lo = std::min(lo, s.x0), hi = std::max(hi, s.x0 + s.x1);
  }
  // The node, its ranks and the ring's arcs: more than half the width (the
  // legend takes the right of it).
  EXPECT_GT(hi - lo, 0.55f * fig->width) << "the drawing spans " << lo << " to " << hi << " of " << fig->width;
  // Without TUNING lines: the note is no louder than the figure's own lines.
  log->choices.clear();
  auto quiet = ncclLogFigure(*log, p);
  ASSERT_TRUE(quiet.ok());
  const Theme th = makeTheme(ThemeKind::light);
  bool seen = false;
  for (const NcclShape& s : quiet->shapes)
    if (s.kind == NcclShape::Kind::text && s.text.rfind("no tuning lines", 0) == 0) {
      seen = true;
      EXPECT_LE(s.size, 11.0f);
      EXPECT_FALSE(s.bold);
      EXPECT_EQ(s.fill.r, th.muted_text.r);
    }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace collviz::ui
