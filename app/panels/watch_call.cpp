// The watch window's selected call, read again from the capture files with
// every member's bytes: each rank's arrival against the last one's, whether
// it returned, and the first values of its input and output in the call's
// datatype (the call's grid, app/view/call_figure, draws the same call as
// blocks where it is built in).
#include <imgui.h>

#include <cstring>

#include "app/gl/wrapped_text.h"
#include "app/lang/lang.h"
#include "app/panels/figure_draw.h"
#include "app/panels/watch_window.h"
#include "app/view/call_figure.h"
#include "app/view/job_call.h"
#include "engine/job/job.h"

namespace collviz::ui {

namespace {

// The first values of a buffer in its datatype ("1.5 2 3.25 …"); bytes in
// hex where the datatype is not a plain number.
std::string values(const std::vector<std::uint8_t>& b, tap::DType t, std::size_t elems) {
  using D = tap::DType;
  std::string s;
  char x[48];
  auto each = [&](std::size_t size, auto show) {
    const std::size_t n = b.size() / size;
    for (std::size_t i = 0; i < n && i < 8; ++i) show(b.data() + i * size), s += " ";
    if (n > 8 || n < elems) s += "…";
  };
  switch (t) {
    case D::double_: case D::f_double_precision: case D::f_real8: case D::nccl_float64:
      each(8, [&](const std::uint8_t* p) { double v; std::memcpy(&v, p, 8); std::snprintf(x, sizeof x, "%g", v); s += x; });
      break;
    case D::float_: case D::f_real: case D::f_real4: case D::nccl_float32:
      each(4, [&](const std::uint8_t* p) { float v; std::memcpy(&v, p, 4); std::snprintf(x, sizeof x, "%g", double(v)); s += x; });
      break;
    case D::int_: case D::int32: case D::f_integer: case D::f_integer4: case D::nccl_int32: case D::f_logical:
      each(4, [&](const std::uint8_t* p) { std::int32_t v; std::memcpy(&v, p, 4); s += std::to_string(v); });
      break;
    case D::unsigned_: case D::uint32: case D::nccl_uint32:
      each(4, [&](const std::uint8_t* p) { std::uint32_t v; std::memcpy(&v, p, 4); s += std::to_string(v); });
      break;
    case D::long_: case D::long_long: case D::int64: case D::f_integer8: case D::nccl_int64: case D::aint: case D::offset: case D::count:
      each(8, [&](const std::uint8_t* p) { std::int64_t v; std::memcpy(&v, p, 8); s += std::to_string(v); });
      break;
    case D::unsigned_long: case D::unsigned_long_long: case D::uint64: case D::nccl_uint64:
      each(8, [&](const std::uint8_t* p) { std::uint64_t v; std::memcpy(&v, p, 8); s += std::to_string(v); });
      break;
    default:
      each(1, [&](const std::uint8_t* p) { std::snprintf(x, sizeof x, "%02x", *p); s += x; });
      break;
  }
  return s;
}

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

}  // namespace

// The selected call as a one-call job (its communicator a group, its shape
// as the first member saw it), opened as the job window opens a job's call:
// collviz's own op at the program's sizes, run on the local backend.
void WatchWindow::runHere(AppState& s) {
  if (!call_) return;
  const job::CapturedCall& c = *call_;
  job::Job j;
  job::Builder b(j);
  const int g = b.group(std::to_string(c.commId));
  j.groups[std::size_t(g)].desc = c.commName;
  for (const job::CapturedRank& r : c.ranks) j.groups[std::size_t(g)].ranks.push_back(r.worldRank);
  // The call's side data as a capture's (its reduce op: toOpSpec runs it with it).
  auto data = std::make_shared<job::CaptureData>();
  job::Captured side;
  side.redop = std::uint8_t(c.op), side.root = c.root, side.dtypeSize = c.dtypeSize;
  data->calls.push_back(side);
  job::Source src;
  src.format = job::Format::capture;
  src.capture = data;
  j.sources.push_back(std::move(src));
  for (const job::CapturedRank& r : c.ranks) {
    if (!r.present) continue;
    job::Call x;
    x.seq = c.seq, x.rank = r.worldRank, x.group = g, x.source = 0, x.record = 0;
    x.op = b.intern(tap::funcOp(c.func));
    x.name = b.intern(tap::funcName(c.func, c.nonblocking));
    x.dtype = b.intern(tap::dtypeName(c.dtype));  // job::dtypeOf knows MPI's and NCCL's names
    x.inElems = std::int64_t(r.inElems), x.outElems = std::int64_t(r.outElems);
    x.bytes = std::int64_t(r.inElems > 0 ? r.inElems : r.outElems) * std::int64_t(c.dtypeSize);
    j.calls.push_back(x);
    break;
  }
  b.finish(false);
  if (j.calls.empty()) return;
  const JobCallOpened r = openJobCall(s, j, 0, caps_);
  ranHere_ = render(r.what);
  for (const Said& ch : r.changes) ranHere_ += " · " + render(ch);
  fold_ = r.ok;
}

void WatchWindow::drawCall(AppState& s, float k) {
  ImGui::BeginChild("call", ImVec2(0, 0), true);
  if (!call_) {
    WrappedText(render(call_.error()));
    ImGui::EndChild();
    return;
  }
  const job::CapturedCall& c = *call_;
  WrappedText(tr("R runs this call here, as collviz's own op at the program's sizes (where the local backend can)."));
  if (!ranHere_.empty()) WrappedText(ranHere_);
  // The call's grid (app/view/call_figure), laid out again when the call,
  // the traced rank, the theme or the language changes.
  const int key = int(s.view.theme) * 2 + (language() == Lang::zh ? 1 : 0);
  if (!figOk_ || figKey_ != key || figSeq_ != selSeq_ || figComm_ != selComm_ || figTrace_ != trace_) {
    CallFigureParams p;
    p.theme = s.view.theme;
    p.say = [](const Text& t) { return render(t); };
    for (const job::CapturedRank& r : c.ranks)
      if (r.worldRank == trace_) p.highlight = r.commRank;
    auto f = callFigure(c, p);
    figOk_ = f.ok();
    if (figOk_) fig_ = std::move(*f);
    figKey_ = key, figSeq_ = selSeq_, figComm_ = selComm_, figTrace_ = trace_;
  }
  if (figOk_) {
    const ImVec2 o = ImGui::GetCursorScreenPos();
    drawFigure(fig_, o, k);
    ImGui::Dummy(ImVec2(fig_.width * k, fig_.height * k));
  }
  std::string head = std::string(tap::funcName(c.func, c.nonblocking)) + " #" + std::to_string(c.seq) + " · " + c.commName;
  if (c.op != tap::ROp::none) head += std::string(" · ") + tap::ropName(c.op);
  if (c.root >= 0) head += " · " + trf("root {0}", {std::to_string(c.root)});
  head += std::string(" · ") + tap::dtypeName(c.dtype);
  if (figOk_ && !ImGui::CollapsingHeader(tr("the values as read from the files"))) {
    ImGui::EndChild();
    return;
  }
  ImGui::TextUnformatted(head.c_str());
  std::uint64_t last = 0;
  for (const job::CapturedRank& r : c.ranks) last = std::max(last, r.tEnter);
  if (ImGui::BeginTable("ranks", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn(tr("rank"), ImGuiTableColumnFlags_WidthFixed, 150 * k);
    ImGui::TableSetupColumn(tr("arrival"), ImGuiTableColumnFlags_WidthFixed, 230 * k);
    ImGui::TableSetupColumn(tr("returned"), ImGuiTableColumnFlags_WidthFixed, 110 * k);
    ImGui::TableSetupColumn(tr("input (first values)"));
    ImGui::TableSetupColumn(tr("output (first values)"));
    ImGui::TableHeadersRow();
    for (const job::CapturedRank& r : c.ranks) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const bool red = named(r.worldRank);
      if (red) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.12f, 0.15f, 1.0f));
      ImGui::Text("R%d %s", r.worldRank, r.host.c_str());
      if (red) ImGui::PopStyleColor();
      if (r.worldRank == trace_) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, ImGui::GetColorU32(ImGuiCol_FrameBgActive));
      ImGui::TableNextColumn();
      if (!r.present) ImGui::TextUnformatted(tr("not entered"));
      else if (r.tEnter == last) ImGui::TextUnformatted(tr("last to arrive"));
      else ImGui::TextUnformatted(trf("waited {0} ms for the last", {ms(double(last - r.tEnter) / 1e6)}).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.returned ? tr("yes") : tr("no"));
      ImGui::TableNextColumn();
      WrappedText(values(r.in, c.dtype, r.inElems));
      ImGui::TableNextColumn();
      WrappedText(r.returned ? values(r.out, c.dtype, r.outElems) : std::string("—"));
    }
    ImGui::EndTable();
  }
  ImGui::EndChild();
}

}  // namespace collviz::ui
