// Verification, spec, device and bench messages: the Chinese of every message id (engine/text.h) made in engine/verify*.cpp, spec.cpp, devices.cpp, bench*.cpp and the like.
// The id is the English template; {0}, {1}, ... keep their places (the
// Chinese may move them). Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableChecks() {
  static constexpr Translation kTable[] = {
      // engine/verify/verify.cpp: what a check found.
      {"rank {0} {1} block {2} element {3}: {4}", "rank {0} {1}数据块 {2} 元素 {3}：{4}"},
      {"rank {0} {1} block {2}: {3} ({4} of {5} elements wrong)",
       "rank {0} {1}数据块 {2}：{3}（{5} 个元素中 {4} 个错误）"},
      {"rank {0} {1} block {2}: {3}, elements out of place ({4} of {5} elements wrong)",
       "rank {0} {1}数据块 {2}：{3}，元素位置错乱（{5} 个元素中 {4} 个错误）"},
      {"not written (still the poison) where {0} belongs", "未写入（仍是毒化值），此处应为 {0}"},
      {"{0} where {1} belongs", "{0} 出现在应为 {1} 的位置"},
      {"still holds the poison (the backend did not write it)", "仍是毒化值（后端没有写入）"},
      {"got {0}, want {1}", "得到 {0}，应为 {1}"},
      {"value {0} does not decode to the data this op allows there",
       "值 {0} 解码不出此操作在该处允许的数据"},
      // engine/verify/provenance.cpp: the pattern (Verification::mode, patternText()).
      {"provenance: contributors, block and element decoded from every value",
       "来源编码：每个值都解码出贡献者、数据块和元素"},
      {"provenance: contributors decoded from every value, position mod {0}; values checked "
       "against the oracle",
       "来源编码：每个值都解码出贡献者，位置取模 {0}；数值与参考结果核对"},
      {"provenance: contributors decoded from every product (2^(2^rank) pattern); values "
       "checked against the oracle",
       "来源编码：每个乘积都解码出贡献者（2^(2^rank) 编码）；数值与参考结果核对"},
      {"values only: this dtype/N/E is beyond the provenance pattern's exact range; labels "
       "follow the oracle, values are checked against it",
       "仅核对数值：此数据类型/N/E 超出来源编码的精确范围；标签来自参考结果，数值与之核对"},
      // engine/spec.cpp: a spec refused, what is allowed.
      {"ranks = {0} is out of range; allowed: {1} to {2}", "ranks = {0} 超出范围；允许：{1} 到 {2}"},
      {"elems = {0} is out of range; allowed: 1 or more elements per block",
       "elems={0} 超出范围；允许：每个数据块 1 个或更多元素"},
      {"root = {0} is out of range; allowed: 0 to {1} (ranks = {2})",
       "root = {0} 超出范围；允许：0 到 {1}（ranks = {2}）"},
      {"redop avg needs a floating dtype (f32, f64, f16, bf16); dtype is {0}",
       "归约操作 avg 需要浮点数据类型（f32、f64、f16、bf16）；当前数据类型为 {0}"},
      {"ranks = {0} is more than backend {1} allows; allowed: 1 to {2}",
       "ranks = {0} 超过后端 {1} 允许的数量；允许：1 到 {2}"},
      {"dtype {0} is not supported by backend {1}; allowed: {2}",
       "后端 {1} 不支持数据类型 {0}；允许：{2}"},
      {"redop {0} is not supported by backend {1}; allowed: {2}",
       "后端 {1} 不支持归约操作 {0}；允许：{2}"},
      {"elems = {0} needs {1} bytes per rank (input + output), over the cap of {2} bytes for "
       "backend {3}; allowed: elems <= {4}",
       "elems={0} 每个 rank 需要 {1} 字节（输入 + 输出），超过后端 {3} 的上限 {2} 字节；"
       "允许：每个数据块的元素数 <= {4}"},
      {"more than 9e18", "超过 9e18"},
      // engine/group/devices.cpp: the backend's choice, the probe.
      {"NCCL unavailable ({0}); using Gloo on CPU", "NCCL 不可用（{0}）；改用 CPU 上的 Gloo"},
      {"not probed", "未探测"},
      {"backend {0} is unavailable: {1}", "后端 {0} 不可用：{1}"},
      {"unknown backend", "未知后端"},
      {"collviz-rank --probe printed no valid report: {0}",
       "collviz-rank --probe 没有输出有效的报告：{0}"},
      {"pipe failed", "创建管道失败"},
      {"fork failed", "创建子进程失败"},
      {"the rank worker's probe did not finish within {0} ms (a stalled GPU driver?)",
       "rank 工作进程的探测未在 {0} ms 内完成（GPU 驱动卡住了？）"},
      {"cannot run the rank worker {0} (not found or not executable)",
       "无法运行 rank 工作进程 {0}（找不到或不可执行）"},
      {"cannot run the rank worker {0} (probe failed)", "无法运行 rank 工作进程 {0}（探测失败）"},
      // engine/bench/bench.cpp, bench_sweep.cpp: the sweep's settings and failures.
      {"size \"{0}\" is not a size; allowed: a whole number of bytes, optionally with K, M or G "
       "(powers of 1024), e.g. 8, 64K, 128M",
       "“{0}”不是大小；允许：整数字节数，可带 K、M 或 G（1024 的幂），例如 8、64K、128M"},
      {"op: none chosen; allowed: {0}, all", "--op：未选择任何操作；允许：{0} 或 --op=all"},
      {"-b 0 is out of range; allowed: 1 byte or more", "-b 0 超出范围；允许：1 字节或更多"},
      {"-e {0} is below -b {1}; allowed: -e >= -b", "-e {0} 小于 -b {1}；允许的是 -e >= -b"},
      {"-f {0} is out of range; allowed: 2 to 1024", "-f {0} 超出范围；允许：2 到 1024"},
      {"-n {0} is out of range; allowed: 1 to 100000", "-n {0} 超出范围；允许：1 到 100000"},
      {"-w {0} is out of range; allowed: 0 to 100000", "-w {0} 超出范围；允许：0 到 100000"},
      {"-c {0} is out of range; allowed: 0 to -n ({1})", "-c {0} 超出范围；允许：0 到 -n（{1}）"},
      // A spec's error as a flag's ("--ranks = 0 ..."); the Chinese starts with the key.
      {"--{0}", "{0}"},
      {"-e: {0} of {1} B ({2}) with {3} ranks is more than backend {4} can hold ({5} B of input "
       "+ output per rank); allowed: -e <= {6} ({7}) for {0} {8} on {3} ranks",
       "-e：{3} 个 rank 的 {0}（{1} B，{2}）超出后端 {4} 能容纳的大小（每个 rank 输入 + 输出共 "
       "{5} B）；允许：{3} 个 rank 上的 {0} {8} 为 -e <= {6}（{7}）"},
      {"{0} at {1} B: {2} (use a smaller -e)", "{0}（{1} B）：{2}（请用更小的 -e）"},
      {"another run request replaced the sweep's request (give the sweep an Engine of its own)",
       "另一个运行请求替换了扫描的请求（请给扫描单独一个引擎）"},
      {"{0} at {1} B: no result", "{0}（{1} B）：没有结果"},
      {"{0} at {1} B: {2}", "{0}（{1} B）：{2}"},
      {"not run", "未运行"},
      // engine/verify/value_summary.cpp: --values.
      {"--values: '{0}' is not allowed; use all, none, or a count of values (buffers with more "
       "are summarised: the first and last few of each block)",
       "--values：不允许“{0}”；可用 --values=all、--values=none 或数值个数（值更多的缓冲区只显示"
       "摘要：每个数据块开头和结尾的几个值）"},
  };
  return kTable;
}

}  // namespace collviz
