// Worker messages: the Chinese of every message id (engine/text.h) made in engine/worker/ (collviz-rank and its modules).
// The id is the English template; {0}, {1}, ... keep their places (the
// Chinese may move them). Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableWorker() {
  static constexpr Translation kTable[] = {
      {"unknown message: {0}", "未知消息：{0}"},
      {"shared memory too small", "共享内存太小"},
      {"shared memory too small for the working buffer", "共享内存放不下工作缓冲区"},
      {"{0} {1} on rank {2}: {3}", "{0} {1}（rank {2}）：{3}"},
      {"{0}: the file's text comes with round 1 of a run; this rank has not seen it",
       "{0}：文件内容随一次运行的第 1 轮发送；此 rank 尚未收到"},
  };
  return kTable;
}

}  // namespace collviz
