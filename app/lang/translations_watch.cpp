// collviz watch and collviz tap-path (issue 54): the Chinese of every
// message id they print (app/cli/cli_watch*.cpp) and of the live capture's
// notes (engine/job/live.cpp). Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableWatch() {
  static constexpr Translation kTable[] = {
      // Options and the launcher (cli_watch.cpp).
      {"the command to run is missing after --: collviz watch [options] -- mpirun -n 4 ./app",
       "-- 之后缺少要运行的命令：collviz watch [选项] -- mpirun -n 4 ./app"},
      {"--bytes {0} is out of range; allowed: 0 to 1048576", "--bytes {0} 超出范围；允许：0 到 1048576"},
      {"--hang-after {0} is out of range; allowed: 0.1 to 86400 seconds", "--hang-after {0} 超出范围；允许：0.1 到 86400 秒"},
      {"{0} is not a launcher: the program is started through Open MPI's mpirun or mpiexec (collviz watch -- mpirun -n 4 ./app)",
       "{0} 不是启动器：程序须通过 Open MPI 的 mpirun 或 mpiexec 启动（collviz watch -- mpirun -n 4 ./app）"},
      {"the launcher {0} was not found (no such program)", "找不到启动器 {0}（没有这个程序）"},
      {"the launcher {0} was not found in PATH", "在 PATH 中找不到启动器 {0}"},
      {"{0} is not Open MPI's launcher ({0} --version says: {1}); collviz watch runs Open MPI programs (the tap wraps Open MPI's library)",
       "{0} 不是 Open MPI 的启动器（{0} --version 显示：{1}）；collviz watch 运行 Open MPI 程序（探针包装的是 Open MPI 的库）"},
      {"{0} is not Open MPI's launcher ({0} --version says: {1}); collviz gives the NCCL tap to the ranks with Open MPI's -x "
       "option: start the program without mpirun, or with Open MPI's",
       "{0} 不是 Open MPI 的启动器（{0} --version 显示：{1}）；collviz 通过 Open MPI 的 -x 选项把 NCCL 探针交给各 rank："
       "请不经 mpirun 启动程序，或使用 Open MPI 的 mpirun"},
      {"the program {0} was not found (no such program)", "找不到程序 {0}（没有这个程序）"},
      {"the program {0} was not found in PATH", "在 PATH 中找不到程序 {0}"},
      {"--tap {0} is not a tap; allowed: mpi, nccl, auto", "--tap {0} 不是探针；允许：mpi、nccl、auto"},
      {"--tap {0} is not a tap; allowed: mpi, nccl", "--tap {0} 不是探针；允许：mpi、nccl"},
      {"the NCCL tap {0} was not found (looked at {1}); build the target collviz-tap-nccl (built where CMake finds NCCL's "
       "headers: -DCOLLVIZ_NCCL=ON) or reinstall collviz",
       "找不到 NCCL 探针 {0}（查找了 {1}）；请构建目标 collviz-tap-nccl（CMake 找到 NCCL 头文件时才构建：-DCOLLVIZ_NCCL=ON）"
       "或重新安装 collviz"},
      {"cannot run {0} --version (no pipe)", "无法运行 {0} --version（无法创建管道）"},
      {"cannot run {0} --version (fork failed)", "无法运行 {0} --version（fork 失败）"},
      {"{0} --version did not answer within 10 s", "{0} --version 在 10 秒内没有回应"},
      {"the tap {0} was not found (looked at {1}); build the target collviz-tap-mpi or reinstall collviz",
       "找不到探针 {0}（查找了 {1}）；请构建目标 collviz-tap-mpi 或重新安装 collviz"},
      // The job (cli_watch_run.cpp).
      {"--out {0}: {1}", "--out {0}：{1}"},
      {"--out {0} is not a folder", "--out {0} 不是文件夹"},
      {"cannot make the capture folder {0}: {1}", "无法创建捕获文件夹 {0}：{1}"},
      {"--out {0} already holds a capture ({1}); give a new or empty folder", "--out {0} 中已有捕获（{1}）；请给出新的或空的文件夹"},
      {"cannot write in the capture folder {0}", "无法写入捕获文件夹 {0}"},
      {"capture in {0}; a hang is {1} s without any call returning", "捕获写入 {0}；连续 {1} 秒没有任何调用返回即视为挂起"},
      {"cannot start {0} (fork failed)", "无法启动 {0}（fork 失败）"},
      {"the job was ended after the hang (--kill-on-hang)", "挂起后已结束作业（--kill-on-hang）"},
      {"interrupted; the job was ended and the capture closed", "已中断；作业已结束，捕获已关闭"},
      // What is printed (cli_watch_print.cpp).
      {"a hang: no call has returned for {0} s", "挂起：已有 {0} 秒没有调用返回"},
      {"{0} s · {1} ranks · {2} calls returned · {3} in a call now", "{0} 秒 · {1} 个 rank · 已返回 {2} 次调用 · 当前 {3} 个在调用中"},
      {"exit status {0} · {1} ranks · {2} calls", "退出状态 {0} · {1} 个 rank · {2} 次调用"},
      {"{0} was not read whole: {1}", "{0} 未能完整读取：{1}"},
      {"rank {0} lost {1} records ({2})", "rank {0} 丢失了 {1} 条记录（{2}）"},
      {"the disk was full", "磁盘已满"},
      {"the file reached its size cap", "文件达到了大小上限"},
      {"no memory", "内存不足"},
      {"an error writing the file", "写文件时出错"},
      {"{0} calls never returned (in a call when the job ended)", "{0} 次调用从未返回（作业结束时仍在调用中）"},
      {"the capture: {0} (collviz job {0})", "捕获：{0}（collviz job {0}）"},
      {"the tap saw no MPI call: the ranks' MPI library is not Open MPI ({0}); collviz watch runs Open MPI programs",
       "探针没有看到任何 MPI 调用：各 rank 的 MPI 库不是 Open MPI（{0}）；collviz watch 运行 Open MPI 程序"},
      {"the tap saw no MPI call (no rank wrote a capture file): the program may use another MPI than Open MPI, may be linked "
       "statically (a preloaded library cannot wrap it), or may not be an MPI program",
       "探针没有看到任何 MPI 调用（没有 rank 写出捕获文件）：程序可能使用了 Open MPI 以外的 MPI，可能是静态链接的（预加载的库无法包装它），"
       "也可能不是 MPI 程序"},
      {"the tap saw no MPI call: the ranks started MPI but called no collective", "探针没有看到任何 MPI 调用：各 rank 启动了 MPI，但没有调用集合操作"},
      {"the tap saw no NCCL call (no process wrote a capture file): the program may not use NCCL, may have NCCL linked in "
       "statically (a preloaded library cannot wrap it), or its launcher may have started the ranks without the environment "
       "it was given (LD_PRELOAD)",
       "探针没有看到任何 NCCL 调用（没有进程写出捕获文件）：程序可能没有使用 NCCL，可能静态链接了 NCCL（预加载的库无法包装它），"
       "也可能其启动器启动各 rank 时没有传递给它的环境（LD_PRELOAD）"},
      {"the tap saw no NCCL call: the processes loaded the tap but made no NCCL collective",
       "探针没有看到任何 NCCL 调用：各进程加载了探针，但没有调用 NCCL 集合操作"},
      {"cannot write {0}", "无法写入 {0}"},
      // The live capture's notes (engine/job/live.cpp).
      {"not a collviz capture file (its first bytes are not the tap's)", "不是 collviz 的捕获文件（开头的字节不是探针写的）"},
      {"a capture of another version ({0}; this collviz reads {1})", "其他版本的捕获（{0}；此 collviz 读取 {1}）"},
      {"a record of size {0} at byte {1} (a record is a multiple of 8 bytes, at least 8)",
       "第 {1} 字节处的记录大小为 {0}（记录应为 8 字节的倍数，至少 8 字节）"},
      {"a record of {0} bytes at byte {1} (larger than any record the tap writes)", "第 {1} 字节处有 {0} 字节的记录（比探针写的任何记录都大）"},
      // The watch window (issue 58: app/panels/watch_*.cpp, engine/job/live_lanes*.cpp).
      {"Watch a program…", "监视程序…"},
      {"Open capture…", "打开捕获…"},
      {"Watch a program", "监视程序"},
      {"Open capture", "打开捕获"},
      {"Watch", "监视"},
      {"The folder collviz watch wrote (tap-*.cvtap files): a job that ended, hangs or still runs.",
       "collviz watch 写的文件夹（探针文件）：已结束、挂起或仍在运行的作业。"},
      {"The command line with its launcher, as after collviz watch --: mpirun -n 4 lmp -in in.lj",
       "带启动器的命令行，与 collviz watch -- 之后相同：mpirun -n 4 ./app"},
      {"{0} is not a folder (a capture is the folder collviz watch wrote)", "{0} 不是文件夹（捕获是 collviz watch 写的文件夹）"},
      {"{0} holds no capture file (tap-*.cvtap): give the folder collviz watch wrote",
       "{0} 中没有捕获文件（探针文件）：请给出 collviz watch 写的文件夹"},
      {"no command: give the launcher and the program, e.g. mpirun -n 4 ./app", "没有命令：请给出启动器和程序，例如 mpirun -n 4 ./app"},
      {"the command was not run", "命令没有运行"},
      {"running; capture in {0}", "运行中；捕获在 {0}"},
      {"ended, exit status {0}; capture in {1}", "已结束，退出状态 {0}；捕获在 {1}"},
      {"a capture read from its files (still read as it grows)", "从文件读取的捕获（文件增长时继续读取）"},
      {"{0} calls entered, {1} returned · {2} communicators · {3} files", "进入 {0} 次调用，返回 {1} 次 · {2} 个通信器 · {3} 个文件"},
      {"follow the newest calls", "跟随最新调用"},
      {"Click a call (or ←/→ along a lane, ↑/↓ between lanes) to see it; 0–9 trace a rank, A all; F or End follows the newest.",
       "点击一个调用（或用 ←/→ 沿泳道、↑/↓ 在泳道间移动）查看它；0–9 追踪一个 rank，A 全部；F 或 End 跟随最新调用。"},
      {"Hang: no call has returned for {0} s. {1}", "挂起：已有 {0} 秒没有调用返回。{1}"},
      {"in {0} #{1} of {2} for {3} s", "在 {2} 的 {0} #{1} 中已 {3} 秒"},
      {"{0} of {1} entered", "{1} 个中 {0} 个已进入"},
      {"finalized", "已结束 MPI"},
      {"outside MPI for {0} s", "在 MPI 之外已 {0} 秒"},
      {"outside NCCL for {0} s", "在 NCCL 之外已 {0} 秒"},
      {"no call yet", "尚无调用"},
      {"deadlock: who waits for whom", "死锁：谁在等谁"},
      {"No collective captured yet.", "尚未捕获任何集合操作。"},
      {"{0} calls · {1}", "{0} 次调用 · {1}"},
      {"root {0}", "根 {0}"},
      {"last R{0}", "最后到达 R{0}"},
      {"rank", "进程 rank"},
      {"arrival", "到达"},
      {"returned", "已返回"},
      {"input (first values)", "输入（前几个值）"},
      {"output (first values)", "输出（前几个值）"},
      {"last to arrive", "最后到达"},
      {"waited {0} ms for the last", "等待最后一个 {0} 毫秒"},
      {"yes", "是"},
      {"R runs this call here, as collviz's own op at the program's sizes (where the local backend can).",
       "R 在本机运行此调用：以程序的大小作为 collviz 自己的操作运行（本机后端能运行时）。"},
      {"the values as read from the files", "从文件读取的值"},
      {"last most often: {0}", "最常最后到达：{0}"},
      {"no", "否"},
      {"no communicator {0} in the capture", "捕获中没有通信器 {0}"},
      {"call #{0} of {1} is in no member's file", "{1} 的调用 #{0} 不在任何成员的文件中"},
  };
  return kTable;
}

}  // namespace collviz
