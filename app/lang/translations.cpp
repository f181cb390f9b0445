// The string table: every English text a person reads, with its Chinese.
// The article's own words where it has them (../shared/seed/): the op names
// stay in English, each with its phrase (整份复制 … 按列交换); 输入, 输出,
// 追踪去向, 全部, 每行一张 GPU, 颜色跟随数据块，下标表示分片, 每处一片, 每处一整份.
// A test walks this table and every tr("...") in app/: none may be missing.
#include "app/lang/lang.h"

namespace collviz {

namespace {
constexpr Translation kTable[] = {
    // The ops' phrases (engine/collectives.h) and the decomposition.
    {"copy the whole thing", "整份复制"},
    {"cut and hand out", "切开分发"},
    {"collect and join", "收集拼接"},
    {"add element-wise", "逐项相加"},
    {"join everywhere", "每处都拼接"},
    {"add, then shard", "相加后分片"},
    {"everyone gets the total", "每处都得总和"},
    {"exchange by column", "按列交换"},
    {"the same result, in two steps", "All-reduce 的两步分解，结果等价"},
    // The diagram: legend, columns, footer.
    {"each row is one GPU (rank)", "每行一张 GPU"},
    {"colour follows the data block, subscript = shard", "颜色跟随数据块，下标表示分片"},
    {"element-wise sum, same shard", "同一分片位置的逐元素求和"},
    {"Input", "输入"},
    {"Output", "输出"},
    {"input", "输入"},
    {"output", "输出"},
    {"after reduce-scatter", "Reduce-scatter 之后"},
    {"one shard each", "每处一片"},
    {"after all-gather", "All-gather 之后"},
    {"a full copy each", "每处一整份"},
    {"not yet run", "尚未运行"},
    {"↓ / PgDn: next step ({0} of 3 shown)", "↓ / PgDn：下一步（已显示 {0} / 3）"},
    {"equals All-reduce's output? — not yet run", "与 All-reduce 的输出相同吗？— 尚未运行"},
    {"✓ after all-gather = All-reduce's output (checked by the engine, element by element)",
     "✓ All-gather 之后 = All-reduce 的输出（引擎逐元素核对）"},
    {"✗ differs from All-reduce's output: {0} mismatched elements",
     "✗ 与 All-reduce 的输出不同：{0} 个元素不一致"},
    {"arrows show data relations, not the algorithm", "箭头表示数据关系，不代表实际通信算法"},
    // Status line and bar.
    {"op {0}", "操作 {0}"},
    {"op {0}  (request {1})", "操作 {0}（请求 {1}）"},
    {"✓ verified against the oracle", "✓ 已与参考结果核对"},
    {"✗ {0} mismatches", "✗ {0} 处不一致"},
    {"{0} block(s) marked !", "{0} 个数据块标记为 !"},
    {"engine error: ", "引擎错误："},
    {"running…", "运行中…"},
    // Figures' captions (collviz export).
    {"state {0}: ", "状态 {0}："},
    {"after reduce-scatter: one shard each", "Reduce-scatter 之后：每处一片"},
    {"after all-gather: a full copy each", "All-gather 之后：每处一整份"},
    {"trace: what reaches {0}", "追踪去向：到达 {0} 的数据"},
    {"trace: where {0}'s data goes", "追踪来源：{0} 的数据去向"},
    // Trace bar.
    {"trace", "追踪去向"},
    {"All", "全部"},
    {"what reaches {0}", "到达 {0} 的数据"},
    {"where {0}'s data goes", "{0} 的数据去向"},
    {"↻ run again", "↻ 再运行一次"},
    {"Screenshot (F12)", "截图 (F12)"},
    {"Save the diagram as a PNG (what `collviz export` draws)", "把图保存为 PNG（与 `collviz export` 所画相同）"},
    {"step", "步骤"},
    // Side panel.
    {"OPERATIONS   ← →", "集合操作   ← →"},
    {"RUN   (any change runs again · Space)", "运行   （任何改动都会重新运行 · 空格）"},
    {"ranks", "rank 数"},
    {"elements", "元素数"},
    {"elements per block (Enter to apply)", "每个数据块的元素数（回车生效）"},
    {"dtype", "数据类型"},
    {"reduce", "归约"},
    {"root", "root"},
    {"backend", "后端"},
    {"(unavailable)", "（不可用）"},
    {"VIEW", "视图"},
    {"UI scale", "界面缩放"},
    {"lecture hall 2x", "大教室 2x"},
    {"zoom", "缩放"},
    {"dark theme (T)", "深色主题 (T)"},
    {"Bandwidth sweep… (B)", "带宽扫描… (B)"},
    {"keys: ← → op · ↑ ↓ step · Space run · 0-9 trace · A all · F full screen · H hide panels · "
     "+ − zoom · T theme · B bandwidth · ? help",
     "按键：← → 操作 · ↑ ↓ 步骤 · 空格 运行 · 0-9 追踪 · A 全部 · F 全屏 · H 隐藏面板 · "
     "+ − 缩放 · T 主题 · B 带宽 · ? 帮助"},
    // Help.
    {"Keys", "按键"},
    {"previous / next op", "上一个 / 下一个操作"},
    {"step (decomposition, then ops)", "分步（先分解，再到下一个操作）"},
    {"run again", "再运行一次"},
    {"trace that rank", "追踪该 rank"},
    {"trace all", "全部"},
    {"full screen, no sidebar", "全屏，无侧栏"},
    {"light / dark theme", "浅色 / 深色主题"},
    {"bandwidth sweep (busbw against size)", "带宽扫描（busbw 随大小变化）"},
    {"hide the panels (diagram only)", "隐藏面板（只显示图）"},
    {"a lecture: go to step 12", "讲课：跳到第 12 步"},
    {"this help", "本帮助"},
    // Bandwidth panel.
    {"Bandwidth###bandwidth", "带宽###bandwidth"},
    {"busbw = algbw × {0} for this op and N (nccl-tests' factor): the bytes each link carried per "
     "second, comparable across ops and N with the link's peak.",
     "busbw = algbw × {0}（nccl-tests 对该操作与 N 的系数）：每条链路每秒传输的字节数，"
     "可在不同操作与 N 之间、以及与链路峰值比较。"},
    {"from 2^", "从 2^"},
    {"to 2^", "到 2^"},
    {"factor", "倍数"},
    {"iters", "迭代"},
    {"warm-up", "预热"},
    {"checked", "核对"},
    {"Cancel", "取消"},
    {"Run sweep", "开始扫描"},
    {"cancelled", "已取消"},
    {"busbw (GB/s) against size: run a sweep", "busbw (GB/s) 随大小变化：请开始扫描"},
    {"size (log2)", "大小 (log2)"},
    {"size", "大小"},
    {"time (us)", "时间 (us)"},
    {"#wrong", "#错误"},
    // collviz run (human-readable lines; keys and JSON stay English).
    {"notice", "提示"},
    {"values", "数值"},
    {"verified", "已核对"},
    {"NOT VERIFIED", "未通过核对"},
    {"{0} mismatches, {1} undecodable · op {2} us (slowest rank)",
     "{0} 处不一致，{1} 处无法解码 · 操作 {2} us（最慢的 rank）"},
    {"first problem", "第一个问题"},
    {"reduce_scatter + all_gather equals a real all_reduce on the same inputs ({0} elements differ)",
     "reduce_scatter + all_gather 与相同输入上真实的 all_reduce 相同（{0} 个元素不同）"},
    {"reduce_scatter + all_gather DIFFERS FROM a real all_reduce on the same inputs ({0} elements differ)",
     "reduce_scatter + all_gather 与相同输入上真实的 all_reduce 不同（{0} 个元素不同）"},
    {"op time {0} us · engine {1} us", "操作时间 {0} us · 引擎 {1} us"},
};
}  // namespace

std::span<const Translation> translations() { return kTable; }

}  // namespace collviz
