// A captured call's grid and its arrivals (issue 58): the Chinese of
// engine/job/captured_call.cpp, engine/job/arrival.cpp,
// app/view/call_figure.cpp and `collviz export --call`. Terms as in
// docs/glossary.md; the capture's own names (functions, datatypes, reduce
// ops, communicators) stay as they are.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableCall() {
  static constexpr Translation kTable[] = {
      // Finding a call (engine/job/captured_call.cpp).
      {"the files hold no collviz capture: a call's grid reads a capture folder (collviz watch's)",
       "这些文件里没有 collviz 捕获：调用的网格读取的是捕获文件夹（`collviz watch` 写的）"},
      {"no communicator number {0}: the capture has {1}", "没有编号为 {0} 的通信器：该捕获中有 {1}"},
      {"no communicator {0}: the capture has {1}", "没有通信器 {0}：该捕获中有 {1}"},
      {"{0} has no collective call", "{0} 没有集合调用"},
      {"{0} has no call {1}: it has calls {2}..{3}", "{0} 没有第 {1} 次调用：它的调用编号为 {2}..{3}"},
      {"{0}'s call {1} comes from no capture file", "{0} 的第 {1} 次调用不来自任何捕获文件"},
      {"{0} communicators are named {1}: give one's id ({2})", "有 {0} 个通信器都叫 {1}：请给出其中一个的编号（{2}）"},
      {"--call {0}: give COMM:SEQ, a communicator as collviz job lists it and a call's number (MPI_COMM_WORLD:0, 0x1:12)",
       "--call {0}：请给出 `COMM:SEQ`，即 `collviz job` 列出的通信器和调用编号（`MPI_COMM_WORLD:0`、`0x1:12`）"},
      // Arrivals (engine/job/arrival.cpp).
      {"arrived last: no call yet", "最后到达：还没有调用"},
      {"arrived last: no call yet with every member's record ({0} without)", "最后到达：还没有每个成员都有记录的调用（{0} 次缺记录）"},
      {"{0} in {1} of {2} calls ({3}%; the others waited {4} for it in all)", "{0}：{2} 次调用中有 {1} 次（{3}%；其他成员共等了它 {4}）"},
      {"{0} in {1} ({2}%)", "{0}：{1} 次（{2}%）"},
      {"arrived last most often: {0}", "最常最后到达：{0}"},
      {"{0}; {1} calls tied (each counted)", "{0}；{1} 次调用并列最后（各计一次）"},
      {"{0}; {1} calls without every member's record not counted", "{0}；{1} 次调用缺少某些成员的记录，未计入"},
      // The grid (app/view/call_figure.cpp).
      {"the call has no member to draw", "该调用没有可画的成员"},
      {"{0} #{1} of {2}", "{2} 的 {0} #{1}"},
      {"members: {0}", "成员：{0}"},
      {"members: {0} on {1}", "成员：{0}，位于 {1}"},
      {"{0} · {1} × {2} ({3} B each)", "{0} · {1} × {2}（每个 {3} B）"},
      {"{0} · root {1} ({2})", "{0} · 根 {1}（{2}）"},
      {"each row is one member · the input at entry, the output at return · the first values the capture kept, the stronger the colour the larger",
       "每行是一个成员 · 输入取自进入调用时，输出取自返回时 · 显示捕获保留的前几个值，颜色越浓值越大"},
      {"Arrival", "到达"},
      {"comm rank {0}", "通信器内 rank {0}"},
      {"not the root: receives nothing", "不是根：不接收数据"},
      {"not the root: sends nothing", "不是根：不发送数据"},
      {"the root: its buffer is the input", "根：它的缓冲区即输入"},
      {"the root: its buffer is the output", "根：它的缓冲区即输出"},
      {"empty", "空"},
      {"issued in a CUDA graph capture: nothing copied", "在 CUDA 图捕获中发出：未复制任何数据"},
      {"the tap's CUDA copy failed", "tap 的 CUDA 复制失败"},
      {"not returned yet", "尚未返回"},
      {"bytes left out (a derived type, or no memory)", "字节未保留（派生类型，或内存不足）"},
      {"no bytes kept (--bytes 0)", "未保留字节（--bytes 0）"},
      {"not kept", "未保留"},
      {"first {0} of {1}", "{1} 中的前 {0}"},
      {"{0} of {1} values", "{1} 个值中的 {0} 个"},
      {"+{0} blocks", "另有 {0} 块"},
      {"not entered", "未进入"},
      {"no record of this call", "没有这次调用的记录"},
      {"arrived last", "最后到达"},
      {"arrived last (tied)", "最后到达（并列）"},
      {"entered {0} before the last", "比最后一个早 {0} 进入"},
      {"waited {0}", "等了 {0}"},
      {"not returned", "未返回"},
      {"returned error {0}", "返回错误 {0}"},
      {"returned after {0}", "{0} 后返回"},
      // collviz job: a capture's communicators' call numbers (app/cli/cli_job.cpp).
      {"seq {0}..{1}", "编号 {0}..{1}"},
      // collviz export --call (app/export/call_export.cpp).
      {"--format {0} with --call: allowed: svg, png, html", "--call 时的 --format {0}：可用 svg、png、html"},
      {"--trace {0} with --call: allowed: all, or a member's rank in the communicator (0, 1, ...)",
       "--call 时的 --trace {0}：可用 all，或成员在通信器中的 rank（0、1……）"},
      {"--trace {0}: the communicator has ranks 0 to {1}", "--trace {0}：该通信器的 rank 为 0 到 {1}"},
      {"--call needs --job CAPTURE: the capture folder the call is in", "--call 需要 `--job CAPTURE`：调用所在的捕获文件夹"},
  };
  return kTable;
}

}  // namespace collviz
