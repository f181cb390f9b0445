// Algorithm messages: the Chinese of every message id (engine/text.h) made in engine/algo/ (schedules, formulas, MSCCL files).
// The id is the English template; {0}, {1}, ... keep their places (the
// Chinese may move them). Terms as in docs/glossary.md. The MSCCL file's
// element and attribute names (gpu, tb, step, i_chunks, depid, ...) are the
// file's own identifiers and stay as they are.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableAlgo() {
  static constexpr Translation kTable[] = {
      {"round", "轮"},

      // A round's name and a schedule's local steps (engine/algo/schedule.cpp).
      // Always shown inside a round's own words ("第 1/2 轮：{name}", "第 {0} 轮（{name}）"):
      // the name says 轮 no second time.
      {"{0} {1}/{2}", "{0} {1}/{2}"},
      {"local copies before ({0})", "之前的本地复制（{0}）"},
      {"local copies after ({0})", "之后的本地复制（{0}）"},

      // The textbook formulas (engine/algo/<algorithm>.cpp). ceil/floor are
      // written ⌈ ⌉ / ⌊ ⌋ in Chinese.
      {"2(N-1) rounds; 2(N-1)/N·S sent per rank (S = N blocks); cost 2(N-1)α + 2(N-1)/N·Sβ",
       "2(N-1) 轮；每个 rank 发送 2(N-1)/N·S（S = N 个数据块）；代价 2(N-1)α + 2(N-1)/N·Sβ"},
      {"2N-2 rounds (N blocks pipelined over N-1 hops); S sent by every rank but the last; cost (2N-2)(α + S/N·β)",
       "2N-2 轮（N 个数据块以流水线经过 N-1 跳）；除最后一个 rank 外每个 rank 发送 S；代价 (2N-2)(α + S/N·β)"},
      {"N-1 rounds; (N-1)/N·S sent per rank (S = N blocks); cost (N-1)α + (N-1)/N·Sβ",
       "N-1 轮；每个 rank 发送 (N-1)/N·S（S = N 个数据块）；代价 (N-1)α + (N-1)/N·Sβ"},
      {"ceil(log2 N) rounds; every rank but the root sends S once (S = 1 block), the root receives ceil(log2 N)·S; cost ceil(log2 N)(α + Sβ)",
       "⌈log2 N⌉ 轮；除 root 外每个 rank 发送一次 S（S = 1 个数据块），root 接收 ⌈log2 N⌉·S；代价 ⌈log2 N⌉(α + Sβ)"},
      {"2·ceil(log2 N) rounds of S (reduce to rank 0, then broadcast; S = N blocks); rank 0 sends ceil(log2 N)·S; cost 2·ceil(log2 N)(α + Sβ)",
       "2·⌈log2 N⌉ 轮，每轮 S（先归约到 rank 0，再广播；S = N 个数据块）；rank 0 发送 ⌈log2 N⌉·S；代价 2·⌈log2 N⌉(α + Sβ)"},
      {"ceil(log2 N) rounds of S (S = N blocks); the root sends ceil(log2 N)·S; cost ceil(log2 N)(α + Sβ)",
       "⌈log2 N⌉ 轮，每轮 S（S = N 个数据块）；root 发送 ⌈log2 N⌉·S；代价 ⌈log2 N⌉(α + Sβ)"},
      {"log2 N rounds; (N-1)/N·S sent per rank (S = N blocks); cost log2 N·α + (N-1)/N·Sβ. N not a power of two: p = 2^floor(log2 N), 2 more rounds (fold, unfold), the 2(N-p) folded ranks move up to S more",
       "log2 N 轮；每个 rank 发送 (N-1)/N·S（S = N 个数据块）；代价 log2 N·α + (N-1)/N·Sβ。N 不是 2 的幂时：p = 2^⌊log2 N⌋，多 2 轮（折叠、展开），2(N - p) 个折叠的 rank 最多多传 S"},
      {"2·log2 N rounds; 2(N-1)/N·S sent per rank (S = N blocks); cost 2·log2 N·α + 2(N-1)/N·Sβ. N not a power of two: p = 2^floor(log2 N), 2 more rounds (fold, unfold), the 2(N-p) folded ranks move up to S more",
       "2·log2 N 轮；每个 rank 发送 2(N-1)/N·S（S = N 个数据块）；代价 2·log2 N·α + 2(N-1)/N·Sβ。N 不是 2 的幂时：p = 2^⌊log2 N⌋，多 2 轮（折叠、展开），2(N - p) 个折叠的 rank 最多多传 S"},
      {"1 round of N-1 messages; the root sends (N-1)/N·S (S = N blocks); cost (N-1)α + (N-1)/N·Sβ at the root",
       "1 轮，N-1 条消息；root 发送 (N-1)/N·S（S = N 个数据块）；root 处代价 (N-1)α + (N-1)/N·Sβ"},
      {"1 round of N-1 messages; every other rank sends S/N, the root receives (N-1)/N·S (S = N blocks); cost (N-1)α + (N-1)/N·Sβ at the root",
       "1 轮，N-1 条消息；其他每个 rank 发送 S/N，root 接收 (N-1)/N·S（S = N 个数据块）；root 处代价 (N-1)α + (N-1)/N·Sβ"},
      {"ceil(log2 N) rounds; round k sends the blocks whose index has bit k set: (S/2)·log2 N per rank for N a power of two (S = N blocks); cost ceil(log2 N)α + (S/2)·ceil(log2 N)β",
       "⌈log2 N⌉ 轮；第 k 轮发送编号第 k 位为 1 的数据块：N 为 2 的幂时每个 rank 发送 (S/2)·log2 N（S = N 个数据块）；代价 ⌈log2 N⌉α + (S/2)·⌈log2 N⌉β"},
      {"MSCCL file: {0} rounds; bytes as its steps send", "MSCCL 文件：{0} 轮；字节数按其步骤所发"},

      // The algorithms' one-line descriptions (algorithms.cpp; `collviz algos`).
      {"the backend's own call, one opaque step", "后端自己的调用，一个看不到内部的步骤"},
      {"ring: each rank sends to the next, one block per round (broadcast: a pipelined chain)",
       "环：每个 rank 发给下一个，每轮一个数据块（广播：流水线链）"},
      {"binomial tree from the root (all_reduce: reduce to rank 0, then broadcast)",
       "从 root 出发的二项树（all_reduce：先归约到 rank 0，再广播）"},
      {"partners at distance 1, 2, 4, ... swap everything they hold", "相距 1、2、4……的伙伴交换各自持有的全部数据"},
      {"Rabenseifner: recursive halving reduce-scatter, then recursive doubling all-gather",
       "Rabenseifner：先递归减半做 Reduce-scatter，再递归加倍做 All-gather"},
      {"the root sends to / receives from every rank in one round", "root 在一轮里直接发给 / 收自每个 rank"},
      {"round s: send to rank r+s, receive from rank r-s", "第 s 轮：发给 rank r+s，收自 rank r - s"},
      // ... and as `collviz algos` shows them under an op their note is not about.
      {"ring: each rank sends to the next, one block per round", "环：每个 rank 发给下一个，每轮一个数据块"},
      {"binomial tree from the root", "从 root 出发的二项树"},
      {"Bruck: rotate, then in round k send the blocks whose index has bit k to rank r+2^k",
       "Bruck：先循环移动，再在第 k 轮把编号第 k 位为 1 的数据块发给 rank r+2^k"},

      // Choosing an algorithm (algorithms.cpp, msccl_lower.cpp).
      {"algo {0} is not an algorithm; allowed: {1} (for {2}: {3})", "{0} 不是算法；可选：{1}（{2} 可用：{3}）"},
      {"algo {0} does not run {1}; algorithms for {1}: {2}", "算法 {0} 不能运行 {1}；{1} 可用的算法：{2}"},
      {"algo {0} tracks contributors in 32 bits; ranks = {1} is more; allowed: 1 to 32, or algo native",
       "算法 {0} 用 32 位记录贡献者；rank 数 {1} 超出；可选：1 到 32，或算法 native"},
      {"algo native has no schedule: it is the backend's own call", "算法 native 没有调度：它是后端自己的调用"},
      {"algo {0} ({1}) runs {2}, not {3}; allowed: op {2}", "算法 {0}（{1}）运行 {2}，不是 {3}；可选：操作 {2}"},
      {"algo {0} ({1}) runs on {2} ranks (ngpus), not {3}; allowed: ranks {2}",
       "算法 {0}（{1}）在 {2} 个 rank 上运行（ngpus），不是 {3} 个；可选：{2} 个 rank"},
      {"algo {0} ({1}) was read for root {2}, not {3}; allowed: root {2}",
       "算法 {0}（{1}）按 root {2} 读入，不是 {3}；可选：root {2}"},
      {"elems {0} does not split into algo {1} ({2})'s {3} chunks per block; allowed: a multiple of {3}",
       "每块元素数 {0} 无法分成算法 {1}（{2}）每个数据块的 {3} 个分块；可选：{3} 的倍数"},

      // The symbolic reference (reference.cpp) and a round's check (round_check.cpp).
      {"round {0} ({1})", "第 {0} 轮（{1}）"},
      {"{0}: rank {1} combines slot {2} with data that does not belong there", "{0}：rank {1} 把不属于槽位 {2} 的数据并入该槽位"},
      {"{0}: rank {1} sends empty slot {2}", "{0}：rank {1} 发送了空的槽位 {2}"},
      {"{0} {1}: {2}", "{0} {1}：{2}"},
      {"{0}: rank {1} ends with {2} output pieces, the op gives {3}", "{0}：rank {1} 结束时有 {2} 个输出片段，该操作应为 {3} 个"},
      {"{0}: rank {1} output block {2} does not end with what {3} gives there",
       "{0}：rank {1} 的输出数据块 {2} 最终不是 {3} 在该处应得的结果"},
      {"{0}: rank {1} output chunk {2} does not end with what {3} gives there",
       "{0}：rank {1} 的输出分块 {2} 最终不是 {3} 在该处应得的结果"},
      {"rank {0} slot {1} element {2}: {3}", "rank {0} 槽位 {1} 元素 {2}：{3}"},
      {"holds data where nothing should have arrived yet", "此处还不应有数据到达，却有数据"},
      // "got {0}, want {1}" is in translations_checks.cpp (verification says it too).
      {"value {0} does not decode to the contributors the reference predicts", "数值 {0} 解码出的贡献者与参考推演不符"},

      // Reading an MSCCL file (msccl_read.cpp). "FILE:LINE: what".
      {"{0}:{1}: {2}", "{0}:{1}：{2}"},
      {"<{0}> has no attribute {1}", "<{0}> 缺少属性 {1}"},
      {"<{0}> {1}=\"{2}\" is not an integer", "<{0}> {1}=\"{2}\" 不是整数"},
      {"step type \"{0}\" is not a step type; allowed: s, r, rcs, rrs, rrc, rrcs, cpy, re, nop",
       "步骤类型 \"{0}\" 不是合法的步骤类型；可选：s, r, rcs, rrs, rrc, rrcs, cpy, re, nop"},
      {"{0}=\"{1}\" is not a buffer; allowed: i (input), o (output), s (scratch)",
       "{0}=\"{1}\" 不是缓冲区；可选：i（输入）、o（输出）、s（暂存）"},
      {"<{0}> inside <algo>; allowed: <gpu>", "<{0}> 位于 <algo> 内；可选：<gpu>"},
      {"<{0}> inside <gpu>; allowed: <tb>", "<{0}> 位于 <gpu> 内；可选：<tb>"},
      {"<{0}> inside <tb>; allowed: <step>", "<{0}> 位于 <tb> 内；可选：<step>"},
      {"not well-formed XML: {0}", "XML 格式不正确：{0}"},
      {"the top element is <{0}>; an MSCCL algorithm file starts with <algo>", "顶层元素是 <{0}>；MSCCL 算法文件应以 <algo> 开头"},
      {"{0}: cannot open the algorithm file ({1})", "{0}：无法打开算法文件（{1}）"},
      {"{0}: cannot read the algorithm file", "{0}：无法读取算法文件"},
      {"{0}: the algorithm file is {1} bytes; allowed: up to 64 MiB", "{0}：算法文件有 {1} 字节；上限：64 MiB"},

      // Checking an MSCCL file (msccl_check.cpp, msccl_graph.cpp, msccl_lower.cpp).
      {"gpu {0} tb {1} step {2}", "GPU {0} 的线程块 {1} 的第 {2} 步"},
      {"gpu {0}: i_chunks = {1} does not split {2}'s {3} input block(s) on this rank; allowed: a positive multiple of {3}",
       "GPU {0}：i_chunks = {1} 无法均分 {2} 在此 rank 上的 {3} 个输入数据块；可选：{3} 的正整数倍"},
      {"({0} on {1} ranks, root {2}, {3} chunk(s) per block)", "（{0}，{1} 个 rank，root {2}，每个数据块 {3} 个分块）"},
      {"gpu {0}: i_chunks = {1}; allowed: {2} {3}", "GPU {0}：i_chunks = {1}；可选：{2} {3}"},
      {"gpu {0}: o_chunks = {1}; allowed: {2} {3}", "GPU {0}：o_chunks = {1}；可选：{2} {3}"},
      {"gpu {0}: o_chunks = {1}; allowed: {2} or 0 (in place) {3}", "GPU {0}：o_chunks = {1}；可选：{2} 或 0（原地）{3}"},
      {"gpu {0}: s_chunks = {1}; allowed: 0 or more", "GPU {0}：s_chunks = {1}；可选：0 或更多"},
      {"nchunksperloop = {0}; the largest i_chunks or o_chunks is {1}, and nchunksperloop must equal it",
       "nchunksperloop = {0}；最大的 i_chunks 或 o_chunks 是 {1}，nchunksperloop 必须等于它"},
      {"inplace=\"1\" for {0} is not supported; allowed in place: allreduce, allgather, reduce_scatter, alltoall, broadcast",
       "{0} 不支持 inplace=\"1\"；可原地运行的：allreduce, allgather, reduce_scatter, alltoall, broadcast"},
      {"{0}: steps of a threadblock are numbered 0, 1, 2, ... in order; this is step {1} of tb {2}",
       "{0}：一个线程块的步骤须按 0, 1, 2, … 依次编号；这是线程块 {2} 的第 {1} 步"},
      {"{0}: cnt = {1}; allowed: 1 or more", "{0}：cnt = {1}；可选：1 或更多"},
      {"{0}: source chunks {1}..{2} of buffer {3} are out of range; buffer {3} has {4} chunk(s) on gpu {5}",
       "{0}：缓冲区 {3} 的源分块 {1}..{2} 超出范围；GPU {5} 上缓冲区 {3} 有 {4} 个分块"},
      {"{0}: destination chunks {1}..{2} of buffer {3} are out of range; buffer {3} has {4} chunk(s) on gpu {5}",
       "{0}：缓冲区 {3} 的目标分块 {1}..{2} 超出范围；GPU {5} 上缓冲区 {3} 有 {4} 个分块"},
      {"{0}: a send in a threadblock with send=\"-1\"; the tb's send names the peer",
       "{0}：send=\"-1\" 的线程块中有发送；对端应由线程块的 send 属性指明"},
      {"{0}: a fused send in a threadblock with send=\"-1\"; the tb's send names the peer",
       "{0}：send=\"-1\" 的线程块中有融合发送；对端应由线程块的 send 属性指明"},
      {"{0}: a receive in a threadblock with recv=\"-1\"; the tb's recv names the peer",
       "{0}：recv=\"-1\" 的线程块中有接收；对端应由线程块的 recv 属性指明"},
      {"{0}: depid = {1} and deps = {2}; both -1 (none) or both a step",
       "{0}：depid = {1}，deps = {2}；两者须同为 -1（无），或同指一个步骤"},
      {"{0}: depid = {1} is not a threadblock of gpu {2}", "{0}：depid = {1} 不是 GPU {2} 的线程块"},
      {"{0}: deps = {1}, but tb {2} has {3} step(s)", "{0}：deps = {1}，但线程块 {2} 只有 {3} 个步骤"},
      {"coll=\"custom\": collviz checks a run against a known collective; allowed: {0}",
       "coll=\"custom\"：collviz 要按已知的集合操作核对运行结果；可选：{0}"},
      {"coll=\"{0}\" is not a collective; allowed: {1}", "coll=\"{0}\" 不是集合操作；可选：{1}"},
      {"ngpus = {0}; allowed: {1} to {2}", "ngpus = {0}；可选：{1} 到 {2}"},
      {"ngpus = {0} but --ranks is {1}; the file runs on exactly ngpus ranks",
       "ngpus = {0}，但 --ranks 是 {1}；该文件只能在恰好 ngpus 个 rank 上运行"},
      {"root {0} is out of range; allowed: 0 to {1}", "root {0} 超出范围；可选：0 到 {1}"},
      {"nchannels = {0}; allowed: 1 or more", "nchannels = {0}；可选：1 或更多"},
      {"proto=\"{0}\" is not a protocol; allowed: Simple, LL, LL128", "proto=\"{0}\" 不是协议；可选：Simple, LL, LL128"},
      {"gpu id {0} is out of range; allowed: 0 to {1} (ngpus = {2})", "GPU 编号 {0} 超出范围；可选：0 到 {1}（ngpus = {2}）"},
      {"gpu {0} appears twice", "GPU {0} 出现了两次"},
      {"gpu {0} is missing; the file has {1} <gpu> of ngpus = {2}", "缺少 GPU {0}；文件中有 {1} 个 <gpu>，而 ngpus = {2}"},
      {"gpu {0} tb {1} appears twice (first at line {2})", "GPU {0} 的线程块 {1} 出现了两次（第一次在第 {2} 行）"},
      {"gpu {0} tb {1}: peer {2} is not another gpu; allowed: -1 (none) or 0 to {3} except {0}",
       "GPU {0} 的线程块 {1}：对端 {2} 不是另一个 GPU；可选：-1（无）或 0 到 {3} 中除 {0} 以外的值"},
      {"gpu {0} tb {1}: chan = {2}; allowed: 0 to {3} (nchannels = {4})", "GPU {0} 的线程块 {1}：chan = {2}；可选：0 到 {3}（nchannels = {4}）"},
      {"gpu {0}: two threadblocks receive from gpu {1} on channel {2} (lines {3} and {4}): their order is undefined",
       "GPU {0}：两个线程块在通道 {2} 上接收 GPU {1} 的数据（第 {3} 行和第 {4} 行）：它们的顺序不确定"},
      {"gpu {0}: two threadblocks send to gpu {1} on channel {2} (lines {3} and {4}): their order is undefined",
       "GPU {0}：两个线程块在通道 {2} 上发给 GPU {1}（第 {3} 行和第 {4} 行）：它们的顺序不确定"},
      {"{0} sends message {1} to gpu {2} on channel {3}, which receives only {4} from gpu {5} on that channel: no matching receive",
       "{0} 在通道 {3} 上向 GPU {2} 发送第 {1} 条消息，而对方在该通道上只接收 GPU {5} 的 {4} 条：没有对应的接收"},
      {"{0} receives message {1} from gpu {2} on channel {3}, which sends only {4} to gpu {5} on that channel: no matching send",
       "{0} 在通道 {3} 上接收 GPU {2} 的第 {1} 条消息，而对方在该通道上只向 GPU {5} 发送 {4} 条：没有对应的发送"},
      {"{0} receives cnt = {1} chunk(s), but its matching send ({2}, line {3}) sends cnt = {4}",
       "{0} 接收 cnt = {1} 个分块，但对应的发送（{2}，第 {3} 行）发送 cnt = {4}"},
      {"{0} is on a dependency cycle: through depid/deps, the earlier steps of its threadblock and the sends its receives match, it waits on itself and can never run",
       "{0} 处在依赖环上：经由 depid/deps、所在线程块的前序步骤以及其接收所对应的发送，它在等待自己，永远无法运行"},
      {"gpu {0} tb {1} step {2} is posted in round {3} but gpu {4} can receive it only in round {5}, and gpu {0} overwrites what it sends in round {6}: collviz's lockstep rounds would send the new data where MSCCL's buffered send carries the old; order the overwrite after the receive (depid/deps)",
       "GPU {0} 的线程块 {1} 的第 {2} 步在第 {3} 轮发出，但 GPU {4} 要到第 {5} 轮才能接收，而 GPU {0} 在第 {6} 轮覆盖了它要发送的数据：collviz 按轮同步，会发出新数据，而 MSCCL 的缓冲发送带的是旧数据；请把覆盖排在接收之后（depid/deps）"},

      // The app's side: the algorithm view, the compare window, `collviz algos`.
      {"{0}: not a round-by-round algorithm for {1}", "{0}：不是 {1} 的逐轮算法"},
      {"{0}: the output did not verify", "{0}：输出未通过核对"},
      {"Algorithms (rounds at N = {0}; b = one block, S = the op's buffer)",
       "算法（轮数按 N = {0} 计；b = 一个数据块，S = 操作的缓冲区）"},
      {"{0} round at N = {1} · {2}", "N = {1} 时 {0} 轮 · {2}"},
      {"{0} rounds at N = {1} · {2}", "N = {1} 时 {0} 轮 · {2}"},
      // `collviz run --algo`'s formula and problem lines (cli_algos.cpp).
      {"formula: {0} rounds, {1} from the busiest rank{2}; counted: {3} message rounds, {4}",
       "公式：{0} 轮，最忙 rank 发送 {1}{2}；实计：{3} 个消息轮，{4}"},
      {" (textbook, power-of-two N)", "（教科书值，N 为 2 的幂时）"},
  };
  return kTable;
}

}  // namespace collviz
